package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"weald/backend/health"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

func healthRuns(t *testing.T, e *Engine) int {
	t.Helper()
	var n int
	if err := e.db.view(testCtx(t), func(tx *store.Tx) error {
		runs, err := tx.HealthRuns(1000)
		n = len(runs)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func runHealth(t *testing.T, e *Engine) *health.Report {
	t.Helper()
	r, err := e.RunHealth(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// finding returns check id's finding of r, failing the test with the whole
// report when its state is not want.
func finding(t *testing.T, r *health.Report, id health.ID, want health.State) health.Finding {
	t.Helper()
	f, ok := r.Finding(id)
	if !ok || f.State != want {
		t.Fatalf("%s: %s %q, want %s (report %+v)", id, f.State, f.Finding, want, r.Findings)
	}
	return f
}

// spec/lifecycle.md "Ongoing health": the check runs at the end of the
// first sync, again only once the last run is 7 days old, and on demand;
// each run is kept.
func TestHealthRunsWeeklyAndOnDemand(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	clk := &testClock{t: time.Now()}
	opts := r.options(t, "dana", 140)
	opts.Clock = clk.now
	var events []EventKind
	opts.OnEvent = func(ev Event) { events = append(events, ev.Kind) }
	dana, err := CreateWorkspace(testCtx(t), opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	ctx := testCtx(t)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := healthRuns(t, dana); n != 1 {
		t.Fatalf("%d runs after the first syncs, want 1", n)
	}
	first, err := dana.Health(ctx)
	if err != nil || first == nil || len(first.Findings) != 11 || !slices.Contains(events, EventHealth) {
		t.Fatalf("stored report %+v, %v; events %v", first, err, events)
	}
	start := clk.now()
	clk.set(start.Add(6 * 24 * time.Hour))
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := healthRuns(t, dana); n != 1 {
		t.Fatalf("%d runs six days on, want 1", n)
	}
	clk.set(start.Add(7*24*time.Hour + time.Minute))
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := healthRuns(t, dana); n != 2 {
		t.Fatalf("%d runs a week on, want 2", n)
	}
	clk.set(start.Add(7*24*time.Hour + 2*time.Minute))
	runHealth(t, dana)
	if n := healthRuns(t, dana); n != 3 {
		t.Fatalf("%d runs after Run now, want 3", n)
	}
}

// A commit after this user's recovery wrap leaves the wrap's GroupInfo
// stale (recovery could not rejoin), and a compaction deletes the wrap
// from the relay: each time the check finds it, sends a fresh wrap, and
// the next run is clean. One admin device is actionable until a second
// admin exists, and can be dismissed once.
func TestHealthRepairsRecoveryWrapsAndCountsAdmins(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 142)
	ctx := testCtx(t)
	rep := runHealth(t, dana)
	finding(t, rep, health.RecoveryWrap, health.StateOK)
	finding(t, rep, health.HistoryPublish, health.StateOK)
	finding(t, rep, health.TransparencyLog, health.StateOK)
	finding(t, rep, health.FrozenChain, health.StateOK)
	finding(t, rep, health.AccessSet, health.StateOK)
	finding(t, rep, health.Probation, health.StateOK)
	finding(t, rep, health.AgentLeaves, health.StateOK)
	f := finding(t, rep, health.AdminDevices, health.StateAction)
	if f.Action == nil || f.Action.ID != "add_admin_device" || !rep.NeedsAction() {
		t.Fatalf("admin devices: %+v", f)
	}
	if _, err := dana.DismissHealth(ctx, string(health.Storage)); !errors.Is(err, ErrUnknownCheck) {
		t.Fatalf("dismissing storage: %v", err)
	}
	if rep, err := dana.DismissHealth(ctx, string(health.AdminDevices)); err != nil || rep.NeedsAction() {
		t.Fatalf("dismissed: %v %+v", err, rep)
	}
	finding(t, runHealth(t, dana), health.AdminDevices, health.StateDismissed)

	// Sam joins #general: its epoch moves past Dana's wrap.
	sam := joinWith(t, r, invite(t, dana), "sam", 143)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rep = runHealth(t, dana)
	f = finding(t, rep, health.RecoveryWrap, health.StateRepaired)
	if !slices.Contains(f.Groups, "general") {
		t.Fatalf("repaired groups %v, want general", f.Groups)
	}
	finding(t, runHealth(t, dana), health.RecoveryWrap, health.StateOK)

	// Compact-now drops everything below a fresh checkpoint, the wrap too.
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	f = finding(t, runHealth(t, dana), health.RecoveryWrap, health.StateRepaired)
	if !slices.Contains(f.Groups, "general") {
		t.Fatalf("repaired after the drop: %v", f.Groups)
	}
	finding(t, runHealth(t, dana), health.RecoveryWrap, health.StateOK)
	var general *GroupEncryption
	for _, ge := range dana.Encryption() {
		if ge.Channel == "general" {
			general = &ge
		}
	}
	if general == nil || general.Devices != 2 || general.People != 2 || general.Epoch == 0 || general.LastCheckpoint.IsZero() ||
		!general.DefaultPolicy || general.MediaWindow != 180*24*time.Hour || general.History != "open" {
		t.Fatalf("encryption state of #general: %+v", general)
	}

	if err := dana.Promote(ctx, sam.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	finding(t, runHealth(t, dana), health.AdminDevices, health.StateOK)
}

// A member who is no admin sees the access set go stale once no admin
// device has connected for 7 days; an admin device republishes it.
func TestHealthAccessSetStale(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 144)
	clk := &testClock{}
	opts := r.options(t, "sam", 145)
	opts.Clock = clk.now
	sam, err := Join(testCtx(t), opts, invite(t, dana))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	finding(t, runHealth(t, sam), health.AccessSet, health.StateOK)
	clk.set(time.Now().Add(8 * 24 * time.Hour))
	f := finding(t, runHealth(t, sam), health.AccessSet, health.StateAction)
	if f.Action.ID != "admin_connect" || !strings.Contains(f.Finding, "8 days") {
		t.Fatalf("stale access set: %+v", f)
	}
	dana.mu.Lock()
	dana.now = func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	dana.mu.Unlock()
	finding(t, runHealth(t, dana), health.AccessSet, health.StateRepaired)
}

// The attacker's side of "No frozen retention chain": a member publishes a
// second retention root; the chain freezes and the check names the
// channel with the resolve action.
func TestHealthFindsFrozenChain(t *testing.T) {
	t.Parallel()
	_, dana, _ := compactionPair(t, 146)
	ctx := testCtx(t)
	finding(t, runHealth(t, dana), health.FrozenChain, health.StateOK)
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	g := dana.groups[gi.Policy.Group]
	other := retention.Root(wire.ID(g.rec.ID), g.mls.Epoch(), ed25519.NewKeyFromSeed(make([]byte, 32)), dana.edKey)
	_, err := dana.sendCT(ctx, g, wire.KindRetentionTransition, other.Encode())
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	f := finding(t, runHealth(t, dana), health.FrozenChain, health.StateAction)
	if f.Action.ID != "resolve_chain" || !slices.Contains(f.Groups, "general") {
		t.Fatalf("frozen chain: %+v", f)
	}
}

// The attacker's side of "Transparency log continuous to head": a relay
// reorders the membership log; the check fails while it does and is clean
// once the relay serves the log as written.
func TestHealthFindsBrokenMembershipLog(t *testing.T) {
	t.Parallel()
	h, dana, sam, _ := hostileWorkspace(t, 148)
	ctx := testCtx(t)
	finding(t, runHealth(t, sam), health.TransparencyLog, health.StateOK)
	for _, name := range []string{"one", "two"} {
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionParent); err != nil {
			t.Fatal(err)
		}
	}
	h.RewriteRoster(func(ops *wire.RosterOps) *wire.RosterOps {
		if len(ops.Ops) >= 2 {
			ops.Ops[0], ops.Ops[1] = ops.Ops[1], ops.Ops[0]
		}
		return ops
	})
	f := finding(t, runHealth(t, sam), health.TransparencyLog, health.StateAction)
	if f.Action.ID != "report_relay" || f.Severity != health.Critical {
		t.Fatalf("broken log: %+v", f)
	}
	h.RewriteRoster(nil)
	finding(t, runHealth(t, sam), health.TransparencyLog, health.StateOK)
}

// A channel whose history.publish this member never saw (a store from
// before the check, or a publish that never came) is republished.
func TestHealthRepublishesMissingHistory(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 150)
	ctx := context.Background()
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	dana.groups[gi.Policy.Group].rec.Health.HasHistory = false
	dana.mu.Unlock()
	f := finding(t, runHealth(t, dana), health.HistoryPublish, health.StateRepaired)
	if !slices.Contains(f.Groups, "general") {
		t.Fatalf("republished %v", f.Groups)
	}
	finding(t, runHealth(t, dana), health.HistoryPublish, health.StateOK)
	_ = ctx
}
