package engine

import (
	"testing"

	"weald/backend/wire"
)

// A member that reads a channel's log before the root's meets a newcomer's
// self-join whose joiner it does not see in the root yet. Judged on that
// stale view, the join was "forged": the member evicted a legitimate
// newcomer and told the admins of a forged join (a race test met it).
// The root is read again before a join is refused for that reason.
func TestJoinerSeenBeforeItsRootJoinIsNotEvicted(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 143)
	sam := inviteAndJoin(t, r, dana, "sam", 144) // root, then #general
	// Dana reads #general alone, before the root.
	dana.mu.Lock()
	gi, err := dana.resolveChannel("general")
	if err == nil {
		err = dana.catchUp(ctx, dana.groups[gi.Policy.Group])
	}
	var forged []Alert
	for _, a := range dana.alerts {
		if a.Code == "join/forged" {
			forged = append(forged, a)
		}
	}
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(forged) > 0 {
		t.Errorf("dana was told of a forged join: %+v", forged)
	}
	if _, err := dana.Send(ctx, "general", "welcome, sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ms, err := sam.Messages(ctx, "general", 0); err != nil || len(ms) != 1 || ms[0].Text != "welcome, sam" {
		t.Errorf("sam reads #general: %+v %v", ms, err)
	}
	if n := countCommits(t, dana, "general", func(env wire.Envelope) bool {
		return env.Kind == wire.KindMLSCommit && env.Author == wire.ID(sam.devID)
	}); n != 1 {
		t.Errorf("sam made %d commits into #general; one join is one commit", n)
	}
}
