package engine

import (
	"context"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/retention"
)

// Contesting a fabricated retention key (docs/protocol/retention.md "A
// fabricated successor"). A member who holds an epoch's key (say, one
// about to be removed) can publish a successor of it to a key it made up
// before any honest member extends the chain. Nothing contests that line,
// so the chain does not freeze, and its head is a key no member derives:
// every later compaction would fail with retention/no_key. A member who
// proves the head's line fabricated (retention.Chain.Contest) publishes its
// own successor from the newest key of that line it derives, which freezes
// the chain (the relay's and the clients' rules for two successors of one
// key), and the resolve flow keeps the line the members derive.

// ErrContested: this device found the head of the channel's retention
// chain fabricated and contested it; compaction waits for the resolution.
var ErrContested = errcode.New("retention/contested", "the channel's retention chain ended in a key no member derives, so this device contested it; compaction resumes once an admin resolves the chain (weald retention resolve CHANNEL, or Resolve in Encryption & health)")

// contestForged publishes this member's contest of g's chain when it
// proves the head's line fabricated, and reports whether it did. The
// transition is this member's current epoch key, succeeding the newest key
// of the line it derives (a second root when it derives none of it), so
// every member who compares it with the fabricated one derives it.
func (e *Engine) contestForged(ctx context.Context, g *group) (bool, error) {
	if g.mls == nil || !g.mls.Active() {
		return false, nil
	}
	r := &g.rec.Retention
	derive := func(epoch uint64) ([]byte, bool) {
		k, err := r.seedKey(epoch)
		if err != nil {
			return nil, false
		}
		return retention.Pub(k), true
	}
	cur := g.mls.Epoch()
	anchor, ok := r.Chain.Contest(derive, cur)
	if !ok {
		return false, nil
	}
	key, err := r.seedKey(cur)
	if err != nil {
		return false, err
	}
	if err := e.publishTransition(ctx, g, anchor, cur, key); err != nil {
		return false, err
	}
	if err := e.persistGroup(ctx, g); err != nil {
		return true, err
	}
	label := "a channel"
	if gi, ok := e.roster.Group(identity.GroupID(g.rec.ID)); ok {
		label = e.groupLabel(gi)
	}
	e.raise(ctx, Alert{Code: "retention/contested", Group: hexID(g.rec.ID).hex(),
		Message: fmt.Sprintf("The retention chain of %s ended in a key no member derives, so this device contested it; nothing is compacted until an admin resolves the chain (weald retention resolve, or Resolve in Encryption & health).", label)})
	return true, nil
}
