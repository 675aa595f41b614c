package relay

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"slices"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

const day = 24 * time.Hour

func (f *fixture) transition(author string, g wire.ID, epoch uint64, prev, next ed25519.PrivateKey) wire.Envelope {
	t := wire.RetentionTransition{Group: g, Epoch: epoch, NewKey: pub(next)}
	if prev == nil {
		t.Sign(key(author))
	} else {
		t.PrevKey = pub(prev)
		t.Sign(prev)
	}
	return f.next(author, g, wire.KindRetentionTransition, t.Encode())
}

// checkpoint builds a checkpoint of g whose author barrier is every
// author's last envelope in g so far (what its writer read), and its
// envelope (to send).
func (f *fixture) checkpoint(author string, g wire.ID, rk ed25519.PrivateKey, snaps ...wire.Envelope) (wire.Envelope, wire.Checkpoint) {
	c := wire.Checkpoint{Group: g, Manifest: []byte("sealed manifest")}
	for k, ch := range f.chains {
		if k.group == g {
			c.Barrier = append(c.Barrier, wire.EnvelopeRef{Author: k.author, Ctr: ch.ctr, Hash: ch.prev})
		}
	}
	slices.SortFunc(c.Barrier, func(a, b wire.EnvelopeRef) int { return bytes.Compare(a.Author[:], b.Author[:]) })
	for i := range snaps {
		c.Snapshots = append(c.Snapshots, wire.RefOf(&snaps[i]))
	}
	c.Sign(rk)
	return f.next(author, g, wire.KindCheckpoint, c.Encode()), c
}

func (f *fixture) policy(author string, g wire.ID, version uint64, textDays uint32, approvers ...string) wire.Envelope {
	p := wire.RetentionPolicy{Group: g, Version: version, TextWindowDays: textDays, MediaWindowDays: 180}
	for _, a := range approvers {
		p.Approve(key(a))
	}
	return f.next(author, g, wire.KindRetentionPolicy, p.Encode())
}

// dropFor builds a drop_before for checkpoint cpEnv signed by rk, authorized
// by a destruction due now and approved by approvers.
func (f *fixture) dropFor(cpEnv wire.Envelope, cp wire.Checkpoint, rk ed25519.PrivateKey, approvers ...string) wire.DropBefore {
	d := wire.DropBefore{Group: cpEnv.Group, Checkpoint: wire.RefOf(&cpEnv), ManifestHash: cp.ManifestHash,
		Snapshots: cp.Snapshots, Authorization: wire.AuthorizedByDestruction}
	d.Destruction = wire.RetentionDestruction{Group: cpEnv.Group, Checkpoint: d.Checkpoint, NotBefore: uint64(f.clock.now().Unix())}
	for _, a := range approvers {
		d.Destruction.Approve(key(a))
	}
	d.Sign(rk)
	return d
}

func (f *fixture) drop(d wire.DropBefore) (*wire.Dropped, error) {
	return f.svc.DropBefore(f.ctx, f.ws, principal("alice"), d)
}

// dropScene writes into group g: 3 content envelopes, the retention root r1,
// a snapshot, the checkpoint and 2 content envelopes after it.
type dropScene struct {
	g         wire.ID
	r1        ed25519.PrivateKey
	snap, cpE wire.Envelope
	cp        wire.Checkpoint
	cpSeq     uint64
}

func newDropScene(f *fixture) *dropScene {
	s := &dropScene{g: id("drop group"), r1: key("r1 " + f.t.Name())}
	for i := 0; i < 3; i++ {
		f.mustSend("bob", f.next("bob", s.g, wire.KindContent, make([]byte, 100)))
	}
	f.mustSend("alice", f.transition("alice", s.g, 1, nil, s.r1))
	s.snap = f.next("alice", s.g, wire.KindSnapshot, make([]byte, 50))
	f.mustSend("alice", s.snap)
	s.cpE, s.cp = f.checkpoint("alice", s.g, s.r1, s.snap)
	acks := f.mustSend("alice", s.cpE)
	s.cpSeq = acks[0].Seq
	f.mustSend("bob", f.next("bob", s.g, wire.KindContent, make([]byte, 10)), f.next("bob", s.g, wire.KindContent, make([]byte, 10)))
	return s
}

func logBytes(f *fixture) (counter, sum int64) {
	f.t.Helper()
	var s store.WorkspaceStats
	if err := f.st.View(f.ctx, func(tx store.Tx) error { var err error; s, err = tx.Stats(f.ctx, f.ws, 0); return err }); err != nil {
		f.t.Fatal(err)
	}
	return s.LogBytes, s.SumCT
}

