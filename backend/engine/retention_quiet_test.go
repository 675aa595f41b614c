package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/retention"
	"weald/backend/wire"
)

// A text window removes expired text from a quiet channel too
// (docs/protocol/retention.md "What a text window removes"): #general
// holds one message of day 0 and nothing after it. The steward's cadence
// checkpoint of day 8 still holds day 0; on day 40, with no new message,
// the steward writes a checkpoint leaving day 0 out (and drops below the
// day-8 one, now a window old); on day 71 it drops below the day-40 one,
// whose anchor is then the only one. No envelope or snapshot on the relay
// carries day 0, a joiner does not read it, and lee's own copy keeps it.
// Before, the steward checkpointed and dropped only after new messages, so
// a quiet channel kept its expired text on the relay for good.
func TestQuietChannelLosesExpiredText(t *testing.T) {
	t.Parallel()
	onClockedRelays(t, func(t *testing.T, r *testRelay, clk *testClock, i int) {
		quietExpiry(t, r, clk, byte(180+10*i))
	})
}

func quietExpiry(t *testing.T, r *testRelay, clk *testClock, seed byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	open := func(name string, s byte, link string) *Engine {
		return clockedEngine(ctx, t, r, clk, name, s, link)
	}
	sync := func(e *Engine) {
		t.Helper()
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d := open("dana", seed, "")
	sync(d)
	lee := open("lee", seed+2, invite(t, d))
	sync(lee)
	sync(d)
	if _, err := d.Send(ctx, "general", oldText); err != nil {
		t.Fatal(err)
	}
	oldDay, _ := documents.DayOf(clk.now())
	sync(lee)
	clk.days(1)
	if _, err := d.SetRetention(ctx, "general", 30*retention.Day, 180*retention.Day, true); err != nil {
		t.Fatal(err)
	}
	clk.days(8) // the cadence checkpoint: day 0 is not expired yet
	sync(d)
	if cp := newestTrusted(t, d); cp.Partial || !slices.Contains(manifestDays(t, cp.Manifest), uint32(oldDay)) {
		t.Fatalf("the day-8 checkpoint: partial %v, days %v", cp.Partial, manifestDays(t, cp.Manifest))
	}
	clk.days(40) // no new message since day 0
	sync(d)
	cp40 := newestTrusted(t, d)
	if !cp40.Partial || slices.Contains(manifestDays(t, cp40.Manifest), uint32(oldDay)) {
		t.Fatalf("day 40 in a quiet channel: the newest checkpoint is of %s, partial %v, days %v", cp40.At, cp40.Partial, manifestDays(t, cp40.Manifest))
	}
	clk.days(71)
	sync(d)
	relayHoldsNoExpiredDay(t, r, d, wire.ID(channelGroup(t, d, "general")), cp40.Seq, oldDay, 1)
	if cp := newestTrusted(t, d); cp.Seq != cp40.Seq {
		t.Fatalf("day 71: a checkpoint with nothing to leave out was written (seq %d after %d)", cp.Seq, cp40.Seq)
	}

	sam := open("sam", seed+4, invite(t, d))
	sync(sam)
	if got := texts(t, sam, "general"); slices.Contains(got, oldText) {
		t.Fatalf("the joiner reads %q", got)
	}
	sync(lee)
	if got := texts(t, lee, "general"); !slices.Contains(got, oldText) {
		t.Fatalf("lee's own copy reads %q", got)
	}
	noRetentionAlerts(t, d, lee, sam)
}
