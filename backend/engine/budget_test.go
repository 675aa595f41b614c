package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/relay"
	"weald/backend/roster"
	"weald/backend/wire"
)

// spec/lifecycle.md "The workspace byte budget": a workspace filling its
// relay budget. Crossing 80 % notifies the admin once and makes the
// steward checkpoint #general then, ahead of the ceiling; at 100 % writes
// are refused; compact-now, unable to write a new checkpoint, drops below
// the one written ahead, which frees space, and writes resume.
func TestByteBudgetAt80And100Percent(t *testing.T) {
	t.Parallel()
	const budget = 60_000
	r := startRelayWith(t, relay.Config{MaxLogBytes: budget})
	clk := &testClock{t: time.Now()}
	opts := r.options(t, "dana", 152)
	opts.Clock = clk.now
	dana := createSynced(t, r, opts)
	ctx := testCtx(t)
	crossed := fillToCrossing(t, dana, clk)

	// On to the ceiling: a write is refused with quota/log_budget_exhausted.
	fillToCeiling(t, dana)
	clk.set(clk.now().Add(2 * time.Hour))
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	full, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if nearAlerts(dana) != 1 {
		t.Fatalf("%d storage/near_budget alerts after more syncs, want still 1", nearAlerts(dana))
	}

	// Compact-now at the ceiling drops below the checkpoint written ahead
	// (the real clock again: the relay judges the authorization by its own).
	clk.set(time.Time{})
	reps, err := dana.CompactAll(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	dropped := false
	for _, rep := range reps {
		if rep.Channel == "general" {
			dropped = rep.Dropped && rep.Envelopes > 0
			t.Logf("#general: %s (%d envelopes, %d bytes)", rep.Statement, rep.Envelopes, rep.Bytes)
		}
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !dropped || after.LogBytes >= full.LogBytes || after.NearBudget {
		t.Fatalf("compact-now at the ceiling: dropped %v, %d → %d bytes (%d %%)", dropped, full.LogBytes, after.LogBytes, after.Percent)
	}
	t.Logf("compact-now: %d → %d bytes (%d %% → %d %%)", full.LogBytes, after.LogBytes, full.Percent, after.Percent)
	if _, err := dana.Send(ctx, "general", "writes resume"); err != nil {
		t.Fatalf("after compact-now: %v", err)
	}
	if n := countPrefixed(t, dana, "general", "writes resume"); n != 1 {
		t.Fatalf("read back %d of the message sent after compact-now", n)
	}
	if n := countPrefixed(t, dana, "general", "message "); n != crossed {
		t.Fatalf("%d messages before the mark still readable, want %d", n, crossed)
	}
}

// fillToCrossing sends to #general until the steward (dana, its clock an
// hour further every 5 messages so that it reads STATS each round) has
// written its checkpoint ahead of the ceiling, and returns how many
// messages that took; it checks that this happened between 80 and 100 %
// with one storage/near_budget alert, and none before.
func fillToCrossing(t *testing.T, dana *Engine, clk *testClock) int {
	t.Helper()
	ctx := testCtx(t)
	trusted := func() int {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		gi, _ := dana.resolveChannel("general")
		return len(dana.groups[gi.Policy.Group].rec.Retention.Trusted)
	}
	// Below 80 %: no checkpoint, no alert. Each round the steward reads STATS
	// (an hour passes).
	crossed := -1
	var pct uint64
	for i := 0; i < 400 && crossed < 0; i++ {
		if _, err := dana.Send(ctx, "general", fmt.Sprintf("message %03d of a workspace filling its budget", i)); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if i%5 != 4 {
			continue
		}
		clk.set(clk.now().Add(time.Hour + time.Minute))
		if _, err := dana.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		st, err := dana.Storage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if trusted() > 0 {
			crossed, pct = i, st.Percent
			break
		}
		if st.NearBudget || nearAlerts(dana) != 0 {
			t.Fatalf("at %d %% the steward wrote no checkpoint (alerts %d)", st.Percent, nearAlerts(dana))
		}
	}
	if crossed < 0 || pct < 80 || pct >= 100 {
		t.Fatalf("the steward's checkpoint came after message %d at %d %%, want between 80 and 100 %%", crossed, pct)
	}
	t.Logf("crossed 80 %% after %d messages; with the checkpoint written ahead: %d %%", crossed+1, pct)
	if nearAlerts(dana) != 1 {
		t.Fatalf("%d storage/near_budget alerts at the crossing, want 1", nearAlerts(dana))
	}
	return crossed + 1
}

// nearAlerts counts e's storage/near_budget alerts.
func nearAlerts(e *Engine) int {
	n := 0
	for _, a := range e.Status().Alerts {
		if a.Code == "storage/near_budget" {
			n++
		}
	}
	return n
}

// fillToCeiling sends to #general until the relay refuses a write with
// quota/log_budget_exhausted.
func fillToCeiling(t *testing.T, e *Engine) {
	t.Helper()
	ctx := testCtx(t)
	var refused error
	for i := 0; i < 400 && refused == nil; i++ {
		_, refused = e.Send(ctx, "general", fmt.Sprintf("after the mark %03d", i))
	}
	if c, _ := errcode.Of(refused); c != wire.CodeLogBudgetExhausted {
		t.Fatalf("at the ceiling: %v", refused)
	}
}

// Compact-now at the ceiling in a workspace with two admins (issue 14):
// the relay refuses writes; dana's compact-now cannot write a new
// checkpoint and puts a destruction below the one written ahead to lee;
// lee's approval drops it, space is freed, writes resume, and both read
// every message from before the mark.
func TestTwoAdminsCompactNowAtTheCeiling(t *testing.T) {
	t.Parallel()
	const budget = 60_000
	r := startRelayWith(t, relay.Config{MaxLogBytes: budget})
	clk := &testClock{} // the real clock until the fill moves it on
	opts := r.options(t, "dana", 156)
	opts.Clock = clk.now
	ctx := testCtx(t)
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	lee := joinWith(t, r, invite(t, dana), "lee", 157)
	if err := dana.Promote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	crossed := fillToCrossing(t, dana, clk)
	fillToCeiling(t, dana)
	full, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}

	clk.set(time.Time{}) // the relay judges the authorization by its own clock
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dropped || rep.Pending == "" {
		t.Fatalf("one of two admins compacted at the ceiling: %+v", rep)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ps := lee.PendingRetentions()
	if len(ps) != 1 || !ps[0].Destroy || !ps[0].Approvable {
		t.Fatalf("lee's pending list at the ceiling: %+v", ps)
	}
	if _, err := lee.ApproveRetention(ctx, ps[0].ID); err != nil {
		t.Fatalf("lee's approval at the ceiling: %v", err)
	}
	after, err := lee.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.LogBytes >= full.LogBytes || after.NearBudget {
		t.Fatalf("the approved compact-now at the ceiling: %d → %d bytes (%d %%)", full.LogBytes, after.LogBytes, after.Percent)
	}
	t.Logf("approved compact-now at the ceiling: %d → %d bytes (%d %% → %d %%)", full.LogBytes, after.LogBytes, full.Percent, after.Percent)
	if _, err := dana.Send(ctx, "general", "writes resume"); err != nil {
		t.Fatalf("after compact-now: %v", err)
	}
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := countPrefixed(t, e, "general", "message "); n != crossed {
			t.Fatalf("%d messages before the mark readable, want %d", n, crossed)
		}
		if n := countPrefixed(t, e, "general", "writes resume"); n != 1 {
			t.Fatalf("read back %d of the message sent after compact-now", n)
		}
	}
}

// Compact-now close to the ceiling, with room under the budget for the
// fresh checkpoint but not for the standing bundles republished above it
// (what made the desktop's Compact now delete nothing once the checkpoint
// carried an index snapshot): the drop goes first, since it is what frees
// the space, and the bundles right after it, so the log falls and a person
// invited afterwards still joins #general and reads it. The budget is set
// from a probe: the same workspace (same seeds, same clock) on a relay
// without one, whose checkpoint and bundles are measured on their own, to
// fall halfway through the bundles.
func TestCompactNowWithoutRoomForTheBundles(t *testing.T) {
	t.Parallel()
	base := time.Now()
	fill := func(r *testRelay) (*Engine, uint64) {
		opts := r.options(t, "dana", 153)
		opts.Clock = func() time.Time { return base }
		dana := createSynced(t, r, opts)
		return dana, sendTwenty(t, dana)
	}

	probe, filled := fill(startRelay(t))
	budget := bundlesBudget(t, probe, filled)

	r := startRelayWith(t, relay.Config{MaxLogBytes: budget})
	dana, got := fill(r)
	if rep := compactAllGeneral(t, dana, got, filled); !(rep.Dropped && rep.Envelopes > 0) {
		t.Fatalf("#general was not compacted: %+v", rep)
	}
	after := usedBytes(t, dana)
	if after >= filled {
		t.Fatalf("compact-now: %d → %d bytes", got, after)
	}
	t.Logf("compact-now: %d → %d bytes of a %d-byte budget", got, after, budget)
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	g := dana.groups[gi.Policy.Group]
	owed, above := g.rec.BundleOwed, g.rec.Retention.Trusted[len(g.rec.Retention.Trusted)-1].BundlesAbove
	dana.mu.Unlock()
	if owed || !above {
		t.Fatalf("the bundles above the checkpoint: owed %v, published %v", owed, above)
	}
	samReadsGeneral(t, r, dana, 154)
}

// TestCompactNowWithoutRoomForTheBundles with two admins (issue 14): the
// drop waits for lee's approval, so dana's compact-now proposes it with
// the bundles still owed instead of being refused; lee's approval drops
// and republishes them above the checkpoint, and a person lee invites
// afterwards joins #general and reads it while dana stays away.
func TestTwoAdminsCompactNowWithoutRoomForTheBundles(t *testing.T) {
	t.Parallel()
	fill := func(r *testRelay) (*Engine, *Engine, uint64) {
		dana := createSynced(t, r, r.options(t, "dana", 163))
		ctx := testCtx(t)
		lee := joinWith(t, r, invite(t, dana), "lee", 164)
		if err := dana.Promote(ctx, lee.meta.User.hex()); err != nil {
			t.Fatal(err)
		}
		for _, e := range []*Engine{dana, lee} {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
		return dana, lee, sendTwenty(t, dana)
	}

	probe, _, filled := fill(startRelay(t))
	budget := bundlesBudget(t, probe, filled)

	r := startRelayWith(t, relay.Config{MaxLogBytes: budget})
	dana, lee, got := fill(r)
	if rep := compactAllGeneral(t, dana, got, filled); rep.Dropped || rep.Pending == "" {
		t.Fatalf("#general's compact-now was not put to lee: %+v", rep)
	}
	ctx := testCtx(t)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var id string
	for _, p := range lee.PendingRetentions() {
		if p.Destroy && p.Approvable {
			id = p.ID
		}
	}
	if id == "" {
		t.Fatalf("lee's pending list: %+v", lee.PendingRetentions())
	}
	if _, err := lee.ApproveRetention(ctx, id); err != nil {
		t.Fatalf("lee's approval: %v", err)
	}
	after := usedBytes(t, lee)
	if after >= filled {
		t.Fatalf("the approved compact-now: %d → %d bytes", got, after)
	}
	t.Logf("approved compact-now: %d → %d bytes of a %d-byte budget", got, after, budget)
	samReadsGeneral(t, r, lee, 165)
}

// usedBytes is the relay's log bytes as e reads them.
func usedBytes(t *testing.T, e *Engine) uint64 {
	st, err := e.Storage(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return st.LogBytes
}

// bundlesBudget measures, on probe (a relay without a budget), #general's
// fresh checkpoint and then its standing bundles, and returns a budget
// halfway through the bundles: room for the checkpoint, not for both.
func bundlesBudget(t *testing.T, probe *Engine, filled uint64) uint64 {
	locked := func(f func(g *group, gi *roster.GroupInfo) error) {
		probe.mu.Lock()
		defer probe.mu.Unlock()
		gi, err := probe.resolveChannel("general")
		if err != nil {
			t.Fatal(err)
		}
		if err := f(probe.groups[gi.Policy.Group], &gi); err != nil {
			t.Fatal(err)
		}
	}
	locked(func(g *group, gi *roster.GroupInfo) error {
		_, err := probe.writeCheckpoint(testCtx(t), g, gi, false)
		return err
	})
	checkpointed := usedBytes(t, probe)
	locked(func(g *group, gi *roster.GroupInfo) error { return probe.publishBundles(testCtx(t), g, &gi.Policy) })
	bundled := usedBytes(t, probe)
	budget := checkpointed + (bundled-checkpointed)/2
	t.Logf("probe: %d bytes filled, %d with the checkpoint, %d with the bundles: budget %d", filled, checkpointed, bundled, budget)
	return budget
}

// samReadsGeneral has inviter invite sam to #general after the drop and
// checks that sam joins and reads all 20 messages from before it.
func samReadsGeneral(t *testing.T, r *testRelay, inviter *Engine, seed byte) {
	ctx := testCtx(t)
	link, err := inviter.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", seed)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countPrefixed(t, sam, "general", "message "); n != 20 {
		t.Fatalf("sam, joining after the drop, reads %d of 20 messages", n)
	}
}

// Compact-now of every channel at the ceiling (issue 14): #activity and
// #late come before #general in the sidebar and have no checkpoint written
// ahead of the ceiling (#late was written after it), and no room for one;
// #general has one and its drop frees space. CompactAll tries the two
// again after that drop, and their history is dropped too, every message
// still readable. Before, both stayed refused.
func TestCompactAllRetriesAChannelOnceAnotherFreedSpace(t *testing.T) {
	t.Parallel()
	const budget = 120_000 // room for #late between the crossing (80-95 %) and the ceiling
	r := startRelayWith(t, relay.Config{MaxLogBytes: budget})
	clk := &testClock{t: time.Now()}
	opts := r.options(t, "dana", 157)
	opts.Clock = clk.now
	dana := createSynced(t, r, opts)
	ctx := testCtx(t)
	fillToCrossing(t, dana, clk)
	// The real clock again: the relay refuses roster operations dated
	// ahead of its own.
	clk.set(time.Time{})
	if _, err := dana.CreateChannel(ctx, "late", roster.AdmissionParent); err != nil {
		t.Fatal(err)
	}
	const lateN = 10
	for i := range lateN {
		// Long enough that #late's checkpoint does not fit in what the
		// ceiling leaves (#activity's compaction frees about 1.3 KB).
		if _, err := dana.Send(ctx, "late", fmt.Sprintf("late message %02d %s", i, strings.Repeat("long enough ", 33))); err != nil {
			t.Fatal(err)
		}
	}
	if err := dana.ReorderChannel(ctx, "general", 1000); err != nil {
		t.Fatal(err)
	}
	fillToCeiling(t, dana)

	reps, err := dana.CompactAll(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	got := map[string]CompactReport{}
	for _, rep := range reps {
		order = append(order, rep.Channel)
		got[rep.Channel] = rep
		t.Logf("#%s: %s (%d envelopes, %d bytes) %s", rep.Channel, rep.Statement, rep.Envelopes, rep.Bytes, rep.NotDue)
	}
	if len(order) < 3 || order[len(order)-1] != "general" {
		t.Fatalf("compacted in the order %v, want #general last", order)
	}
	for _, ch := range []string{"activity", "late", "general"} {
		if rep := got[ch]; !rep.Dropped || rep.Envelopes == 0 || rep.NotDue != "" {
			t.Fatalf("#%s after compact-now of every channel: %+v", ch, rep)
		}
	}
	if n := countPrefixed(t, dana, "late", "late message "); n != lateN {
		t.Fatalf("%d of #late's %d messages readable after the drop", n, lateN)
	}
	if _, err := dana.Send(ctx, "late", "writes resume"); err != nil {
		t.Fatalf("after compact-now: %v", err)
	}
}

// compactAllGeneral checks that e's workspace filled as many bytes as the
// probe's (got, filled), runs compact-now on every channel and returns
// #general's report.
func compactAllGeneral(t *testing.T, e *Engine, got, filled uint64) CompactReport {
	// The runs differ by a few bytes (varints of the relay's clock and
	// the like); the budget's margin either side is hundreds.
	if d := int64(got) - int64(filled); d < -64 || d > 64 {
		t.Fatalf("the workspace filled %d bytes, the probe %d: not the same run", got, filled)
	}
	reps, err := e.CompactAll(testCtx(t), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, rep := range reps {
		if rep.Channel == "general" {
			return rep
		}
	}
	t.Fatalf("no report for #general: %+v", reps)
	return CompactReport{}
}

// sendTwenty sends 20 messages to #general and returns the relay's log
// bytes after them.
func sendTwenty(t *testing.T, e *Engine) uint64 {
	for i := range 20 {
		if _, err := e.Send(testCtx(t), "general", fmt.Sprintf("message %02d before the ceiling", i)); err != nil {
			t.Fatal(err)
		}
	}
	return usedBytes(t, e)
}