func TestDropBeforeDeletesBelowCheckpointOnly(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s := newDropScene(f)
		if s.cpSeq != 6 {
			t.Fatalf("checkpoint seq = %d, want 6", s.cpSeq)
		}
		before, _ := logBytes(f)
		d, err := f.drop(f.dropFor(s.cpE, s.cp, s.r1, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		if d.BarrierSeq != 6 || d.Envelopes != 3 || d.Bytes != 300 {
			t.Errorf("dropped = %+v, want barrier 6, 3 envelopes, 300 bytes", d)
		}
		out, _ := f.svc.Fetch(f.ctx, f.ws, s.g, 0, 0)
		var seqs []uint64
		for _, e := range out.Envelopes {
			seqs = append(seqs, e.Seq)
		}
		// Kept: the transition (4), the snapshot (5), the checkpoint (6) and what follows.
		if len(seqs) != 5 || seqs[0] != 4 || seqs[1] != 5 || seqs[2] != 6 || seqs[4] != 8 || out.DroppedBelow != 6 || out.HeadSeq != 8 {
			t.Errorf("after drop: seqs %v dropped_below %d head %d", seqs, out.DroppedBelow, out.HeadSeq)
		}
		after, sum := logBytes(f)
		if after != before-300 || after != sum {
			t.Errorf("byte counter %d → %d (sum of ct %d)", before, after, sum)
		}
		// Repeating it deletes nothing more; the chains continue above.
		d2, err := f.drop(f.dropFor(s.cpE, s.cp, s.r1, "alice"))
		if err != nil || d2.Envelopes != 0 {
			t.Errorf("repeat: %+v %v", d2, err)
		}
		if a := f.mustSend("bob", f.next("bob", s.g, wire.KindContent, nil)); a[0].Seq != 9 {
			t.Errorf("seq after drop = %d", a[0].Seq)
		}
		// A later checkpoint's drop deletes the first drop's anchors too
		// (its snapshot 5 and checkpoint 6): the later checkpoint and its
		// snapshot become the group's only anchors.
		snap2 := f.next("alice", s.g, wire.KindSnapshot, make([]byte, 40))
		f.mustSend("alice", snap2)
		cp2E, cp2 := f.checkpoint("alice", s.g, s.r1, snap2)
		f.mustSend("alice", cp2E)
		before, _ = logBytes(f)
		d3, err := f.drop(f.dropFor(cp2E, cp2, s.r1, "alice"))
		if err != nil || d3.Envelopes != 5 || d3.BarrierSeq != 11 { // seqs 5, 6, 7, 8, 9
			t.Errorf("second drop: %+v %v, want barrier 11 and 5 envelopes", d3, err)
		}
		out, _ = f.svc.Fetch(f.ctx, f.ws, s.g, 0, 0)
		seqs = seqs[:0]
		for _, e := range out.Envelopes {
			seqs = append(seqs, e.Seq)
		}
		if fmt.Sprint(seqs) != "[4 10 11]" || out.DroppedBelow != 11 {
			t.Errorf("after the second drop: seqs %v dropped_below %d, want [4 10 11] and 11", seqs, out.DroppedBelow)
		}
		if after, sum := logBytes(f); after != before-int64(d3.Bytes) || d3.Bytes != 50+uint64(len(s.cpE.CT))+20 || after != sum {
			t.Errorf("byte counter %d → %d (sum of ct %d)", before, after, sum)
		}
		// The first checkpoint is gone: a drop naming it again deletes
		// nothing and leaves the second's anchors alone.
		f.refused(wire.CodeDropUnknownCheckpoint, func() error { _, err := f.drop(f.dropFor(s.cpE, s.cp, s.r1, "alice")); return err })
		if d4, err := f.drop(f.dropFor(cp2E, cp2, s.r1, "alice")); err != nil || d4.Envelopes != 0 {
			t.Errorf("repeat of the second drop: %+v %v", d4, err)
		}
		if out, _ = f.svc.Fetch(f.ctx, f.ws, s.g, 0, 0); len(out.Envelopes) != 3 {
			t.Errorf("after the repeat: %d envelopes, want 3", len(out.Envelopes))
		}
		// bob's whole chain went below the barrier: it continues from the head
		// the drop recorded, not from scratch.
		bobLast := f.chains[chainKey{wire.KeyID(pub(key("bob"))), s.g}]
		f.refused(wire.CodeChainFork, func() error { return errOf(f.send("bob", mk("bob", s.g, wire.KindContent, nil, 1, wire.ZeroID))) })
		f.refused(wire.CodeChainFork, func() error {
			return errOf(f.send("bob", mk("bob", s.g, wire.KindContent, nil, bobLast.ctr+1, wire.ZeroID)))
		})
		if a := f.mustSend("bob", f.next("bob", s.g, wire.KindContent, nil)); a[0].Seq != 12 {
			t.Errorf("seq after second drop = %d, want 12", a[0].Seq)
		}
	})
}

