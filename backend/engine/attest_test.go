package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"weald/backend/roster"
	"weald/backend/wire"
)

// hideTail makes the hostile relay serve group only up to seq head to
// everybody from now on, reporting head as the group's head (a lower head,
// not a gap: the withholding that the gap check cannot see).
func hideTail(h interface {
	Withhold(func(wire.ID, *wire.SeqEnvelope) bool)
	Cover(func(*wire.Envelopes))
}, group wire.ID, head uint64) {
	h.Withhold(func(g wire.ID, se *wire.SeqEnvelope) bool { return g == group && se.Seq > head })
	h.Cover(func(ans *wire.Envelopes) {
		if ans.Group == group {
			ans.HeadSeq, ans.Through, ans.More = min(ans.HeadSeq, head), min(ans.Through, head), false
		}
	})
}

// TestHostileRelaySplitViewIsDetected (spec/lifecycle.md "Detection",
// docs/security.md section 8's freshness limit): the relay serves Lee the
// newest message of #general (and the newest roster operation), then
// serves Sam a view that stops before them, reporting a lower head so
// that no gap shows. Lee's head attestation, read by Sam, says more
// exists: Sam's client raises relay/split_view naming Lee's device, for
// #general and for the roster. An honest relay raises nothing. On the main
// this started from no attestations were sent and Sam was never told.
func TestHostileRelaySplitViewIsDetected(t *testing.T) {
	t.Parallel()
	h, dana, sam, lee := hostileWorkspace(t, 120)
	ctx := testCtx(t)
	for _, e := range []*Engine{dana, sam, lee} {
		e.attestEvery = 0
	}
	general := channelGroup(t, dana, "general")
	// Honest: attestations go round and nobody is alerted.
	if _, err := dana.Send(ctx, "general", "one"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		for _, e := range []*Engine{lee, sam, dana} {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range []*Engine{dana, sam, lee} {
		if a := alertsWith(e, AlertSplitView); len(a) != 0 {
			t.Fatalf("%s raised split-view alerts with an honest relay: %+v", e.meta.Name, a)
		}
	}
	if n := len(alertsWith(sam, AlertSilence)); n != 0 {
		t.Fatalf("silence alerts with an honest relay: %d", n)
	}
	// Lee reads the newest message and roster operation and attests them.
	cur, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	shown := cur.HeadSeq
	rosterLen := sam.roster.Len()
	if _, err := dana.Send(ctx, "general", "two (hidden from Sam)"); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour) // one more roster operation
	if err != nil || link == "" {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(texts(t, lee, "general"), "two (hidden from Sam)") {
		t.Fatal("Lee did not read the newest message")
	}
	// Now Sam is shown the older view.
	hideTail(h, general, shown)
	samHead := wire.ID(sam.roster.Head())
	h.RewriteRoster(func(ops *wire.RosterOps) *wire.RosterOps {
		keep := max(rosterLen-int(ops.FirstIndex), 0)
		if keep < len(ops.Ops) {
			ops.Ops, ops.More = ops.Ops[:keep], false
		}
		ops.HeadIndex, ops.Head = uint64(rosterLen), samHead
		return ops
	})
	for i := 0; i < 2; i++ {
		if _, err := sam.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Contains(texts(t, sam, "general"), "two (hidden from Sam)") || sam.roster.Len() != rosterLen {
		t.Fatal("the relay did not hide the tail from Sam; the test proves nothing")
	}
	if n := len(withheldAlerts(sam, general)); n != 0 {
		t.Fatalf("the lower head showed as a gap: %d withheld alerts", n)
	}
	var onGeneral, onRoster bool
	for _, a := range alertsWith(sam, AlertSplitView) {
		if a.Actor != "dev_"+hexID(lee.devID).hex() {
			continue
		}
		onGeneral = onGeneral || (a.Group == hexID(general).hex() && strings.Contains(a.Message, "#general"))
		onRoster = onRoster || (a.Group == "" && strings.Contains(a.Message, "the roster"))
	}
	if !onGeneral || !onRoster {
		t.Fatalf("split view on #general %v, on the roster %v; Sam's alerts: %+v", onGeneral, onRoster, sam.Status().Alerts)
	}
}

// TestAttestationSilenceIsReported: the relay keeps the root group's tail
// from Sam (so Lee's newest attestations never reach him, with no gap)
// while Lee keeps writing in #general; past the silence interval Sam's
// client raises relay/attestation_silence naming Lee's device. (The
// interval is a day in the product; a nanosecond here.)
func TestAttestationSilenceIsReported(t *testing.T) {
	t.Parallel()
	h, dana, sam, lee := hostileWorkspace(t, 125)
	ctx := testCtx(t)
	for _, e := range []*Engine{dana, sam, lee} {
		e.attestEvery = 0
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(sam, AlertSilence)); n != 0 {
		t.Fatalf("silence alerts before anything was withheld: %d", n)
	}
	root := wire.ID(roster.RootGroupID(dana.wsID()))
	cur, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), root, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	hideTail(h, root, cur.HeadSeq)
	sam.silenceAfter = time.Nanosecond
	if _, err := lee.Send(ctx, "general", "still writing"); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil { // attests, into the hidden tail
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := alertsWith(sam, AlertSilence)
	if !slices.ContainsFunc(got, func(a Alert) bool { return a.Actor == "dev_"+hexID(lee.devID).hex() }) {
		t.Fatalf("no silence alert naming Lee's device: %+v", got)
	}
}
