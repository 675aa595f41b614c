package engine

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"
	"testing"

	"weald/backend/identity"
	"weald/backend/internal/hostilerelay"
	"weald/backend/wire"
)

// Attacks of issue 11 "withheld envelopes", from the attacker's side: a
// relay leaves an envelope out of a FETCH, alone or covered by a deletion
// it never made. docs/security.md section 8 lists them.

// channelGroup returns the group id of channel name as e sees it.
func channelGroup(t *testing.T, e *Engine, name string) wire.ID {
	t.Helper()
	for _, c := range e.Channels() {
		if c.Name == name {
			return wire.ID(mustHex(t, c.Group))
		}
	}
	t.Fatalf("no channel %q", name)
	return wire.ID{}
}

// texts returns the texts of e's messages in channel, oldest first.
func texts(t *testing.T, e *Engine, channel string) []string {
	t.Helper()
	ms, err := e.Messages(testCtx(t), channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// withheldAlerts returns e's relay/withheld alerts for group.
func withheldAlerts(e *Engine, group wire.ID) []Alert {
	var out []Alert
	for _, a := range e.Status().Alerts {
		if a.Code == "relay/withheld" && a.Group == hexID(group).hex() {
			out = append(out, a)
		}
	}
	return out
}

// withholdOne makes dana send three messages to #general and the relay
// withhold the middle one from every fetch; it returns its seq.
func withholdOne(t *testing.T, h *hostilerelay.Relay, dana *Engine, general wire.ID) uint64 {
	t.Helper()
	ctx := testCtx(t)
	head, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	hidden := head.HeadSeq + 2
	h.Withhold(func(g wire.ID, se *wire.SeqEnvelope) bool { return g == general && se.Seq == hidden })
	for _, text := range []string{"one", "two (withheld)", "three"} {
		if _, err := dana.Send(ctx, "general", text); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := h.Service.Fetch(ctx, wire.ID(dana.wsID()), general, hidden-1, 1); err != nil || len(got.Envelopes) != 1 ||
		got.Envelopes[0].Seq != hidden || got.Envelopes[0].Envelope.Kind != wire.KindContent {
		t.Fatalf("seq %d is not dana's second message: %+v %v", hidden, got, err)
	}
	return hidden
}

// TestHostileRelayWithheldEnvelopeIsNotSkipped: the relay leaves one
// message of #general out of every fetch and push. Sam's client reads
// what comes before it, raises relay/withheld naming #general and the
// seq, and reads nothing past it (its cursor stays before the gap); once
// the relay serves the envelope, the next sync reads it and what follows.
// On the main this started from, Sam's cursor moved past the withheld seq
// with no alert, and once the relay was honest he still read only "one":
// "two" was lost for good, and "three", which follows it, never showed.
func TestHostileRelayWithheldEnvelopeIsNotSkipped(t *testing.T) {
	t.Parallel()
	h, dana, sam, _ := hostileWorkspace(t, 90)
	ctx := testCtx(t)
	general := channelGroup(t, dana, "general")
	hidden := withholdOne(t, h, dana, general)

	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := texts(t, sam, "general")
	if slices.Contains(got, "three") || slices.Contains(got, "two (withheld)") || !slices.Contains(got, "one") {
		t.Fatalf("with seq %d withheld Sam reads %q; want \"one\" and nothing after the gap", hidden, got)
	}
	alerts := withheldAlerts(sam, general)
	if len(alerts) != 1 || !strings.Contains(alerts[0].Message, fmt.Sprintf("envelope %d ", hidden)) {
		t.Fatalf("relay/withheld alerts for #general: %+v (all: %+v)", alerts, sam.Status().Alerts)
	}
	if g := sam.groups[identity.GroupID(general)]; g.rec.LastSeq >= hidden {
		t.Fatalf("Sam's cursor is %d, past the withheld seq %d", g.rec.LastSeq, hidden)
	}
	// The next sync asks again (the relay still withholds: one alert, not two).
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(withheldAlerts(sam, general)); n != 1 {
		t.Fatalf("%d withheld alerts after a second sync, want 1", n)
	}

	h.Withhold(nil)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got = texts(t, sam, "general")
	i, j := slices.Index(got, "two (withheld)"), slices.Index(got, "three")
	if i < 0 || j < i {
		t.Fatalf("once the relay is honest Sam reads %q; want \"two (withheld)\" then \"three\"", got)
	}
}

// TestHostileRelayFakeDeletionIsRefused: the relay withholds a message and
// explains the gap with a deletion it never made: a tombstone naming a
// WRAPS_DELETE signed by a key of its own, a tombstone naming no
// instruction, or a drop barrier above the seq with no checkpoint at the
// barrier. Sam's client accepts none of them: it alerts and does not skip.
// On the main this started from the gap was skipped without any cover.
func TestHostileRelayFakeDeletionIsRefused(t *testing.T) {
	t.Parallel()
	relayKey := ed25519.NewKeyFromSeed(make([]byte, 32))
	covers := map[string]func(ws wire.ID, hidden uint64) func(*wire.Envelopes){
		"tombstone signed by the relay": func(ws wire.ID, hidden uint64) func(*wire.Envelopes) {
			return func(ans *wire.Envelopes) {
				d := wire.WrapsDelete{Workspace: ws, Group: ans.Group, Tags: []wire.ID{{7}}}
				d.Sign(relayKey)
				ans.Deletions = append(ans.Deletions, d)
				ans.Deleted = append(ans.Deleted, wire.Tombstone{Seq: hidden, Tag: wire.ID{7}, Deletion: uint16(len(ans.Deletions) - 1)})
			}
		},
		"tombstone without instruction": func(_ wire.ID, hidden uint64) func(*wire.Envelopes) {
			return func(ans *wire.Envelopes) {
				ans.Deleted = append(ans.Deleted, wire.Tombstone{Seq: hidden, Tag: wire.ID{7}, Deletion: 9})
			}
		},
		"barrier without checkpoint": func(_ wire.ID, hidden uint64) func(*wire.Envelopes) {
			return func(ans *wire.Envelopes) { ans.DroppedBelow = hidden + 1 }
		},
	}
	for name, cover := range covers {
		t.Run(name, func(t *testing.T) {
			h, dana, sam, _ := hostileWorkspace(t, 100)
			ctx := testCtx(t)
			general := channelGroup(t, dana, "general")
			hidden := withholdOne(t, h, dana, general)
			h.Cover(cover(wire.ID(dana.wsID()), hidden))
			if _, err := sam.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got := texts(t, sam, "general"); slices.Contains(got, "three") {
				t.Fatalf("Sam read past withheld seq %d covered by a %s: %q", hidden, name, got)
			}
			if len(withheldAlerts(sam, general)) != 1 {
				t.Fatalf("no relay/withheld alert for a %s: %+v", name, sam.Status().Alerts)
			}
			h.Withhold(nil)
			h.Cover(nil)
			if _, err := sam.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if got := texts(t, sam, "general"); !slices.Contains(got, "two (withheld)") || !slices.Contains(got, "three") {
				t.Fatalf("once the relay is honest Sam reads %q", got)
			}
		})
	}
}

// TestDeletedWrapsAreReadPast: the recovery wraps a removal deletes leave
// tombstones naming the admin's signed WRAPS_DELETE, so a member reading
// the whole log of #general afterwards accounts for every seq up to the
// head and raises no alert.
func TestDeletedWrapsAreReadPast(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 130)
	sam, sam2, lee := removalScene(t, r, dana, 131)
	general := wire.ID(mustHex(t, chanID(t, dana, "general")))
	if wrapsBy(t, dana, hexID(general).hex(), sam, sam2) == 0 {
		t.Fatal("sam's devices sent no recovery wrap to #general: nothing to delete")
	}
	if _, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	head, err := r.svc.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.svc.Fetch(ctx, wire.ID(dana.wsID()), general, 0, 4096)
	if err != nil || len(all.Deleted) == 0 {
		t.Fatalf("the relay reports no tombstone after the removal: %+v %v", all, err)
	}
	lee.mu.Lock()
	_, through, err := lee.fetchThrough(ctx, general, 0)
	lee.mu.Unlock()
	if err != nil || through != head.HeadSeq {
		t.Fatalf("lee's read of #general accounts up to %d of %d (%v)", through, head.HeadSeq, err)
	}
	if a := withheldAlerts(lee, general); len(a) != 0 {
		t.Fatalf("alerts for legitimately deleted wraps: %+v", a)
	}
}
