package groups

import (
	"fmt"
	"time"
)

// JoinRate is the self-join limit as every receiver applies it
// (spec/channels.md "Limits": 32 self-join commits per principal per hour,
// read per group; docs/protocol/groups.md "Limits"): for each principal
// (hex), the times of its last MaxSelfJoinsPerHour self-join commits in
// one group's log, oldest first.
//
// The record is built from the log alone, so every receiver, whenever it
// reads the log and whenever it became a member, holds the same record at
// the same seq and refuses the same commits: each self-join commit in the
// log (refused or not, merged or stale) is noted in log order, at the time
// its joiner signed into its JoinData, never at the receiver's clock.
type JoinRate map[string][]time.Time

// Note records a self-join commit of principal, signed as made at claimed
// (zero for a JoinData without a time, version 1), in a group created at
// floor, and returns an error wrapping ErrSelfJoinRate when every receiver
// refuses it:
//   - MaxSelfJoinsPerHour self-joins of principal are already recorded in
//     the hour before claimed;
//   - claimed is earlier than principal's previous self-join in the log
//     (a principal's joins are dated in log order, so the hours cannot be
//     re-used by dating a join back), or than the group's creation.
//
// A refused commit is recorded too, so a loop that keeps committing stays
// refused; a join without a time counts at the principal's previous time
// (or the group's creation). Only the last MaxSelfJoinsPerHour times are
// kept: with times in log order they decide the count.
func (r JoinRate) Note(principal string, claimed, floor time.Time) error {
	ts := r[principal]
	prev := floor
	if len(ts) > 0 && ts[len(ts)-1].After(prev) {
		prev = ts[len(ts)-1]
	}
	var refused error
	switch {
	case claimed.IsZero():
		claimed = prev
	case claimed.Before(prev):
		refused = fmt.Errorf("%w (a join of %.8s… dated %s, before its previous join or the channel's creation at %s)",
			ErrSelfJoinRate, principal, claimed.UTC().Format(time.RFC3339), prev.UTC().Format(time.RFC3339))
		claimed = prev
	}
	if refused == nil && len(ts) >= MaxSelfJoinsPerHour && ts[len(ts)-MaxSelfJoinsPerHour].After(claimed.Add(-time.Hour)) {
		refused = fmt.Errorf("%w (join number %d of %.8s… within the hour before %s)",
			ErrSelfJoinRate, MaxSelfJoinsPerHour+1, principal, claimed.UTC().Format(time.RFC3339))
	}
	ts = append(ts, claimed)
	if len(ts) > MaxSelfJoinsPerHour {
		ts = append([]time.Time(nil), ts[len(ts)-MaxSelfJoinsPerHour:]...)
	}
	r[principal] = ts
	return refused
}

// Since reports how many self-joins of principal are recorded dated after
// t (those dated ahead of the reader's clock included).
func (r JoinRate) Since(principal string, t time.Time) int {
	n := 0
	for _, at := range r[principal] {
		if at.After(t) {
			n++
		}
	}
	return n
}
