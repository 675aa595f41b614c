package retention

import "time"

// The steward's cadence (spec/lifecycle.md "Dropping": "a checkpoint per
// group every 512 changes or 7 days, whichever first").
const (
	CheckpointChanges = 512
	CheckpointAge     = 7 * Day
	// BudgetWarn is the share of the workspace byte budget at which admins
	// are told once, with compact-now (80 %).
	BudgetWarnPercent = 80
)

// StandInDue reports whether a group's checkpoint is overdue by a whole
// cadence (1024 changes, or 14 days since the last checkpoint or first
// change): its steward has been away that long, and another member holding
// the full history stands in (docs/protocol/retention.md "The steward").
func StandInDue(changes int, since, now time.Time) bool {
	if changes <= 0 {
		return false
	}
	return changes >= 2*CheckpointChanges || now.Sub(since) >= 2*CheckpointAge
}

// CheckpointDue reports whether a group whose log holds changes content
// envelopes since its last checkpoint is due for one; since is when that
// checkpoint was written (the first of those changes, when there is none).
func CheckpointDue(changes int, since, now time.Time) bool {
	if changes <= 0 {
		return false
	}
	return changes >= CheckpointChanges || now.Sub(since) >= CheckpointAge
}

// DropDue reports whether the material below a checkpoint written at
// written is older than the already-authorized policy's text window, the
// only case in which the steward sends a drop_before on its own ("issues
// the matching drop_before only for material older than the group's
// already-authorized retention policy"). An unlimited window never is.
func DropDue(p Policy, written, now time.Time) bool {
	if !p.Active || p.TextWindow <= 0 {
		return false
	}
	return !now.Before(written.Add(time.Duration(WindowDays(p.TextWindow)) * Day))
}

// ExpiryCheckpointDue reports whether a group with no change since its
// newest checkpoint is due for one all the same: under a finite text
// window an expired day leaves the relay only with a checkpoint that
// leaves it out (docs/protocol/retention.md "What a text window
// removes"), so a quiet channel gets one once its newest checkpoint,
// written at written and holding the chat days days, is a cadence old and
// holds a day expired now. It is not due again until a day it holds
// expires.
func ExpiryCheckpointDue(p Policy, days []uint32, written, now time.Time) bool {
	if !p.Active || p.TextWindow <= 0 || now.Sub(written) < CheckpointAge {
		return false
	}
	for _, d := range days {
		if Expired(d, now, p.TextWindow) {
			return true
		}
	}
	return false
}

// NearBudget reports whether used bytes reach the warning share of limit
// (0 = no budget).
func NearBudget(used, limit uint64) bool {
	return limit > 0 && used*100 >= limit*BudgetWarnPercent
}
