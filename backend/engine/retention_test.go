package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/internal/racetest"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/store/storetest"
	"weald/backend/retention"
)

// testClock is a settable clock shared by an engine and a test.
type testClock struct {
	mu    sync.Mutex
	t     time.Time
	shift time.Duration
}

// now returns the set time, or once set to zero the real time moved on by
// the shift (days).
func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		return time.Now().Add(c.shift)
	}
	return c.t
}
func (c *testClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// days moves a running clock n days on from the real time.
func (c *testClock) days(n int) {
	c.mu.Lock()
	c.shift = time.Duration(n) * 24 * time.Hour
	c.mu.Unlock()
}

// historyWorkspace creates a workspace whose #general holds n messages
// posted over days days, ending now (the relay's clock is the real one):
// four times a day, the messages of those six hours in one SendMany (each
// still its own change and envelope, a millisecond after the one before).
func historyWorkspace(t testing.TB, r *testRelay, n, days int, seed byte) (*Engine, *testClock) {
	t.Helper()
	end := time.Now()
	clk := &testClock{t: end.Add(-time.Duration(days) * 24 * time.Hour)}
	opts := r.options(t, "dana", seed)
	opts.Clock = clk.now
	dana, err := CreateWorkspace(testCtx(t), opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	start := clk.now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ticks := min(n, 4*days)
	for i, j := 0, 0; j < ticks; j++ {
		clk.set(start.Add(time.Duration(j) * (end.Sub(start) / time.Duration(ticks))))
		var texts []string
		for ; i < (j+1)*n/ticks; i++ {
			texts = append(texts, fmt.Sprintf("m%05d", i))
		}
		if ms, err := dana.SendMany(ctx, "general", texts); err != nil || len(ms) != len(texts) {
			t.Fatalf("messages %s…: %d sent: %v", texts[0], len(ms), err)
		}
	}
	clk.set(time.Time{}) // the real clock from now on
	return dana, clk
}

func countPrefixed(t testing.TB, e *Engine, channel, prefix string) int {
	t.Helper()
	ms, err := e.Messages(testCtx(t), channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range ms {
		if strings.HasPrefix(m.Text, prefix) {
			n++
		}
	}
	return n
}

// spec/lifecycle.md "Checkpoints", "Dropping", "Interaction with open
// history": a channel with a month of messages is checkpointed and
// compacted; the relay's envelope count and bytes fall, and a member who
// joins afterwards reads every message from the snapshot, with "history
// verified from" the checkpoint.
//
// 10,000 messages (sent in batches, SendMany) add nothing under the race
// detector but minutes of instrumented work; there it runs at 600 (as
// under -short), and make test runs the full size without -race
// (racetest).
func TestCompactionDropsAndJoinerReadsFromSnapshot(t *testing.T) {
	t.Parallel()
	n := 10000
	if testing.Short() || racetest.Enabled {
		n = 600
	}
	compactionProof(t, startRelay(t), n, 140)
}

func compactionProof(t *testing.T, r *testRelay, n int, seed byte) {
	dana, _ := historyWorkspace(t, r, n, 30, seed)
	// A joiner reads n messages from the snapshots and indexes them: more
	// than testCtx's minute on a loaded machine at n = 10,000.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Dropped || rep.Documents < 30 || rep.Changes != n {
		t.Fatalf("compaction: %+v", rep)
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d messages, %d shards: relay envelopes %d → %d, bytes %d → %d; %s", n, rep.Documents,
		before.Envelopes, after.Envelopes, before.LogBytes, after.LogBytes, rep.Statement)
	if after.Envelopes >= before.Envelopes-uint64(n)/2 || after.LogBytes >= before.LogBytes {
		t.Fatalf("the relay holds %d envelopes / %d bytes after compaction, %d / %d before", after.Envelopes, after.LogBytes, before.Envelopes, before.LogBytes)
	}
	sam := joinWith(t, r, invite(t, dana), "sam", seed+1)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := countPrefixed(t, sam, "general", "m"); got != n {
		t.Fatalf("the joiner reads %d of %d messages", got, n)
	}
	info, err := sam.Retention("general")
	if err != nil {
		t.Fatal(err)
	}
	if info.VerifiedFrom.IsZero() || info.DroppedBelow == 0 {
		t.Fatalf("the joiner's retention view: %+v", info)
	}
	// Writing continues across the drop, for both.
	if _, err := sam.Send(ctx, "general", "after the drop"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, dana, "general", "after the drop")
	// A second compaction writes its checkpoint over the first one's
	// snapshots and verifies at the new joiner.
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	lee := joinWith(t, r, invite(t, dana), "lee", seed+2)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := countPrefixed(t, lee, "general", "m"); got != n {
		t.Fatalf("the second joiner reads %d of %d messages", got, n)
	}
	for _, e := range []*Engine{dana, sam, lee} {
		for _, a := range e.Status().Alerts {
			if strings.HasPrefix(a.Code, "retention/") {
				t.Fatalf("alert at %s: %+v", e.DeviceID().ShortString(), a)
			}
		}
	}
}

func codeOf(err error) string {
	c, _ := errcode.Of(err)
	return string(c)
}

// The same proof on a PostgreSQL relay (spec/lifecycle.md "The workspace
// byte budget": the counter is a trigger on either engine's envelope table),
// at the full size but under the race detector (1,000 there).
func TestCompactionOnPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL cluster (make test runs it)")
	}
	n := 10000
	if racetest.Enabled {
		n = 1000
	}
	st := storetest.Postgres(t) // closed after the relay has stopped
	rt := relaytest.StartOn(t, relay.Config{}, st)
	compactionProof(t, &testRelay{URL: rt.URL, svc: rt.Service}, n, 150)
}

