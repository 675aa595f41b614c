package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/store/storetest"
	"weald/backend/wire"
)

// spec/lifecycle.md "Checkpoints" and "Dropping": a drop deletes only what
// its checkpoint captures. A member's message that reaches the relay after
// the checkpoint writer read the log, and before the checkpoint arrives,
// sits below the checkpoint's seq but is in no snapshot; the relay keeps
// it, and a joiner after the drop reads it with the rest. (Before the
// relay dropped by seq alone, it was deleted and no joiner ever read it.)
func TestDropKeepsMessagesSentWhileTheCheckpointWasWritten(t *testing.T) {
	t.Parallel()
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

// Written from a hostile relay's side: the drop kept two messages sam sent
// while dana's checkpoint was written, and the relay hides the first of
// them from everybody, pointing at the drop (its seq is below the barrier,
// where missing seqs are the drop's, so no relay/withheld). kim, joining
// after the drop, raises relay/chain_gap naming sam's device: below the
// barrier, what the drop kept must continue sam's chain from his barrier
// entry. Without that check kim saw nothing wrong, and sam's second
// message (which waits on the first) was simply never shown.
func TestHostileRelayHidesAMessageTheDropKept(t *testing.T) {
	t.Parallel()
	h, dana, sam, _ := hostileWorkspace(t, 190)
	ctx := testCtx(t)
	general := channelGroup(t, dana, "general")
	for i := range 3 {
		for _, e := range []*Engine{dana, sam} {
			if _, err := e.Send(ctx, "general", fmt.Sprintf("before the drop %d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var hidden uint64
	dana.tamper = func(stage string, _ *checkpointDraft) {
		if stage != "snapshots" || hidden != 0 {
			return
		}
		head, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
		if err != nil {
			t.Error(err)
			return
		}
		hidden = head.HeadSeq + 1
		for _, text := range []string{"window one (hidden)", "window two"} {
			if _, err := sam.Send(ctx, "general", text); err != nil {
				t.Error(err)
			}
		}
	}
	rep, err := dana.Compact(ctx, "general", true)
	dana.tamper = nil
	if err != nil || !rep.Dropped || hidden == 0 {
		t.Fatalf("compact-now: %+v %v (hidden seq %d)", rep, err, hidden)
	}
	h.Withhold(func(g wire.ID, se *wire.SeqEnvelope) bool { return g == general && se.Seq == hidden })
	kim := joinWith(t, &testRelay{URL: h.URL, svc: h.Service}, invite(t, dana), "kim", 200)
	if _, err := kim.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := texts(t, kim, "general")
	if slices.Contains(got, "window one (hidden)") || slices.Contains(got, "window two") {
		t.Fatalf("kim reads %q: the relay did not hide sam's first window message", got)
	}
	if a := withheldAlerts(kim, general); len(a) != 0 {
		t.Fatalf("kim: a missing seq was not the drop's after all: %+v", a)
	}
	gaps := chainAlerts(kim, AlertChainGap, general)
	if len(gaps) != 1 || gaps[0].Actor != identity.DeviceID(sam.devID).String() {
		t.Fatalf("kim's relay/chain_gap alerts: %+v (all %+v)", gaps, kim.Status().Alerts)
	}
	t.Logf("kim: %s", gaps[0].Message)
	// Honest again: a joiner reads both, with no alert.
	h.Withhold(nil)
	lee := joinWith(t, &testRelay{URL: h.URL, svc: h.Service}, invite(t, dana), "lee", 210)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, lee, "general"); !slices.Contains(got, "window one (hidden)") || !slices.Contains(got, "window two") {
		t.Fatalf("lee reads %q on the honest log", got)
	}
	for _, a := range lee.Status().Alerts {
		if strings.HasPrefix(a.Code, "relay/") || strings.HasPrefix(a.Code, "retention/") {
			t.Fatalf("alert at lee on the honest log: %+v", a)
		}
	}
}
