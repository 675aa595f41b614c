package engine

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/retention"
	"weald/backend/wire"
)

// compactionPair is dana (admin, writes checkpoints) and sam (a member who
// holds the whole history and judges them), sharing #general with n
// messages over 6 days.
func compactionPair(t *testing.T, seed byte) (r *testRelay, dana, sam *Engine) {
	t.Helper()
	r = startRelay(t)
	dana, sam = compactionPairOn(t, r, seed)
	return r, dana, sam
}

// compactionPairOn is compactionPair on relay r.
func compactionPairOn(t *testing.T, r *testRelay, seed byte) (dana, sam *Engine) {
	t.Helper()
	dana, _ = historyWorkspace(t, r, 60, 6, seed)
	sam = joinWith(t, r, invite(t, dana), "sam", seed+1)
	if _, err := sam.Sync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return dana, sam
}

// writeTampered writes a checkpoint of #general at dana with tamper applied.
func writeTampered(t *testing.T, dana *Engine, tamper func(stage string, d *checkpointDraft)) (*written, error) {
	t.Helper()
	return writeTamperedAs(t, dana, false, tamper)
}

// writeTamperedAs is writeTampered of a steward's checkpoint (partial:
// leaving out the expired days under a finite text window) or a complete one.
func writeTamperedAs(t *testing.T, dana *Engine, partial bool, tamper func(stage string, d *checkpointDraft)) (*written, error) {
	t.Helper()
	dana.mu.Lock()
	defer dana.mu.Unlock()
	dana.tamper = tamper
	defer func() { dana.tamper = nil }()
	gi, err := dana.resolveChannel("general")
	if err != nil {
		t.Fatal(err)
	}
	if err := dana.connect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return dana.writeCheckpoint(testCtx(t), dana.groups[gi.Policy.Group], &gi, partial)
}

func refusedAt(t *testing.T, e *Engine, before int) Alert {
	t.Helper()
	if _, err := e.Sync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	st := e.Status()
	for _, a := range st.Alerts[before:] {
		if a.Code == "retention/checkpoint_refused" {
			return a
		}
	}
	t.Fatalf("no retention/checkpoint_refused alert; alerts %+v", st.Alerts)
	return Alert{}
}

// chatDays are the days of a draft's chat shards.
func chatDays(d *checkpointDraft) []documents.Day {
	var days []documents.Day
	for _, k := range d.keys {
		if k.Kind == retention.KindChat {
			days = append(days, documents.Day(k.Day))
		}
	}
	return days
}

// indexSnapshot is the snapshot of an index of e's #general listing days
// (called while e's lock is held, from its tamper hook).
func indexSnapshot(e *Engine, days []documents.Day) documents.Snapshot {
	gi, _ := e.resolveChannel("general")
	ix, err := retention.IndexSource(wire.ID(gi.Policy.Group), days, documents.Options{Author: wire.ID{1}, Clock: time.Now, Rand: seededRand(1)})
	if err != nil {
		panic(err)
	}
	_, snaps, err := retention.Snapshots([]retention.Source{ix})
	if err != nil {
		panic(err)
	}
	return snaps[0]
}

