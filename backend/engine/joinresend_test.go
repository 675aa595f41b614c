package engine

import (
	"testing"

	"weald/backend/wire"
)

// A self-join's SEND whose answer is lost, and which the relay writes only
// after the joiner looked for it in the log, once made the joiner start
// over: its next commit lost to its own first one, which had won, and
// nobody republished the GroupInfo of that epoch (its committer believed it
// had lost), so the channel stayed unreadable. The joiner now settles a
// lost answer by sending the same envelopes again.
func TestJoinSettlesASendWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	r, dana, sam, in := faultWorkspace(t, 73)
	ctx := testCtx(t)
	// The channels so far, the root included: the commit held is sam's
	// join of the one created below.
	known := map[wire.ID]bool{}
	dana.mu.Lock()
	known[wire.ID(dana.roster.RootGroup())] = true
	for _, gi := range dana.roster.Groups() {
		known[wire.ID(gi.Policy.Group)] = true
	}
	dana.mu.Unlock()
	joinCommit := func(envs []wire.Envelope) bool {
		return envs[0].Author == wire.ID(sam.devID) && envs[0].Kind == wire.KindMLSCommit && !known[envs[0].Group]
	}
	// Held until sam has looked: the next time sam reads a channel's
	// bundles (a join started over), or sam's next SEND into the channel.
	landed := r.holdNextSend(joinCommit, func() {
		in.arm(JoinStepBundles, func() error { r.landHeld(); return nil })
	})
	if err := createRetrying(ctx, dana, "late"); err != nil {
		t.Fatal(err)
	}
	if _, err := sendRetrying(ctx, dana, "late", "first in late"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "late", "first in late")
	select {
	case <-landed:
	default:
		t.Fatal("the held SEND was never written")
	}
	gi, err := dana.resolveChannel("late")
	if err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	envs, err := dana.fetchAll(ctx, wire.ID(gi.Policy.Group), 0)
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	commits := 0
	for _, se := range envs {
		if joinCommit([]wire.Envelope{se.Envelope}) {
			commits++
		}
	}
	if commits != 1 {
		t.Errorf("sam made %d commits into #late; one join is one commit", commits)
	}
}