// A drop deletes below the checkpoint's seq only what its author barrier
// covers (spec/lifecycle.md "Checkpoints": the snapshots capture the
// changes at or below the author barriers). Bob's envelope that reached the
// relay after the checkpoint's writer read the log, and before the
// checkpoint, is below its seq but in no snapshot: it stays, on SQLite and
// PostgreSQL. (Dropping by seq alone deleted it: the race lost a message.)
func TestDropKeepsWhatTheBarrierDoesNotCover(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g, r1 := id("window group"), key("r1 "+t.Name())
		for range 3 {
			f.mustSend("bob", f.next("bob", g, wire.KindContent, make([]byte, 100)))
		}
		f.mustSend("alice", f.transition("alice", g, 1, nil, r1))
		snap := f.next("alice", g, wire.KindSnapshot, make([]byte, 50))
		f.mustSend("alice", snap)
		cpE, cp := f.checkpoint("alice", g, r1, snap) // the writer has read the log
		window := f.next("bob", g, wire.KindContent, make([]byte, 70))
		if a := f.mustSend("bob", window); a[0].Seq != 6 {
			t.Fatalf("bob's envelope in the window at seq %d, want 6", a[0].Seq)
		}
		if a := f.mustSend("alice", cpE); a[0].Seq != 7 {
			t.Fatalf("checkpoint at seq %d, want 7", a[0].Seq)
		}
		before, _ := logBytes(f)
		d, err := f.drop(f.dropFor(cpE, cp, r1, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		if d.BarrierSeq != 7 || d.Envelopes != 3 || d.Bytes != 300 {
			t.Errorf("dropped = %+v, want barrier 7, 3 envelopes (bob's 1 to 3), 300 bytes", d)
		}
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []uint64
		for _, e := range out.Envelopes {
			seqs = append(seqs, e.Seq)
		}
		// Kept: the transition (4), the snapshot (5), bob's envelope sent
		// in the window (6), the checkpoint (7).
		if fmt.Sprint(seqs) != "[4 5 6 7]" || out.DroppedBelow != 7 {
			t.Errorf("after the drop: seqs %v dropped_below %d, want [4 5 6 7] and 7", seqs, out.DroppedBelow)
		}
		if after, sum := logBytes(f); after != before-300 || after != sum {
			t.Errorf("byte counter %d → %d (sum of ct %d)", before, after, sum)
		}
		// Bob's chain goes on from the envelope the drop kept.
		if a := f.mustSend("bob", f.next("bob", g, wire.KindContent, nil)); a[0].Seq != 8 {
			t.Errorf("bob's next at seq %d, want 8", a[0].Seq)
		}
	})
}

