package relay

import (
	"errors"
	"fmt"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// fastCount is how many sends the fixture's Service accepted through
// store.Send (the fast path).
func (f *fixture) fastCount() uint64 { n, _ := f.svc.AcceptPaths(); return n }

// TestFastPathAcceptsInOrder: after a group's first envelope (general path),
// single and batched sends continuing known chains take the fast path, get
// consecutive seqs, and read back in order with the trigger's byte count.
func TestFastPathAcceptsInOrder(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("g")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("first")))
		f.mustSend("bob", f.next("bob", g, wire.KindContent, []byte("bob first")))
		var want []wire.ID
		for i := 0; i < 10; i++ {
			e := f.next("alice", g, wire.KindContent, []byte(fmt.Sprintf("single %d", i)))
			acks := f.mustSend("alice", e)
			if acks[0].Seq != uint64(3+i) || acks[0].Hash != e.Hash() {
				t.Fatalf("single %d: ack %+v", i, acks[0])
			}
			want = append(want, e.Hash())
		}
		var batch []wire.Envelope
		for i := 0; i < 20; i++ {
			author := []string{"alice", "bob"}[i%2]
			batch = append(batch, f.next(author, g, wire.KindContent, []byte(fmt.Sprintf("batch %d", i))))
		}
		acks := f.mustSend("alice", batch...)
		for i, a := range acks {
			if a.Seq != uint64(13+i) {
				t.Fatalf("batch ack %d has seq %d, want %d", i, a.Seq, 13+i)
			}
			want = append(want, batch[i].Hash())
		}
		if n := f.fastCount(); n != 11 {
			t.Errorf("fast sends = %d, want 11 (10 singles and the batch)", n)
		}
		out, err := f.svc.Fetch(f.ctx, f.ws, g, 2, MaxFetchLimit)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Envelopes) != len(want) || out.HeadSeq != 32 {
			t.Fatalf("fetched %d envelopes, head %d", len(out.Envelopes), out.HeadSeq)
		}
		for i, e := range out.Envelopes {
			if e.Seq != uint64(3+i) || e.Envelope.Hash() != want[i] {
				t.Fatalf("envelope %d: seq %d", i, e.Seq)
			}
		}
		stats, err := f.svc.Stats(f.ctx, f.ws)
		if err != nil {
			t.Fatal(err)
		}
		var bytes uint64
		full, _ := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		for _, e := range full.Envelopes {
			bytes += uint64(len(e.Envelope.CT))
		}
		if stats.LogBytes != bytes {
			t.Errorf("log bytes %d, Σ ct %d", stats.LogBytes, bytes)
		}
	})
}