// spec/lifecycle.md "Checkpoints": receivers verify every snapshot hash and
// head and the inventory, and refuse a checkpoint that omits a known
// document or whose snapshot sits above or below its barrier, and the index
// inventory (one missing, altered, or not listing exactly the shards). Each case is
// a member (dana) writing a tampered checkpoint; sam, holding the whole
// history, refuses it and trusts it for nothing.
func TestTamperedCheckpointsAreRefusedByReceivers(t *testing.T) {
	t.Parallel()
	_, dana, sam := compactionPair(t, 150)
	cases := []struct {
		name   string
		tamper func(stage string, d *checkpointDraft)
		want   string
	}{
		{"a shard left out", func(stage string, d *checkpointDraft) {
			if stage == "manifest" {
				d.manifest.Documents = d.manifest.Documents[1:]
			}
		}, retention.ErrOmitted.Error()},
		{"a wrong snapshot hash", func(stage string, d *checkpointDraft) {
			if stage == "manifest" {
				d.manifest.Documents[2].SnapshotHash[0] ^= 1
			}
		}, "retention/bad_checkpoint"},
		{"an index that leaves a shard out", func(stage string, d *checkpointDraft) {
			if stage == "snapshots" {
				days := chatDays(d)
				d.snaps[len(d.snaps)-1] = indexSnapshot(dana, days[1:]) // the index sorts last
			}
		}, "the inventory has shards the index does not list"},
		{"an index that lists a day without a shard", func(stage string, d *checkpointDraft) {
			if stage == "snapshots" {
				days := chatDays(d)
				d.snaps[len(d.snaps)-1] = indexSnapshot(dana, append(days, days[0]-1))
			}
		}, retention.ErrOmitted.Error()},
		{"the index snapshot altered", func(stage string, d *checkpointDraft) {
			if stage == "snapshots" {
				s := &d.snaps[len(d.snaps)-1]
				s.Bytes = append([]byte(nil), s.Bytes...)
				s.Bytes[len(s.Bytes)/2] ^= 1 // sent as is; the manifest names the honest hash
			}
		}, "retention/bad_checkpoint"},
		{"no index snapshot", func(stage string, d *checkpointDraft) {
			if stage == "manifest" {
				docs := d.manifest.Documents
				d.manifest.Documents = docs[:len(docs)-1] // a version 1 manifest, as written before the index
			}
		}, "the manifest lists no index snapshot"},
		{"the barrier above its snapshots", func(stage string, d *checkpointDraft) {
			if stage == "snapshots" {
				for i := range d.barrier {
					// The snapshots hold changes past the claimed barrier:
					// dana's first 60-odd envelopes are the messages.
					d.barrier[i].Ctr = min(d.barrier[i].Ctr, 30)
				}
			}
		}, retention.ErrBarrier.Error()},
		{"a snapshot below its barrier", func(stage string, d *checkpointDraft) {
			if stage != "snapshots" {
				return
			}
			i := len(d.snaps) - 1
			for d.keys[i].Kind != retention.KindChat { // the last chat shard (the index sorts after)
				i--
			}
			for _, src := range d.srcs {
				if src.Key != d.keys[i] {
					continue
				}
				heads, err := src.Doc.Frontier(src.Set)
				if err != nil {
					panic(err)
				}
				var less []documents.Head
				for _, h := range src.Set {
					if h != heads[0] {
						less = append(less, h)
					}
				}
				lower, err := src.Doc.Frontier(less)
				if err != nil {
					panic(err)
				}
				if d.snaps[i], err = src.Doc.SnapshotAt(lower); err != nil {
					panic(err)
				}
			}
		}, retention.ErrBarrier.Error()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(sam.Status().Alerts)
			if _, err := writeTampered(t, dana, c.tamper); err != nil {
				t.Fatalf("writing: %v", err)
			}
			a := refusedAt(t, sam, before)
			if !strings.Contains(a.Message, c.want) {
				t.Fatalf("refused for %q, want %s", a.Message, c.want)
			}
			info, _ := sam.Retention("general")
			if info.Checkpoints != 0 {
				t.Fatalf("sam trusts %d checkpoints", info.Checkpoints)
			}
		})
	}
	// An honest checkpoint is then trusted.
	if _, err := writeTampered(t, dana, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if info, _ := sam.Retention("general"); info.Checkpoints != 1 {
		t.Fatalf("sam trusts %d checkpoints after an honest one", info.Checkpoints)
	}
}

