package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/identity"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/store/storetest"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Issue 14 (spec/lifecycle.md "Retention and compaction": a text window
// configurable per group): a 30-day text window removes the text from the
// relay, not only its envelopes (docs/protocol/retention.md "What a text
// window removes"). #general holds a message 40 days old, which an earlier
// compact-now put in the relay's anchors, and two 5 days old when the
// steward checkpoints: its checkpoint leaves the expired day out. A window
// later the steward's policy drop deletes everything below it, the earlier
// anchors included: no envelope or snapshot on the relay carries the
// expired day, a joiner reads the 5-day-old messages and not the old one,
// and the members' own copies keep it. Before, the compact-now's anchor
// kept the old day's snapshot for good and every joiner read it.
func TestTextWindowRemovesExpiredTextFromTheRelay(t *testing.T) {
	t.Parallel()
	onClockedRelays(t, func(t *testing.T, r *testRelay, clk *testClock, i int) {
		expiryProof(t, r, clk, byte(220+10*i))
	})
}

// onClockedRelays runs proof on a SQLite relay and on a PostgreSQL one
// (i = 0, 1), each with a clock the test moves on for the relay and the
// clients together.
func onClockedRelays(t *testing.T, proof func(t *testing.T, r *testRelay, clk *testClock, i int)) {
	for i, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			clk := &testClock{}
			cfg := relay.Config{Clock: clk.now}
			var r *testRelay
			switch {
			case name == "sqlite":
				r = startRelayWith(t, cfg)
			case testing.Short():
				t.Skip("-short: starts a PostgreSQL cluster (make test runs it)")
			default:
				rt := relaytest.StartOn(t, cfg, storetest.Postgres(t)) // the store closes after the relay stops
				r = &testRelay{URL: rt.URL, svc: rt.Service}
			}
			proof(t, r, clk, i)
		})
	}
}