// TestFastPathRefusals: once a chain is warm, a fork, a replay, a bad
// signature and a send over budget are each refused with their code and
// change nothing, and the chain goes on afterwards.
func TestFastPathRefusals(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, withBudget(1000))
		g := id("g")
		alice := wire.KeyID(pub(key("alice")))
		for i := 0; i < 3; i++ {
			f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("warm")))
		}
		head := f.chains[chainKey{alice, g}]

		fork := mk("alice", g, wire.KindContent, []byte("fork"), head.ctr+1, wire.ID{1})
		f.refused(wire.CodeChainFork, func() error { return errOf(f.send("alice", fork)) })

		out, _ := f.svc.Fetch(f.ctx, f.ws, g, 2, 1)
		replay := out.Envelopes[0].Envelope
		f.refused(wire.CodeChainReplay, func() error { return errOf(f.send("alice", replay)) })

		bad := mk("alice", g, wire.KindContent, []byte("bad"), head.ctr+1, head.prev)
		bad.Signature[10] ^= 1
		we := f.refused(wire.CodeAuthBadSignature, func() error { return errOf(f.send("alice", bad)) })
		if i, ok := we.UintField("index"); !ok || i != 0 {
			t.Errorf("index = %d %v", i, ok)
		}
		saved := f.saveChains()
		good := f.next("alice", g, wire.KindContent, []byte("good"))
		badInBatch := f.next("alice", g, wire.KindContent, []byte("bad in batch"))
		badInBatch.Signature[3] ^= 1
		we = f.refused(wire.CodeAuthBadSignature, func() error { return errOf(f.send("alice", good, badInBatch)) })
		if i, ok := we.UintField("index"); !ok || i != 1 {
			t.Errorf("index = %d %v, want 1", i, ok)
		}
		f.restoreChains(saved)

		// Inside a batch, a prev that does not name its predecessor is a
		// fork (the fast path takes each hash from the next envelope's prev
		// and confirms it before commit), named before a bad signature that
		// follows it; an envelope changed after signing is a bad signature
		// at its own index, though the next one's prev no longer names it.
		// (A refusal forgets the group's heads: one send relearns them.)
		for n := 2; n <= 3; n++ {
			f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("relearn")))
			saved = f.saveChains()
			good = f.next("alice", g, wire.KindContent, []byte("good"))
			forked := mk("alice", g, wire.KindContent, []byte("forked"), good.Ctr+1, wire.ID{2})
			badAfter := mk("alice", g, wire.KindContent, []byte("bad after"), good.Ctr+2, forked.Hash())
			badAfter.Signature[5] ^= 1
			batch := []wire.Envelope{good, forked, badAfter}[:n]
			we = f.refused(wire.CodeChainFork, func() error { return errOf(f.send("alice", batch...)) })
			if i, ok := we.UintField("index"); !ok || i != 1 {
				t.Errorf("fork in a batch of %d: index = %d %v, want 1", n, i, ok)
			}
			f.restoreChains(saved)
		}
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("relearn")))
		saved = f.saveChains()
		changed := f.next("alice", g, wire.KindContent, []byte("changed"))
		after := f.next("alice", g, wire.KindContent, []byte("after changed"))
		changed.CT = []byte("changed in transit")
		we = f.refused(wire.CodeAuthBadSignature, func() error { return errOf(f.send("alice", changed, after)) })
		if i, ok := we.UintField("index"); !ok || i != 0 {
			t.Errorf("changed in transit: index = %d %v, want 0", i, ok)
		}
		f.restoreChains(saved)

		saved = f.saveChains()
		over := f.next("alice", g, wire.KindContent, make([]byte, 1000))
		f.refused(wire.CodeLogBudgetExhausted, func() error { return errOf(f.send("alice", over)) })
		f.restoreChains(saved)

		before := f.fastCount()
		acks := f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("after")))
		if acks[0].Seq != 7 {
			t.Errorf("seq after the refusals = %d, want 7", acks[0].Seq)
		}
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("again")))
		if f.fastCount() == before {
			t.Errorf("the chain did not return to the fast path after the refusals")
		}
	})
}

// TestFastPathAcrossRelays: two Services on one database (as two relay
// processes on one PostgreSQL) send into the same group in turn, so each
// one's known heads go stale at every turn: every envelope is still
// accepted once, at consecutive seqs; and an access set published through
// one is enforced by the other at its next send.
func TestFastPathAcrossRelays(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		other := New(Config{Store: st, Clock: f.clock.now})
		g := id("g")
		svcs := []*Service{f.svc, other}
		for round := 0; round < 6; round++ {
			for s, svc := range svcs {
				author := []string{"alice", "bob"}[s]
				for k := 0; k < 3; k++ {
					e := f.next(author, g, wire.KindContent, []byte(fmt.Sprintf("%s %d %d", author, round, k)))
					acks, _, err := svc.Send(f.ctx, f.ws, principal(author), []wire.Envelope{e})
					if err != nil {
						t.Fatalf("round %d, %s: %v", round, author, err)
					}
					if want := uint64(round*6 + s*3 + k + 1); acks[0].Seq != want {
						t.Fatalf("round %d, %s: seq %d, want %d", round, author, acks[0].Seq, want)
					}
				}
			}
		}
		out, _ := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit)
		if len(out.Envelopes) != 36 || out.HeadSeq != 36 {
			t.Fatalf("%d envelopes, head %d", len(out.Envelopes), out.HeadSeq)
		}
		for i, e := range out.Envelopes {
			if e.Seq != uint64(i+1) {
				t.Fatalf("seq gap at %d: %d", i, e.Seq)
			}
		}

		// Bob is removed through the other relay; this one still has the
		// old set cached and Bob's chain warm.
		set := f.newSet(2, devices("alice"), "agent", "recovery")
		wire.SignAccessSet(&set, key("alice"))
		if _, err := other.Publish(f.ctx, f.ws, set); err != nil {
			t.Fatal(err)
		}
		f.refused(wire.CodeAuthRevoked, func() error {
			return errOf(f.send("bob", f.next("bob", g, wire.KindContent, []byte("after removal"))))
		})
	})
}

