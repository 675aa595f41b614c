package groups

import (
	"fmt"
	"time"
)

// JoinRate is the self-join limit as every receiver applies it
// (spec/channels.md "Limits": 32 self-join commits per principal per hour,
// read per group; docs/protocol/groups.md "Limits"): the times at which
// this receiver merged each principal's external commits into one group.
// Times are the receiver's clock when it processed the commit, so a
// receiver catching up a long backlog counts that backlog's joins together.
type JoinRate map[string][]time.Time

// Note records a join of principal (hex) at now and returns an error
// wrapping ErrSelfJoinRate when it is past the limit: MaxSelfJoinsPerHour
// joins of that principal are already recorded in the hour before now.
// Entries older than an hour are dropped.
func (r JoinRate) Note(principal string, now time.Time) error {
	cut := now.Add(-time.Hour)
	kept := r[principal][:0]
	for _, t := range r[principal] {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	over := len(kept) >= MaxSelfJoinsPerHour
	r[principal] = append(kept, now)
	for p, ts := range r {
		if len(ts) == 0 || !ts[len(ts)-1].After(cut) {
			delete(r, p)
		}
	}
	if over {
		return fmt.Errorf("%w (join number %d of %.8s… within an hour)", ErrSelfJoinRate, len(kept)+1, principal)
	}
	return nil
}
