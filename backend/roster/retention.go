package roster

import (
	"bytes"
	"slices"
	"time"

	"weald/backend/identity"
	"weald/backend/wire"
)

// Day is one day of a retention window.
const Day = 24 * time.Hour

// WindowDays is a window in whole days for the relay, rounded up so the
// relay never drops sooner than the policy says (0 stays unlimited).
func WindowDays(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	n := (d + Day - 1) / Day
	if n > 1<<31 {
		n = 1 << 31
	}
	return uint32(n)
}

// RelayPolicy is the relay-visible form of a proposed policy, without
// approvals (docs/protocol/retention.md "RetentionPolicy"): its version is
// the proposal's time in Unix milliseconds, which every admin knows when it
// signs, so the signatures gathered by the proposal and its approvals all
// cover the same bytes.
func RelayPolicy(group identity.GroupID, proposedAt time.Time, text, media time.Duration) wire.RetentionPolicy {
	return wire.RetentionPolicy{Group: wire.ID(group), Version: uint64(proposedAt.UnixMilli()),
		TextWindowDays: WindowDays(text), MediaWindowDays: WindowDays(media)}
}

// PendingRetention is a retention proposal that has not reached the admin
// threshold yet.
type PendingRetention struct {
	Proposal    Head
	Group       identity.GroupID
	TextWindow  time.Duration
	MediaWindow time.Duration
	Proposer    identity.UserID
	ProposedAt  time.Time
	Approvals   []identity.UserID
	Threshold   int
	// Destruction is set for a compact-now destruction proposal
	// ([RetentionDestroy], without approvals; the windows are then zero).
	Destruction *wire.RetentionDestruction
	// Resolution is set for the resolution of a frozen retention chain
	// ([RetentionResolve], without approvals; the windows are then zero).
	Resolution *wire.RetentionResolution
	// Expires is when a destruction (its not_after) or a resolution (its
	// proposal plus [ResolveWindow]) stops waiting for approvals; zero for
	// a policy, which waits until approved.
	Expires time.Time
}

// Expired reports whether p's approvals can no longer arrive at now (to
// the second, as a destruction's not_after): an expired proposal is not
// listed for approval and approving it is refused.
func (p PendingRetention) Expired(now time.Time) bool {
	return !p.Expires.IsZero() && now.Unix() > p.Expires.Unix()
}

// PendingRetentions returns the proposals still waiting for approvals,
// oldest first (a newer active policy of the same group does not withdraw
// them: each is its own proposal), expired ones included: the caller
// knows the time ([PendingRetention.Expired]).
func (s *State) PendingRetentions() []PendingRetention {
	var out []PendingRetention
	for h, p := range s.retention {
		if p.active {
			continue
		}
		x := PendingRetention{Proposal: h, Group: p.policy.Group, TextWindow: p.policy.TextWindow,
			MediaWindow: p.policy.MediaWindow, Proposer: p.proposer, ProposedAt: p.proposedAt,
			Approvals: slices.Clone(p.approvals), Threshold: s.retentionThreshold()}
		if p.destroy != nil {
			d := p.destroy.Destruction()
			x.Group, x.Destruction, x.Expires = p.destroy.Group, &d, time.Unix(int64(d.NotAfter), 0)
		}
		if p.resolve != nil {
			r := p.resolve.Resolution()
			x.Group, x.Resolution, x.Expires = p.resolve.Group, &r, p.proposedAt.Add(ResolveWindow)
		}
		if g, ok := s.groups[x.Group]; !ok || g.Deleted {
			continue
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b PendingRetention) int {
		if c := a.ProposedAt.Compare(b.ProposedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.Proposal[:], b.Proposal[:])
	})
	return out
}