func TestDropBeforeRefusals(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s := newDropScene(f)
		good := func() wire.DropBefore { return f.dropFor(s.cpE, s.cp, s.r1, "alice") }
		resign := func(d wire.DropBefore) wire.DropBefore { d.Sign(s.r1); return d }
		cases := []struct {
			name string
			code wire.Code
			d    func() wire.DropBefore
		}{
			{"bad signature", wire.CodeDropBadSignature, func() wire.DropBefore { d := good(); d.Signature[0] ^= 1; return d }},
			{"signed by a stranger's key", wire.CodeDropStaleKey, func() wire.DropBefore { d := good(); d.Sign(key("stranger")); return d }},
			{"unknown checkpoint", wire.CodeDropUnknownCheckpoint, func() wire.DropBefore { d := good(); d.Checkpoint.Hash[0] ^= 1; return resign(d) }},
			{"not a checkpoint", wire.CodeDropNotCheckpoint, func() wire.DropBefore { d := good(); d.Checkpoint = wire.RefOf(&s.snap); return resign(d) }},
			{"manifest mismatch", wire.CodeDropManifestMismatch, func() wire.DropBefore { d := good(); d.ManifestHash[0] ^= 1; return resign(d) }},
			{"incomplete manifest", wire.CodeDropIncomplete, func() wire.DropBefore { d := good(); d.Snapshots = nil; return resign(d) }},
			{"unknown group", wire.CodeUnknownGroup, func() wire.DropBefore { d := good(); d.Group = id("nope"); return resign(d) }},
			{"destruction for another checkpoint", wire.CodeDropBadDestruction, func() wire.DropBefore {
				d := good()
				d.Destruction.Checkpoint.Ctr++
				d.Destruction.Approvals = nil
				d.Destruction.Approve(key("alice"))
				return resign(d)
			}},
			{"destruction not due", wire.CodeDropNotDue, func() wire.DropBefore {
				d := good()
				d.Destruction.NotBefore += 3600
				d.Destruction.Approvals = nil
				d.Destruction.Approve(key("alice"))
				return resign(d)
			}},
			{"destruction expired", wire.CodeDropBadDestruction, func() wire.DropBefore {
				d := good()
				d.Destruction.NotBefore -= 7200
				d.Destruction.NotAfter = d.Destruction.NotBefore + 3600
				d.Destruction.Approvals = nil
				d.Destruction.Approve(key("alice"))
				return resign(d)
			}},
			{"destruction unapproved", wire.CodeDropBadDestruction, func() wire.DropBefore { return f.dropFor(s.cpE, s.cp, s.r1) }},
			{"destruction approved by a non-admin", wire.CodeDropBadDestruction, func() wire.DropBefore { return f.dropFor(s.cpE, s.cp, s.r1, "bob") }},
			{"destruction with a forged approval", wire.CodeDropBadDestruction, func() wire.DropBefore {
				d := good()
				d.Destruction.Approvals[0].Signature[3] ^= 1
				return resign(d)
			}},
			{"no policy", wire.CodeDropNoPolicy, func() wire.DropBefore {
				d := good()
				d.Authorization, d.Destruction = wire.AuthorizedByPolicy, wire.RetentionDestruction{}
				return resign(d)
			}},
		}
		for _, c := range cases {
			f.refused(c.code, func() error { return errOf(f.drop(c.d())) })
		}

		// A snapshot the checkpoint lists but the relay does not hold.
		ghost := mk("alice", s.g, wire.KindSnapshot, []byte("never sent"), 99, wire.ZeroID)
		gE, gCP := f.checkpoint("alice", s.g, s.r1, ghost)
		f.mustSend("alice", gE)
		f.refused(wire.CodeDropSnapshotMissing, func() error { return errOf(f.drop(f.dropFor(gE, gCP, s.r1, "alice"))) })

		// With two admin users the threshold is 2.
		s2 := f.newSet(2, []dev{{"alice", "user alice", true}, {"bob", "user bob", false}, {"carol", "user carol", true}}, "agent", "recovery")
		wire.SignAccessSet(&s2, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s2); err != nil {
			t.Fatal(err)
		}
		f.refused(wire.CodeDropBadDestruction, func() error { return errOf(f.drop(good())) })
		if _, err := f.drop(f.dropFor(s.cpE, s.cp, s.r1, "alice", "carol")); err != nil {
			t.Errorf("two admins: %v", err)
		}

		// A successor key makes r1 stale.
		r2 := key("r2 " + t.Name())
		f.mustSend("alice", f.transition("alice", s.g, 2, s.r1, r2))
		f.refused(wire.CodeDropStaleKey, func() error { return errOf(f.drop(f.dropFor(s.cpE, s.cp, s.r1, "alice", "carol"))) })
		if _, err := f.drop(f.dropFor(s.cpE, s.cp, r2, "alice", "carol")); err != nil {
			t.Errorf("current key: %v", err)
		}
		// A group without a retention chain drops nothing.
		plain := id("plain")
		f.mustSend("bob", f.next("bob", plain, wire.KindContent, nil))
		d := f.dropFor(s.cpE, s.cp, r2, "alice", "carol")
		d.Group = plain
		d.Sign(r2)
		f.refused(wire.CodeDropNoChain, func() error { return errOf(f.drop(d)) })
	})
}