// The relay's half of the same attacks: a checkpoint signed outside the
// chain is refused on SEND; a drop_before whose snapshot list leaves one out,
// whose manifest hash differs or that names a snapshot the relay does not
// hold deletes nothing; nothing is deleted until an honest drop.
func TestTamperedCheckpointsAndDropsAreRefusedByTheRelay(t *testing.T) {
	t.Parallel()
	r, dana, _ := compactionPair(t, 160)
	ctx := testCtx(t)
	_, err := writeTampered(t, dana, func(stage string, d *checkpointDraft) {
		if stage == "manifest" {
			d.key = ed25519.NewKeyFromSeed(make([]byte, 32)) // a key outside the chain
		}
	})
	if c := codeOf(err); c != string(wire.CodeBadObject) {
		t.Fatalf("a checkpoint signed outside the chain: %v", err)
	}
	missing, err := writeTampered(t, dana, func(stage string, d *checkpointDraft) {
		if stage == "manifest" {
			d.manifest.Documents[0].Snapshot.Ctr += 1000 // names a snapshot envelope that does not exist
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	honest, err := writeTampered(t, dana, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	drop := func(cp trustedCP, tamper func(d *wire.DropBefore)) error {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		gi, _ := dana.resolveChannel("general")
		g := dana.groups[gi.Policy.Group]
		key, err := dana.retentionTip(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		now := uint64(dana.now().Unix())
		d := wire.DropBefore{Group: wire.ID(g.rec.ID), Checkpoint: cp.Ref, ManifestHash: cp.ManifestHash,
			Snapshots: append([]wire.EnvelopeRef(nil), cp.Snapshots...), Authorization: wire.AuthorizedByDestruction,
			Destruction: wire.RetentionDestruction{Group: wire.ID(g.rec.ID), Checkpoint: cp.Ref, NotBefore: now - 60, NotAfter: now + 600}}
		d.Destruction.Approve(dana.edKey)
		tamper(&d)
		d.Sign(key)
		_, err = dana.client.DropBefore(ctx, d)
		return err
	}
	cases := []struct {
		name   string
		cp     trustedCP
		tamper func(d *wire.DropBefore)
		want   wire.Code
	}{
		{"a snapshot left out of the drop", honest.cp, func(d *wire.DropBefore) { d.Snapshots = d.Snapshots[1:] }, wire.CodeDropIncomplete},
		{"another manifest hash", honest.cp, func(d *wire.DropBefore) { d.ManifestHash[0] ^= 1 }, wire.CodeDropManifestMismatch},
		{"a snapshot the relay does not hold", missing.cp, func(*wire.DropBefore) {}, wire.CodeDropSnapshotMissing},
		{"a checkpoint the relay does not hold", honest.cp, func(d *wire.DropBefore) {
			d.Checkpoint.Ctr++
			d.Destruction.Checkpoint = d.Checkpoint
		}, wire.CodeDropUnknownCheckpoint},
		{"a destruction for another checkpoint", honest.cp, func(d *wire.DropBefore) {
			d.Destruction.Checkpoint = missing.cp.Ref
		}, wire.CodeDropBadDestruction},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := drop(c.cp, c.tamper); codeOf(err) != string(c.want) {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Envelopes != before.Envelopes {
		t.Fatalf("refused drops deleted: %d → %d envelopes", before.Envelopes, after.Envelopes)
	}
	if err := drop(honest.cp, func(*wire.DropBefore) {}); err != nil {
		t.Fatal(err)
	}
	if after, _ = dana.Storage(ctx); after.Envelopes >= before.Envelopes {
		t.Fatalf("the honest drop deleted nothing: %d → %d", before.Envelopes, after.Envelopes)
	}
	_ = r
}

// spec/lifecycle.md "Dropping": "a frozen retention chain freezes text
// compaction too". A second root for the group's chain is evidence: the
// relay freezes the group, the client stops compacting and says why.
func TestContestedChainFreezesCompaction(t *testing.T) {
	t.Parallel()
	_, dana, _ := compactionPair(t, 170)
	ctx := testCtx(t)
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
	_, err = dana.Compact(ctx, "general", true)
	if !errors.Is(err, retention.ErrChainFrozen) {
		t.Fatalf("compacting a frozen chain: %v", err)
	}
	if info, _ := dana.Retention("general"); !info.ChainFrozen {
		t.Fatalf("retention view: %+v", info)
	}
	found := false
	for _, a := range dana.Status().Alerts {
		found = found || a.Code == "retention/chain_frozen"
	}
	if !found {
		t.Fatal("no retention/chain_frozen alert")
	}
}

// A channel with no message yet is checkpointed too, and its checkpoint
// (an inventory of no shard, and the index listing none) is trusted by the
// other members. Before the index named its group, that index had no
// change, the manifest entry no heads, and every receiver refused the
// checkpoint as retention/bad_manifest.
func TestCheckpointOfAnEmptyChannelIsTrusted(t *testing.T) {
	t.Parallel()
	_, dana, sam := compactionPair(t, 190)
	ctx := testCtx(t)
	rep, err := dana.Compact(ctx, "activity", false)
	if err != nil || rep.Checkpoint == 0 || rep.Documents != 1 {
		t.Fatalf("the checkpoint of #activity: %+v %v", rep, err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range sam.Status().Alerts {
		if a.Code == "retention/checkpoint_refused" {
			t.Fatalf("sam refused it: %s", a.Message)
		}
	}
	if info, err := sam.Retention("activity"); err != nil || info.Checkpoints != 1 {
		t.Fatalf("sam trusts %d checkpoints of #activity (%v)", info.Checkpoints, err)
	}
}