// spec/lifecycle.md "Dropping": the steward emits a checkpoint per group
// every 512 changes or 7 days, whichever first, at the end of a sync; a
// member holding the whole history verifies it without an alert.
func TestStewardCheckpointsEvery512ChangesOr7Days(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana, clk := historyWorkspace(t, r, 20, 1, 180)
	sam := joinWith(t, r, invite(t, dana), "sam", 181)
	// 512 sends and their syncs: more than testCtx's minute under -race on
	// a loaded machine (it ran out at sam's sync at load about 20).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	checkpoints := func(e *Engine) int {
		t.Helper()
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		info, err := e.Retention("general")
		if err != nil {
			t.Fatal(err)
		}
		return info.Checkpoints
	}
	if n := checkpoints(dana); n != 0 {
		t.Fatalf("20 changes within a day: %d checkpoints", n)
	}
	clk.set(time.Now().Add(8 * 24 * time.Hour))
	if n := checkpoints(dana); n != 1 {
		t.Fatalf("after 7 days: %d checkpoints, want 1", n)
	}
	if n := checkpoints(dana); n != 1 {
		t.Fatalf("nothing new: %d checkpoints, want still 1", n)
	}
	for i := 0; i < retention.CheckpointChanges; i++ {
		if _, err := dana.Send(ctx, "general", fmt.Sprintf("n%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := checkpoints(dana); n != 2 {
		t.Fatalf("after 512 changes: %d checkpoints, want 2", n)
	}
	if n := checkpoints(sam); n != 2 {
		t.Fatalf("sam trusts %d of the steward's checkpoints", n)
	}
	for _, e := range []*Engine{dana, sam} {
		for _, a := range e.Status().Alerts {
			if strings.HasPrefix(a.Code, "retention/") {
				t.Fatalf("alert: %+v", a)
			}
		}
	}
}

// The steward of #general (Dana, leaf 0) is away. Sam holds the channel's
// full history (an open channel) and stands in once the checkpoint is a
// whole cadence overdue: not at 8 days, at 15; once, not at every sync;
// Dana, back, trusts it and writes no second one (docs/protocol/
// retention.md "The steward"). Before the stand-in, a channel whose
// steward stayed away was never checkpointed, so never compacted.
func TestStandInStewardWhenTheStewardIsAway(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana, clk := historyWorkspace(t, r, 20, 1, 186)
	ctx := testCtx(t)
	opts := r.options(t, "sam", 187)
	opts.Clock = clk.now
	sam, err := Join(ctx, opts, invite(t, dana))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.SendMany(ctx, "general", []string{"one", "two", "three"}); err != nil {
		t.Fatal(err)
	}
	checkpoints := func(e *Engine) int {
		t.Helper()
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		info, err := e.Retention("general")
		if err != nil {
			t.Fatal(err)
		}
		return info.Checkpoints
	}
	start := time.Now()
	clk.set(start.Add(8 * 24 * time.Hour))
	if n := checkpoints(sam); n != 0 {
		t.Fatalf("8 days on, the steward's turn: sam wrote %d checkpoints", n)
	}
	clk.set(start.Add(15 * 24 * time.Hour))
	if n := checkpoints(sam); n != 1 {
		t.Fatalf("15 days on with the steward away: %d checkpoints, want sam's 1", n)
	}
	if _, err := sam.Send(ctx, "general", "four"); err != nil {
		t.Fatal(err)
	}
	if n := checkpoints(sam); n != 1 {
		t.Fatalf("sam stood in again at once: %d checkpoints", n)
	}
	if n := checkpoints(dana); n != 1 {
		t.Fatalf("dana, back, has %d checkpoints, want sam's 1", n)
	}
	if ms, err := dana.Messages(ctx, "general", 0); err != nil || ms[len(ms)-1].Text != "four" {
		t.Fatalf("dana reads %v, %v", len(ms), err)
	}
	for _, e := range []*Engine{dana, sam} {
		for _, a := range e.Status().Alerts {
			if strings.HasPrefix(a.Code, "retention/") {
				t.Fatalf("alert: %+v", a)
			}
		}
	}
}