// TestFrozenChainDropsNothing: two successors for one key freeze the group
// (design/gaps.md "Retention policy") until an admin-approved resolution
// picks one branch.
func TestFrozenChainDropsNothing(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s := newDropScene(f)
		r2a, r2b := key("r2a"), key("r2b")
		f.mustSend("alice", f.transition("alice", s.g, 2, s.r1, r2a))
		f.mustSend("bob", f.transition("bob", s.g, 2, s.r1, r2b)) // accepted: the fork is evidence
		for _, rk := range []ed25519.PrivateKey{s.r1, r2a, r2b} {
			f.refused(wire.CodeDropChainFrozen, func() error { return errOf(f.drop(f.dropFor(s.cpE, s.cp, rk, "alice"))) })
		}
		// A resolution approved by the admin threshold picks r2a's branch.
		resolution := func(k []byte, approvers ...string) wire.Envelope {
			r := wire.RetentionResolution{Group: s.g, Key: k}
			for _, a := range approvers {
				r.Approve(key(a))
			}
			return f.next("alice", s.g, wire.KindRetentionResolution, r.Encode())
		}
		saved := f.saveChains()
		f.refused(wire.CodeRetentionThreshold, func() error { return errOf(f.send("alice", resolution(pub(r2a)))) })
		f.restoreChains(saved)
		f.refused(wire.CodeRetentionBadResolution, func() error { return errOf(f.send("alice", resolution(pub(s.r1), "alice"))) })
		f.restoreChains(saved)
		f.mustSend("alice", resolution(pub(r2a), "alice"))
		if _, err := f.drop(f.dropFor(s.cpE, s.cp, r2a, "alice")); err != nil {
			t.Errorf("drop after resolution: %v", err)
		}
		f.refused(wire.CodeDropStaleKey, func() error { return errOf(f.drop(f.dropFor(s.cpE, s.cp, r2b, "alice"))) })
		saved = f.saveChains()
		f.refused(wire.CodeRetentionBadTransition, func() error { return errOf(f.send("bob", f.transition("bob", s.g, 3, r2b, key("r3b")))) })
		f.restoreChains(saved)
		f.refused(wire.CodeRetentionBadResolution, func() error { return errOf(f.send("alice", resolution(pub(r2a), "alice"))) })
		f.restoreChains(saved)
		f.mustSend("alice", f.transition("alice", s.g, 3, r2a, key("r3a")))

		// A second root freezes too.
		g2 := id("second root")
		f.mustSend("alice", f.transition("alice", g2, 1, nil, key("x1")))
		f.mustSend("bob", f.transition("bob", g2, 1, nil, key("x2")))
		var g store.Group
		_ = st.View(f.ctx, func(tx store.Tx) error { var err error; g, err = tx.Group(f.ctx, f.ws, g2); return err })
		if !g.RetentionFrozen {
			t.Error("two roots did not freeze the chain")
		}
	})
}

func TestDropByPolicy(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		s := newDropScene(f)
		polE := f.policy("alice", s.g, 1, 30, "alice")
		f.mustSend("alice", polE)
		byPolicy := func() wire.DropBefore {
			d := f.dropFor(s.cpE, s.cp, s.r1)
			d.Authorization, d.Destruction, d.Policy = wire.AuthorizedByPolicy, wire.RetentionDestruction{}, wire.RefOf(&polE)
			d.Sign(s.r1)
			return d
		}
		we := f.refused(wire.CodeDropNotDue, func() error { return errOf(f.drop(byPolicy())) })
		if due, _ := we.UintField("due_unix"); due != uint64(f.clock.now().Add(30*day).Unix()) {
			t.Errorf("due_unix = %d", due)
		}
		f.clock.advance(31 * day)
		// Not the current policy: a newer version replaced it.
		pol2 := f.policy("alice", s.g, 2, 0, "alice")
		f.mustSend("alice", pol2)
		f.refused(wire.CodeDropPolicyInactive, func() error { return errOf(f.drop(byPolicy())) })
		// Unlimited text window: due never.
		d := byPolicy()
		d.Policy = wire.RefOf(&pol2)
		d.Sign(s.r1)
		f.refused(wire.CodeDropNotDue, func() error { return errOf(f.drop(d)) })
		pol3 := f.policy("alice", s.g, 3, 30, "alice")
		f.mustSend("alice", pol3)
		d.Policy = wire.RefOf(&pol3)
		d.Sign(s.r1)
		got, err := f.drop(d)
		if err != nil || got.Envelopes != 3 {
			t.Fatalf("policy drop: %+v %v", got, err)
		}
		// Once its approving admin is no longer an admin, the policy is inactive.
		s2 := f.newSet(2, []dev{{"carol", "user carol", true}, {"alice", "user alice", false}}, "", "")
		wire.SignAccessSet(&s2, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s2); err != nil {
			t.Fatal(err)
		}
		f.refused(wire.CodeDropPolicyInactive, func() error { return errOf(f.drop(d)) })
	})
}