// TestSendGate drives store.Send directly: each gate refuses without
// storing, and a seq already taken is ErrConflict.
func TestSendGate(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, withBudget(100))
		g := id("g")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("one")))
		alice := wire.KeyID(pub(key("alice")))
		head := f.chains[chainKey{alice, g}]
		e := mk("alice", g, wire.KindContent, []byte("two"), head.ctr+1, head.prev)
		req := func(mod func(r *store.SendRequest)) store.SendRequest {
			r := store.SendRequest{Workspace: f.ws, AccessVersion: 1, MaxLogBytes: 100, Now: 1,
				Envelopes: []wire.Envelope{e}, Hashes: []wire.ID{e.Hash()}, Seqs: []uint64{2}, Heads: map[wire.ID]uint64{g: 1}}
			mod(&r)
			return r
		}
		noAwait := func() error { return nil }
		before := f.state()
		for name, mod := range map[string]func(r *store.SendRequest){
			"stale access set":  func(r *store.SendRequest) { r.AccessVersion = 0 },
			"over budget":       func(r *store.SendRequest) { r.MaxLogBytes = 4 },
			"unknown ws":        func(r *store.SendRequest) { r.Workspace = id("nowhere") },
			"busy, stale set":   func(r *store.SendRequest) { r.AccessVersion = 0; r.Busy = true },
			"busy, over budget": func(r *store.SendRequest) { r.MaxLogBytes = 4; r.Busy = true },
		} {
			if ok, err := st.Send(f.ctx, req(mod), noAwait); ok || err != nil {
				t.Errorf("%s: ok %v, err %v", name, ok, err)
			}
		}
		taken := req(func(r *store.SendRequest) { r.Seqs = []uint64{1}; r.Heads = map[wire.ID]uint64{g: 0} })
		if ok, err := st.Send(f.ctx, taken, noAwait); ok || (!errors.Is(err, store.ErrConflict) && err != nil) {
			t.Errorf("taken seq: ok %v, err %v", ok, err)
		}
		// Planned after a send that reserved seq 2 but never committed:
		// storing seq 3 would leave a gap.
		gap := req(func(r *store.SendRequest) { r.Seqs = []uint64{3}; r.Heads = map[wire.ID]uint64{g: 2} })
		if ok, err := st.Send(f.ctx, gap, noAwait); ok || err != nil {
			t.Errorf("after an uncommitted head: ok %v, err %v", ok, err)
		}
		awaitErr := errors.New("bad signature")
		if ok, err := st.Send(f.ctx, req(func(*store.SendRequest) {}), func() error { return awaitErr }); ok || !errors.Is(err, awaitErr) {
			t.Errorf("await error: ok %v, err %v", ok, err)
		}
		// A batch that may overlap the check with the statement
		// (PostgreSQL pipelines it): a gate that fails, or a check that
		// fails after the statement ran, leaves nothing either.
		e2 := mk("alice", g, wire.KindContent, []byte("three"), head.ctr+2, e.Hash())
		pair := func(mod func(r *store.SendRequest)) store.SendRequest {
			r := req(func(r *store.SendRequest) {
				r.Envelopes, r.Hashes, r.Seqs = []wire.Envelope{e, e2}, []wire.ID{e.Hash(), e2.Hash()}, []uint64{2, 3}
				r.Overlap = true
			})
			mod(&r)
			return r
		}
		if ok, err := st.Send(f.ctx, pair(func(r *store.SendRequest) { r.AccessVersion = 0 }), noAwait); ok || err != nil {
			t.Errorf("overlapped batch, stale set: ok %v, err %v", ok, err)
		}
		if ok, err := st.Send(f.ctx, pair(func(*store.SendRequest) {}), func() error { return awaitErr }); ok || !errors.Is(err, awaitErr) {
			t.Errorf("overlapped batch, await error: ok %v, err %v", ok, err)
		}
		if ok, err := st.Send(f.ctx, pair(func(r *store.SendRequest) { r.Overlap = false; r.MaxLogBytes = 5 }), noAwait); ok || err != nil {
			t.Errorf("batch over budget: ok %v, err %v", ok, err)
		}
		if after := f.state(); after != before {
			t.Fatalf("a refused gate changed state:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		// Both ways of sending a batch store it.
		if ok, err := st.Send(f.ctx, pair(func(r *store.SendRequest) { r.Overlap = false }), noAwait); !ok || err != nil {
			t.Fatalf("batch: ok %v, err %v", ok, err)
		}
		e3 := mk("alice", g, wire.KindContent, []byte("four"), head.ctr+3, e2.Hash())
		e4 := mk("alice", g, wire.KindContent, []byte("five"), head.ctr+4, e3.Hash())
		next := req(func(r *store.SendRequest) {
			r.Envelopes, r.Hashes, r.Seqs = []wire.Envelope{e3, e4}, []wire.ID{e3.Hash(), e4.Hash()}, []uint64{4, 5}
			r.Heads, r.Overlap = map[wire.ID]uint64{g: 3}, true
		})
		if ok, err := st.Send(f.ctx, next, noAwait); !ok || err != nil {
			t.Fatalf("overlapped batch: ok %v, err %v", ok, err)
		}
		e5 := mk("alice", g, wire.KindContent, []byte("six"), head.ctr+5, e4.Hash())
		busy := req(func(r *store.SendRequest) {
			r.Envelopes, r.Hashes, r.Seqs = []wire.Envelope{e5}, []wire.ID{e5.Hash()}, []uint64{6}
			r.Heads, r.Busy = map[wire.ID]uint64{g: 5}, true
		})
		if ok, err := st.Send(f.ctx, busy, noAwait); !ok || err != nil {
			t.Fatalf("one envelope while busy: ok %v, err %v", ok, err)
		}
		if out, _ := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit); out.HeadSeq != 6 || len(out.Envelopes) != 6 {
			t.Fatalf("head %d with %d envelopes after two batches and one more, want 6", out.HeadSeq, len(out.Envelopes))
		}
		// The drop check below builds on a group at head 1.
		g = id("g2")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("one")))
		alice2 := f.chains[chainKey{alice, g}]
		e = mk("alice", g, wire.KindContent, []byte("two"), alice2.ctr+1, alice2.prev)

		// PostgreSQL's gate reads the group row under a lock, so a
		// drop_before another relay committed past the assigned seq stops
		// the send even where the primary key would not (the rows it
		// dropped are gone). SQLite has one writer, and its gate compares
		// the head itself.
		if _, isPG := st.(interface{ URL() string }); !isPG {
			return
		}
		if err := st.Update(f.ctx, func(tx store.Tx) error { return tx.SetDroppedBelow(f.ctx, f.ws, g, 5) }); err != nil {
			t.Fatal(err)
		}
		if ok, err := st.Send(f.ctx, req(func(*store.SendRequest) {}), noAwait); ok || err != nil {
			t.Errorf("below a drop barrier: ok %v, err %v", ok, err)
		}
		if out, _ := f.svc.Fetch(f.ctx, f.ws, g, 0, MaxFetchLimit); out.HeadSeq != 1 {
			t.Errorf("head %d after a gated send, want 1", out.HeadSeq)
		}
	})
}