// clockedEngine creates a workspace (link empty) or joins one by link, on
// r with clk's time, and syncs it once.
func clockedEngine(ctx context.Context, t *testing.T, r *testRelay, clk *testClock, name string, seed byte, link string) *Engine {
	t.Helper()
	opts := r.options(t, name, seed)
	opts.Clock = clk.now
	var e *Engine
	var err error
	if link == "" {
		e, err = CreateWorkspace(ctx, opts, "Acme", r.URL)
	} else {
		e, err = Join(ctx, opts, link)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

const (
	oldText    = "forty days old"
	recentText = "five days old"
)

func expiryProof(t *testing.T, r *testRelay, clk *testClock, seed byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	at := clk.days
	engine := func(name string, s byte, link string) *Engine {
		return clockedEngine(ctx, t, r, clk, name, s, link)
	}
	sync := func(e *Engine) {
		t.Helper()
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Day 0: the workspace, lee (a member throughout) and the old message.
	d := engine("dana", seed, "")
	lee := engine("lee", seed+1, invite(t, d))
	sync(d)
	if _, err := d.Send(ctx, "general", oldText); err != nil {
		t.Fatal(err)
	}
	oldDay, _ := documents.DayOf(clk.now())
	sync(lee)
	at(1)
	if _, err := d.SetRetention(ctx, "general", 30*retention.Day, 180*retention.Day, true); err != nil {
		t.Fatal(err)
	}
	// Day 5: compact-now keeps its (complete) checkpoint as the relay's
	// anchor: the old day's snapshot among its shards.
	at(5)
	if rep, err := d.Compact(ctx, "general", true); err != nil || !rep.Dropped {
		t.Fatalf("compact-now: %+v %v", rep, err)
	}
	sync(d)
	// Day 35 and 40: the recent messages, then the steward's checkpoint,
	// which leaves out the day that expired (40 days old, past 30).
	at(35)
	for range 2 {
		if _, err := d.Send(ctx, "general", recentText); err != nil {
			t.Fatal(err)
		}
	}
	at(40)
	sync(d)
	cp1 := newestTrusted(t, d)
	if !cp1.Partial {
		t.Fatalf("the steward's checkpoint under a 30-day window is complete: at %s", cp1.At)
	}
	if days := manifestDays(t, cp1.Manifest); slices.Contains(days, uint32(oldDay)) || len(days) != 1 {
		t.Fatalf("the steward's checkpoint lists days %v (the expired one is %d)", days, oldDay)
	}
	// From the attacker's side: compact-now cannot name it.
	d.mu.Lock()
	gi, _ := d.resolveChannel("general")
	g := d.groups[gi.Policy.Group]
	_, errDrop := d.destroyBelow(ctx, g, cp1, CompactReport{})
	_, errProp := d.proposeDestruction(ctx, g, cp1)
	d.mu.Unlock()
	if codeOf(errDrop) != "retention/partial_checkpoint" || codeOf(errProp) != "retention/partial_checkpoint" {
		t.Fatalf("a destruction naming the partial checkpoint: drop %v, proposal %v", errDrop, errProp)
	}
	sync(lee)
	// Day 70: the window has passed since the relay accepted it; the
	// steward's next checkpoint and policy drop.
	at(70)
	if _, err := d.Send(ctx, "general", "after the window"); err != nil {
		t.Fatal(err)
	}
	sync(d)
	group := wire.ID(gi.Policy.Group)
	relayHoldsNoExpiredDay(t, r, d, group, cp1.Seq, oldDay, 2)

	sam := engine("sam", seed+2, invite(t, d))
	sync(sam)
	got := texts(t, sam, "general")
	if slices.Contains(got, oldText) || count(got, recentText) != 2 || !slices.Contains(got, "after the window") {
		t.Fatalf("the joiner reads %q", got)
	}
	sync(lee)
	for _, e := range []*Engine{d, lee} {
		if got := texts(t, e, "general"); !slices.Contains(got, oldText) || count(got, recentText) != 2 {
			t.Fatalf("%s's own copy reads %q", e.DeviceID().ShortString(), got)
		}
	}
	noRetentionAlerts(t, d, lee, sam)
	destructionOfPartialRefused(t, d, lee)
}

// destructionOfPartialRefused: with lee a second admin, dana proposes a
// compact-now naming the steward's newest (partial) checkpoint straight
// into the roster, past her own client's check; lee's client refuses to
// approve it (retention/partial_checkpoint) and signs nothing.
func destructionOfPartialRefused(t *testing.T, dana, lee *Engine) {
	t.Helper()
	ctx := testCtx(t)
	promote(t, dana, lee)
	cp := newestTrusted(t, dana)
	if !cp.Partial {
		t.Fatal("the steward's newest checkpoint is complete")
	}
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	now := uint64(dana.now().Unix())
	body := &roster.RetentionDestroy{Group: gi.Policy.Group, Checkpoint: cp.Ref, NotBefore: now - 60, NotAfter: now + 3600}
	x := body.Destruction()
	x.Approve(dana.edKey)
	body.Relay = &x.Approvals[0]
	err := dana.appendRoster(ctx, func() (roster.Body, error) { return body, nil })
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.ApproveRetention(ctx, "general"); codeOf(err) != string(retention.ErrPartial.ErrorCode()) {
		t.Fatalf("lee approving a destruction of the partial checkpoint: %v", err)
	}
	lee.mu.Lock()
	approved := len(lee.roster.ApprovedDestructions())
	lee.mu.Unlock()
	if approved != 0 {
		t.Fatalf("%d destructions approved", approved)
	}
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// newestTrusted is e's newest trusted checkpoint of #general.
func newestTrusted(t *testing.T, e *Engine) trustedCP {
	t.Helper()
	g := channelGroup(t, e, "general")
	e.mu.Lock()
	defer e.mu.Unlock()
	tr := e.groups[identity.GroupID(g)].rec.Retention.Trusted
	if len(tr) == 0 {
		t.Fatal("no trusted checkpoint")
	}
	return tr[len(tr)-1]
}

// manifestDays are the days of a manifest's chat shards.
func manifestDays(t *testing.T, mb []byte) []uint32 {
	t.Helper()
	m, err := retention.DecodeManifest(mb)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint32
	for _, e := range m.Documents {
		if e.Key.Kind == retention.KindChat {
			out = append(out, e.Key.Day)
		}
	}
	return out
}

// relayHoldsNoExpiredDay reads group's whole log from the relay's store
// and checks, opening everything as dana (a member) can, that the log was
// dropped below barrier and that nothing left carries day: no content
// envelope with a change of its shard, no checkpoint listing it, no
// snapshot but those the remaining checkpoints list, and none of those
// holding the old message's text.
func relayHoldsNoExpiredDay(t *testing.T, r *testRelay, dana *Engine, group wire.ID, barrier uint64, day documents.Day, wantCheckpoints int) {
	t.Helper()
	ctx := testCtx(t)
	var log []wire.SeqEnvelope
	var dropped uint64
	for after, page := uint64(0), 0; page < 100; page++ {
		p, err := r.svc.Fetch(ctx, wire.ID(dana.wsID()), group, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		log, dropped = append(log, p.Envelopes...), p.DroppedBelow
		if len(p.Envelopes) == 0 || p.Envelopes[len(p.Envelopes)-1].Seq >= p.HeadSeq {
			break
		}
		after = p.Envelopes[len(p.Envelopes)-1].Seq
	}
	if dropped != barrier {
		t.Fatalf("the relay dropped below %d, want the steward's checkpoint at %d", dropped, barrier)
	}
	dana.mu.Lock()
	defer dana.mu.Unlock()
	g := dana.groups[identity.GroupID(group)]
	listed := map[wire.EnvelopeRef]documents.Day{}
	checkpoints := 0
	for i := range log {
		env := &log[i].Envelope
		switch env.Kind {
		case wire.KindContent:
			vc, ok, err := dana.verifiedContent(g, env)
			if err != nil || !ok {
				t.Fatalf("seq %d: content dana cannot read (%v)", log[i].Seq, err)
			}
			for _, d := range vc.docs {
				if d.key.Day == uint32(day) {
					t.Fatalf("seq %d: a content envelope of the expired day is still on the relay", log[i].Seq)
				}
			}
		case wire.KindCheckpoint:
			checkpoints++
			cp, err := wire.DecodeCheckpoint(env.CT)
			if err != nil {
				t.Fatal(err)
			}
			mb, err := dana.openSealed(g, env, cp.Manifest)
			if err != nil {
				t.Fatal(err)
			}
			m, err := retention.DecodeManifest(mb)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Documents {
				if e.Key.Kind == retention.KindChat {
					if e.Key.Day == uint32(day) {
						t.Fatalf("seq %d: a checkpoint on the relay lists the expired day", log[i].Seq)
					}
					listed[e.Snapshot] = documents.Day(e.Key.Day)
				} else {
					listed[e.Snapshot] = 0
				}
			}
		}
	}
	snapshots := 0
	for i := range log {
		env := &log[i].Envelope
		if env.Kind != wire.KindSnapshot {
			continue
		}
		snapshots++
		d, ok := listed[wire.RefOf(env)]
		if !ok {
			t.Fatalf("seq %d: a snapshot no remaining checkpoint lists (an earlier anchor) is still on the relay", log[i].Seq)
		}
		if d == 0 {
			continue // the index
		}
		b, err := dana.openSealed(g, env, env.CT)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := documents.LoadShard(group, d, b, nil, documents.Options{Clock: time.Now})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range sh.Messages() {
			if m.Text == oldText {
				t.Fatalf("seq %d: a snapshot on the relay holds the expired message", log[i].Seq)
			}
		}
	}
	if checkpoints != wantCheckpoints {
		t.Fatalf("the relay holds %d checkpoints, want %d", checkpoints, wantCheckpoints)
	}
	t.Logf("after the drop the relay holds %d envelopes of #general: %d checkpoints, %d snapshots", len(log), checkpoints, snapshots)
}

// The attacker's side of a checkpoint that leaves out expired days: a
// member (dana) writes one the receivers must refuse, and sam, holding the
// whole history, does: the flag with no policy, under an unlimited text
// window, or under a policy that became active after the checkpoint's
// created_at (retention/expiry_refused), and a gap of a day that has not
// expired (retention/omitted_document). The honest one under a 3-day
// window, leaving out the older days, is trusted.
func TestCheckpointLeavingOutDaysIsRefusedWithoutAWindow(t *testing.T) {
	t.Parallel()
	_, dana, sam := compactionPair(t, 240)
	ctx := testCtx(t)
	flag := func(stage string, d *checkpointDraft) {
		if stage == "manifest" {
			d.manifest.OmitsExpired = true
		}
	}
	refused := func(name string, partial bool, tamper func(string, *checkpointDraft), want string) {
		t.Helper()
		before := len(sam.Status().Alerts)
		if _, err := writeTamperedAs(t, dana, partial, tamper); err != nil {
			t.Fatalf("%s: writing: %v", name, err)
		}
		if a := refusedAt(t, sam, before); !strings.Contains(a.Message, want) {
			t.Fatalf("%s: refused for %q, want %s", name, a.Message, want)
		}
		if info, _ := sam.Retention("general"); info.Checkpoints != 0 {
			t.Fatalf("%s: sam trusts %d checkpoints", name, info.Checkpoints)
		}
	}
	expiry := string(retention.ErrExpiry.ErrorCode())
	refused("no policy", true, flag, expiry)
	if _, err := dana.SetRetention(ctx, "general", 0, 90*retention.Day, true); err != nil {
		t.Fatal(err)
	}
	refused("unlimited text", true, flag, expiry)
	if _, err := dana.SetRetention(ctx, "general", 3*retention.Day, 90*retention.Day, true); err != nil {
		t.Fatal(err)
	}
	refused("a policy newer than created_at", true, func(stage string, d *checkpointDraft) {
		if stage == "manifest" {
			gi, _ := dana.resolveChannel("general")
			d.manifest.OmitsExpired = true
			d.manifest.CreatedAt = uint64(gi.Retention.ActiveSince.Add(-time.Minute).UnixMilli())
		}
	}, expiry)
	refused("a gap of a day not expired", true, func(stage string, d *checkpointDraft) {
		if stage != "snapshots" {
			return
		}
		last := len(d.keys) - 2 // the newest chat shard (the index sorts last)
		days := chatDays(d)
		d.keys = append(d.keys[:last], d.keys[last+1:]...)
		d.snaps = append(d.snaps[:last], d.snaps[last+1:]...)
		d.snaps[len(d.snaps)-1] = indexSnapshot(dana, days[:len(days)-1])
	}, string(retention.ErrOmitted.ErrorCode()))
	w, err := writeTamperedAs(t, dana, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if days := manifestDays(t, w.cp.Manifest); !w.cp.Partial || len(days) >= 6 {
		t.Fatalf("the honest checkpoint under a 3-day window: partial %v, days %v", w.cp.Partial, days)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if info, _ := sam.Retention("general"); info.Checkpoints != 1 {
		t.Fatalf("sam trusts %d checkpoints after the honest one", info.Checkpoints)
	}
}

// noRetentionAlerts fails when an engine refused a checkpoint or its
// steward failed.
func noRetentionAlerts(t *testing.T, es ...*Engine) {
	t.Helper()
	for _, e := range es {
		for _, a := range e.Status().Alerts {
			if a.Code == "retention/checkpoint_refused" || a.Code == "retention/steward" {
				t.Fatalf("alert at %s: %+v", e.DeviceID().ShortString(), a)
			}
		}
	}
}
