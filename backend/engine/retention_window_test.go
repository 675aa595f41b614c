package engine

import (
	"context"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/store/storetest"
)

// spec/lifecycle.md "Checkpoints" and "Dropping": a drop deletes only what
// its checkpoint captures. A member's message that reaches the relay after
// the checkpoint writer read the log, and before the checkpoint arrives,
// sits below the checkpoint's seq but is in no snapshot; the relay keeps
// it, and a joiner after the drop reads it with the rest. (Before the
// relay dropped by seq alone, it was deleted and no joiner ever read it.)
func TestDropKeepsMessagesSentWhileTheCheckpointWasWritten(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { dropWindowProof(t, startRelay(t), 160) })
	t.Run("postgres", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: starts a PostgreSQL cluster (make test runs it)")
		}
		st := storetest.Postgres(t) // closed after the relay has stopped
		rt := relaytest.StartOn(t, relay.Config{}, st)
		dropWindowProof(t, &testRelay{URL: rt.URL, svc: rt.Service}, 170)
	})
}

func dropWindowProof(t *testing.T, r *testRelay, seed byte) {
	const n = 60
	dana, _ := historyWorkspace(t, r, n, 6, seed)
	sam := joinWith(t, r, invite(t, dana), "sam", seed+1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := sam.Send(ctx, "general", "before the checkpoint"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// Sam writes while dana's checkpoint is being written: after dana read
	// the log for its barrier, before its snapshots and checkpoint are sent.
	sent := 0
	dana.tamper = func(stage string, _ *checkpointDraft) {
		if stage != "snapshots" || sent > 0 {
			return
		}
		sent++
		if _, err := sam.Send(ctx, "general", "while the checkpoint is written"); err != nil {
			t.Errorf("sam's send during the checkpoint: %v", err)
		}
	}
	rep, err := dana.Compact(ctx, "general", true)
	dana.tamper = nil
	if err != nil {
		t.Fatal(err)
	}
	if sent != 1 || !rep.Dropped {
		t.Fatalf("compaction: sent during it %d, report %+v", sent, rep)
	}
	lee := joinWith(t, r, invite(t, dana), "lee", seed+2)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := countPrefixed(t, lee, "general", "m"); got != n {
		t.Fatalf("the joiner reads %d of dana's %d messages", got, n)
	}
	for _, text := range []string{"before the checkpoint", "while the checkpoint is written"} {
		if countPrefixed(t, lee, "general", text) != 1 {
			t.Errorf("the joiner after the drop does not read sam's %q", text)
		}
	}
	for _, a := range lee.Status().Alerts {
		t.Errorf("alert at the joiner: %+v", a)
	}
	// Sam's chain continues across the drop for the joiner.
	if _, err := sam.Send(ctx, "general", "after the drop"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, lee, "general", "after the drop")
	for _, a := range lee.Status().Alerts {
		t.Errorf("alert at the joiner after sam wrote again: %+v", a)
	}
}