// TestRelayVisibleKindsVerified: transitions, checkpoints and policies that
// do not verify are refused on SEND with their codes and stored nowhere.
func TestRelayVisibleKindsVerified(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("g")
		r0, r1 := key("r0"), key("r1")
		f.mustSend("alice", f.transition("alice", g, 4, nil, r0))
		f.mustSend("alice", f.transition("alice", g, 5, r0, r1))
		save := func() map[chainKey]chain {
			m := map[chainKey]chain{}
			for k, v := range f.chains {
				m[k] = v
			}
			return m
		}
		cases := []struct {
			name string
			code wire.Code
			env  func() wire.Envelope
		}{
			{"root signed by another key", wire.CodeRetentionBadTransition, func() wire.Envelope {
				tr := wire.RetentionTransition{Group: g, Epoch: 1, NewKey: pub(key("x"))}
				tr.Sign(key("bob"))
				return f.next("alice", g, wire.KindRetentionTransition, tr.Encode())
			}},
			{"successor not signed by predecessor", wire.CodeRetentionBadTransition, func() wire.Envelope {
				tr := wire.RetentionTransition{Group: g, Epoch: 6, PrevKey: pub(r1), NewKey: pub(key("x"))}
				tr.Sign(key("mallory"))
				return f.next("alice", g, wire.KindRetentionTransition, tr.Encode())
			}},
			{"successor of an unknown key", wire.CodeRetentionBadTransition, func() wire.Envelope { return f.transition("alice", g, 6, key("nope"), key("x")) }},
			{"successor with an older epoch", wire.CodeRetentionBadTransition, func() wire.Envelope { return f.transition("alice", g, 5, r1, key("x")) }},
			{"malformed transition", wire.CodeRetentionBadTransition, func() wire.Envelope { return f.next("alice", g, wire.KindRetentionTransition, []byte("junk")) }},
			{"checkpoint under an unknown key", wire.CodeBadObject, func() wire.Envelope { e, _ := f.checkpoint("alice", g, key("rogue")); return e }},
			{"checkpoint under a superseded key", wire.CodeBadObject, func() wire.Envelope { e, _ := f.checkpoint("alice", g, key("r0")); return e }},
			{"checkpoint with a bad manifest hash", wire.CodeBadObject, func() wire.Envelope {
				c := wire.Checkpoint{Group: g, Manifest: []byte("m")}
				c.Sign(r1)
				c.Manifest = []byte("other")
				return f.next("alice", g, wire.KindCheckpoint, c.Encode())
			}},
			{"checkpoint for another group", wire.CodeBadObject, func() wire.Envelope {
				c := wire.Checkpoint{Group: id("elsewhere")}
				c.Sign(r1)
				return f.next("alice", g, wire.KindCheckpoint, c.Encode())
			}},
			{"policy without approval", wire.CodeRetentionThreshold, func() wire.Envelope { return f.policy("alice", g, 1, 30) }},
			{"policy approved by a non-admin", wire.CodeRetentionThreshold, func() wire.Envelope { return f.policy("alice", g, 1, 30, "bob") }},
			{"malformed policy", wire.CodeRetentionBadPolicy, func() wire.Envelope { return f.next("alice", g, wire.KindRetentionPolicy, []byte{1}) }},
		}
		for _, c := range cases {
			saved := save()
			f.refused(c.code, func() error { return errOf(f.send("alice", c.env())) })
			f.chains = saved
		}
		f.mustSend("alice", f.policy("alice", g, 2, 30, "alice"))
		saved := save()
		f.refused(wire.CodeRetentionBadPolicy, func() error { return errOf(f.send("alice", f.policy("alice", g, 2, 10, "alice"))) })
		f.chains = saved
		// The same transition published again is accepted and changes nothing.
		f.mustSend("alice", f.transition("alice", g, 5, r0, r1))
		var keys []store.RetentionKey
		_ = st.View(f.ctx, func(tx store.Tx) error { var err error; keys, err = tx.RetentionKeys(f.ctx, f.ws, g); return err })
		if len(keys) != 2 {
			t.Errorf("retention keys = %d, want 2", len(keys))
		}
	})
}
