package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/internal/hostilerelay"
	"weald/backend/wire"
)

// chainAlerts returns e's alerts of code about group.
func chainAlerts(e *Engine, code errcode.Code, group wire.ID) []Alert {
	var out []Alert
	for _, a := range e.Status().Alerts {
		if a.Code == string(code) && a.Group == hexID(group).hex() {
			out = append(out, a)
		}
	}
	return out
}

// compactedHostile is a hostile relay's workspace whose #general dana
// compacted now (a checkpoint, everything below it dropped), with sam, a
// member throughout, and kim, who joined after the drop and so read
// #general from the checkpoint ("history verified from"). Nobody has a
// chain alert: the honest log after a drop continues every chain.
func compactedHostile(t *testing.T, seed byte) (h *hostilerelay.Relay, dana, sam, kim *Engine, general wire.ID) {
	t.Helper()
	h, dana, sam, _ = hostileWorkspace(t, seed)
	ctx := testCtx(t)
	general = channelGroup(t, dana, "general")
	for i := range 6 {
		for _, e := range []*Engine{dana, sam} {
			if _, err := e.Send(ctx, "general", fmt.Sprintf("before the drop %d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil || !rep.Dropped {
		t.Fatalf("compact-now: %+v %v", rep, err)
	}
	kim = joinWith(t, &testRelay{URL: h.URL, svc: h.Service}, invite(t, dana), "kim", seed+10)
	for _, e := range []*Engine{sam, kim} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if info, err := kim.Retention("general"); err != nil || info.VerifiedFrom.IsZero() {
		t.Fatalf("kim did not read #general from the checkpoint: %+v %v", info, err)
	}
	if n := countPrefixed(t, kim, "general", "before the drop"); n != 12 {
		t.Fatalf("kim reads %d of the 12 messages before the drop", n)
	}
	// sam too writes after the drop: his chain continues across it.
	if _, err := sam.Send(ctx, "general", "after the drop"); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, sam, kim} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for _, code := range []errcode.Code{AlertChainGap, AlertChainFork} {
			if a := chainAlerts(e, code, general); len(a) != 0 {
				t.Fatalf("%s alert on an honest log after the drop: %+v", code, a)
			}
		}
	}
	return h, dana, sam, kim, general
}

// spec/lifecycle.md "Checkpoints": clients verify author-chain continuity
// above the newest checkpoint they trust. Above #general's checkpoint the
// relay drops one of dana's messages and numbers the rest without a hole
// (no seq is missing, so the withheld-seq check has nothing to see), or
// serves in its place another envelope dana's device signed at the same
// place of its chain (a device signing twice). sam, who read the whole
// log, and kim, who read it from the checkpoint, each raise
// relay/chain_gap or relay/chain_fork naming dana's device. Without the
// chain check neither notices anything: the dropped message, and the one
// after it that waits on it, are simply never shown.
func TestHostileRelayDropsOrForksAChainAboveTheCheckpoint(t *testing.T) {
	t.Parallel()
	t.Run("drop", func(t *testing.T) {
		h, dana, sam, kim, general := compactedHostile(t, 170)
		ctx := testCtx(t)
		head, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		h.Erase(general, head.HeadSeq+2)
		for _, text := range []string{"one", "two (dropped)", "three"} {
			if _, err := dana.Send(ctx, "general", text); err != nil {
				t.Fatal(err)
			}
		}
		for name, e := range map[string]*Engine{"sam": sam, "kim": kim} {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			// "three" is a change after "two" in dana's document: it
			// waits for it, so both go unread.
			got := texts(t, e, "general")
			if !slices.Contains(got, "one") || slices.Contains(got, "two (dropped)") || slices.Contains(got, "three") {
				t.Fatalf("%s reads %q: the relay did not drop \"two\"", name, got)
			}
			if a := withheldAlerts(e, general); len(a) != 0 {
				t.Fatalf("%s: a seq is missing after all: %+v", name, a)
			}
			gaps := chainAlerts(e, AlertChainGap, general)
			if len(gaps) != 1 || gaps[0].Actor != identity.DeviceID(dana.devID).String() || !strings.Contains(gaps[0].Message, "envelope ") {
				t.Fatalf("%s's relay/chain_gap alerts: %+v (all %+v)", name, gaps, e.Status().Alerts)
			}
			t.Logf("%s: %s", name, gaps[0].Message)
		}
	})
	t.Run("fork", func(t *testing.T) {
		h, dana, sam, kim, general := compactedHostile(t, 180)
		ctx := testCtx(t)
		head, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		forked := head.HeadSeq + 1
		h.Substitute(func(g wire.ID, se *wire.SeqEnvelope) {
			if g != general || se.Seq != forked {
				return
			}
			// Another envelope at the same place of dana's chain, signed by
			// her device: same ctr and prev, other bytes.
			se.Envelope.CT = append([]byte(nil), se.Envelope.CT...)
			se.Envelope.CT[len(se.Envelope.CT)-1] ^= 1
			wire.SignEnvelope(&se.Envelope, dana.edKey)
		})
		for _, text := range []string{"four (forked)", "five"} {
			if _, err := dana.Send(ctx, "general", text); err != nil {
				t.Fatal(err)
			}
		}
		for name, e := range map[string]*Engine{"sam": sam, "kim": kim} {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			forks := chainAlerts(e, AlertChainFork, general)
			if len(forks) != 1 || forks[0].Actor != identity.DeviceID(dana.devID).String() {
				t.Fatalf("%s's relay/chain_fork alerts: %+v (all %+v)", name, forks, e.Status().Alerts)
			}
			t.Logf("%s: %s", name, forks[0].Message)
		}
	})
}
