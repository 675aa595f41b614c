package engine

import (
	"testing"

	"weald/backend/identity"
	"weald/backend/wire"
)

// A GroupInfo bundle newest in a channel's log but behind its epoch (a
// newcomer's root commit re-sealed #general from what it read just before a
// member's join landed; CI met it) once left every later self-joiner
// committing on it, losing and committing again until the hourly limit:
// nobody republished, because the members read the stale bundle's root
// epoch as current. Now a joiner builds on the bundle of the highest epoch
// it can open, commits nothing on one the log shows stale, and a member's
// next sync republishes.
func TestStaleNewestBundleIsRepaired(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 140)
	if _, err := dana.Send(ctx, "general", "welcome"); err != nil {
		t.Fatal(err)
	}
	gi, err := dana.resolveChannel("general")
	if err != nil {
		t.Fatal(err)
	}
	id := gi.Policy.Group
	dana.mu.Lock()
	old, err := dana.latestBundles(ctx, id) // #general at epoch 0
	dana.mu.Unlock()
	if err != nil || old.info == nil || old.info.epoch != 0 {
		t.Fatalf("latest bundles: %+v %v", old, err)
	}
	inviteAndJoin(t, r, dana, "sam", 141) // #general goes to epoch 1
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	// The late re-seal lands after Sam's bundles of epoch 1. Lee joins
	// with no member syncing in between: from Sam's bundles, one commit.
	republishStale(t, dana, id, old)
	lee := inviteAndJoin(t, r, dana, "lee", 142)
	if ms, err := lee.Messages(ctx, "general", 0); err != nil || len(ms) != 1 || ms[0].Text != "welcome" {
		t.Errorf("lee reads #general after joining: %+v %v", ms, err)
	}
	leeJoins := func(env wire.Envelope) bool {
		return env.Kind == wire.KindMLSCommit && env.Author == wire.ID(lee.devID)
	}
	if n := countCommits(t, dana, "general", leeJoins); n != 1 {
		t.Errorf("lee made %d commits into #general; one join is one commit", n)
	}

	// Stale again, newest: a member's next sync republishes the current one.
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	republishStale(t, dana, id, old)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	defer dana.mu.Unlock()
	latest, err := dana.latestBundles(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := dana.groups[id].mls.Epoch(); latest.info.epoch != want || !latest.current() {
		t.Errorf("the newest GroupInfo of #general after a member's sync is of epoch %d, the group's is %d", latest.info.epoch, want)
	}
}

// republishStale has dana publish old's bundles, sealed under the current
// root epoch, into group id.
func republishStale(t *testing.T, dana *Engine, id identity.GroupID, old *bundles) {
	t.Helper()
	ctx := testCtx(t)
	dana.mu.Lock()
	defer dana.mu.Unlock()
	epoch, secret, _ := dana.currentEnrol()
	for _, b := range []*openedBundle{old.info, old.history} {
		if err := dana.reseal(ctx, dana.groups[id], b, epoch, secret); err != nil {
			t.Fatal(err)
		}
	}
}
