package retention

import (
	"errors"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/wire"
)

func readOpts() documents.Options {
	return documents.Options{Clock: func() time.Time { return time.Time{} }}
}

func TestCheckpointWrittenVerifiesAndHoldsEveryMessage(t *testing.T) {
	c := newChannel(t, 300, 30)
	w := write(t, c)
	if len(w.m.Documents) != 31 {
		t.Fatalf("inventory holds %d documents, want every one of 30 daily shards and the index", len(w.m.Documents))
	}
	m, err := DecodeManifest(w.m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	w.m = m
	snaps, err := Verify(&w.cp, w.check(c))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, s := range snaps {
		if m.Documents[i].Key.Kind != KindChat {
			continue
		}
		sh, err := documents.LoadShard(testGroup, documents.Day(m.Documents[i].Key.Day), s.Bytes, nil, readOpts())
		if err != nil {
			t.Fatal(err)
		}
		n += len(sh.Messages())
	}
	if n != 300 {
		t.Fatalf("the snapshots hold %d messages, want 300", n)
	}
}

// Each tampering a member could try, and what a receiver holding the
// envelopes answers.
func TestTamperedCheckpointsAreRefused(t *testing.T) {
	c := newChannel(t, 60, 6)
	cases := []struct {
		name   string
		tamper func(t *testing.T, w *written)
		want   error
	}{
		{"shard left out", func(t *testing.T, w *written) {
			w.m.Documents = w.m.Documents[1:]
			w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(5))
		}, ErrOmitted},
		{"wrong snapshot hash", func(t *testing.T, w *written) {
			w.m.Documents[2].SnapshotHash[0] ^= 1
			w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(5))
		}, ErrBadCheckpoint},
		{"snapshot bytes swapped", func(t *testing.T, w *written) {
			r0, r1 := w.m.Documents[0].Snapshot, w.m.Documents[1].Snapshot
			w.snaps[r0], w.snaps[r1] = w.snaps[r1], w.snaps[r0]
		}, ErrBadCheckpoint},
		{"barrier above: a snapshot holds a change past it", func(t *testing.T, w *written) {
			k := w.m.Documents[3].Key
			c.sets[k] = c.sets[k][:len(c.sets[k])-1] // the receiver's barrier set ends one change earlier
		}, ErrBarrier},
		{"barrier below: a snapshot lacks a change at it", func(t *testing.T, w *written) {
			e := &w.m.Documents[4]
			sh := c.shards[e.Key]
			set := c.sets[e.Key]
			heads, err := sh.Frontier(set[:len(set)-1])
			if err != nil {
				t.Fatal(err)
			}
			s, err := sh.SnapshotAt(heads)
			if err != nil {
				t.Fatal(err)
			}
			e.Heads, e.SnapshotHash = s.Heads, s.Hash
			w.snaps[e.Snapshot] = s.Bytes
			w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(5))
		}, ErrBarrier},
		{"signer outside the chain", func(t *testing.T, w *written) {
			w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(6))
		}, ErrNotInChain},
		{"signer a superseded key", func(t *testing.T, w *written) {
			next := Successor(testGroup, 2, key(5), key(6))
			if err := w.chain.Add(&next, nil); err != nil {
				t.Fatal(err)
			}
		}, ErrNotInChain},
		{"manifest changed after signing", func(t *testing.T, w *written) {
			w.cp.Manifest = append([]byte(nil), w.cp.Manifest...)
			w.cp.Manifest[len(w.cp.Manifest)-1] ^= 1
		}, ErrBadCheckpoint},
		{"snapshot list differs from the manifest", func(t *testing.T, w *written) {
			w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs()[1:], w.m.Encode(), key(5))
		}, ErrBadCheckpoint},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			saved := map[DocKey][]documents.Head{}
			for k, v := range c.sets {
				saved[k] = v
			}
			defer func() { c.sets = saved }()
			w := write(t, c)
			if _, err := Verify(&w.cp, w.check(c)); err != nil {
				t.Fatalf("untampered: %v", err)
			}
			tc.tamper(t, w)
			_, err := Verify(&w.cp, w.check(c))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// Beneath a drop a receiver cannot replay: it checks signature, chain,
// inventory and every snapshot, and reads from them.
func TestCheckpointBeneathADropVerifiesWithoutSets(t *testing.T) {
	c := newChannel(t, 40, 4)
	w := write(t, c)
	ch := w.check(c)
	ch.Sets, ch.Frontier = nil, nil
	if _, err := Verify(&w.cp, ch); err != nil {
		t.Fatal(err)
	}
	w.m.Documents[0].SnapshotHash[5] ^= 1
	if _, err := Verify(&w.cp, ch); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("got %v", err)
	}
}

func TestWriterRefusesABarrierSetMissingAnAncestor(t *testing.T) {
	c := newChannel(t, 10, 1)
	src := c.sources()
	src[0].Set = src[0].Set[1:] // the first change left out, its successors kept
	if _, _, err := Snapshots(src); !errors.Is(err, documents.ErrNotClosed) {
		t.Fatalf("got %v, want docs/not_closed", err)
	}
}

func TestManifestRoundTripAndRefusals(t *testing.T) {
	c := newChannel(t, 20, 3)
	w := write(t, c)
	b := w.m.Encode()
	m, err := DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Encode()) != string(b) {
		t.Fatal("re-encoding differs")
	}
	bad := []func(m *Manifest){
		func(m *Manifest) { m.Documents[0], m.Documents[1] = m.Documents[1], m.Documents[0] },
		func(m *Manifest) { m.Documents[1] = m.Documents[0] },
		func(m *Manifest) { m.Documents[0].Doc[0] ^= 1 },
		func(m *Manifest) { m.Documents[0].Key.Kind = 2 },
		func(m *Manifest) { m.Documents[0].Heads = nil },
	}
	for i, f := range bad {
		m, _ := DecodeManifest(b)
		f(&m)
		if _, err := DecodeManifest(m.Encode()); !errors.Is(err, ErrBadManifest) {
			t.Errorf("case %d: got %v", i, err)
		}
	}
	if _, err := DecodeManifest(append(b, 0)); !errors.Is(err, ErrBadManifest) {
		t.Errorf("trailing byte: %v", err)
	}
	v4 := append([]byte{4}, b[1:]...)
	if _, err := DecodeManifest(v4); !errors.Is(err, ErrBadManifest) {
		t.Errorf("version 4: %v", err)
	}
	// Version 1 (before the index) without index_snapshot_hash but with
	// the index entry.
	v1 := append([]byte{1}, b[1:1+32+16]...)
	v1 = append(v1, b[1+32+16+32:]...)
	if _, err := DecodeManifest(v1); !errors.Is(err, ErrBadManifest) {
		t.Errorf("version 1 listing an index: %v", err)
	}
}

func FuzzDecodeManifest(f *testing.F) {
	c := newChannel(f, 6, 2)
	f.Add(write(f, c).m.Encode())
	f.Add(writeWith(f, c).m.Encode()) // version 1, without the index
	f.Add([]byte{1})
	p := write(f, c).m
	p.OmitsExpired = true
	f.Add(p.Encode()) // version 3
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeManifest(b)
		if err != nil {
			if !errors.Is(err, ErrBadManifest) {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		if string(m.Encode()) != string(b) {
			t.Fatal("a decoded manifest re-encodes differently")
		}
		_ = m.Refs()
		_ = wire.ID{}
	})
}

// A receiver without the key of a closed group's older epoch cannot open
// that shard's snapshot: where it cannot replay, the entry is skipped (the
// signed manifest covers it) and the others are read; an entry missing
// without being sealed, or one sealed where the receiver replays, is
// still refused.
func TestSealedSnapshotSkippedOnlyWithoutSets(t *testing.T) {
	c := newChannel(t, 40, 4)
	w := write(t, c)
	first := w.m.Documents[0].Snapshot
	delete(w.snaps, first)
	ch := w.check(c)
	ch.Sealed = map[wire.EnvelopeRef]bool{first: true}
	if _, err := Verify(&w.cp, ch); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("a receiver that replays accepted a snapshot it cannot open: %v", err)
	}
	ch.Sets, ch.Frontier = nil, nil
	opened, err := Verify(&w.cp, ch)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened[0].Heads) != 0 || len(opened[1].Heads) == 0 {
		t.Fatalf("the sealed entry was read or another was skipped: %d, %d heads", len(opened[0].Heads), len(opened[1].Heads))
	}
	ch.Sealed = nil
	if _, err := Verify(&w.cp, ch); !errors.Is(err, ErrBadCheckpoint) {
		t.Fatalf("a missing snapshot was accepted: %v", err)
	}
}

// The index (spec/lifecycle.md "Checkpoints": index_snapshot_hash is "the
// snapshot that discovers that inventory"; receivers verify "the index
// inventory"): a manifest with the index entry encodes as version 2 with
// the index's hash. Receivers, replaying or beneath a drop, refuse a
// checkpoint without an index (version 1, as written before it), an index
// missing a shard's day or listing a day the inventory lacks, an index
// snapshot whose bytes are not the ones its entry names, and a wrong
// index_snapshot_hash.
func TestIndexSnapshotListsTheInventory(t *testing.T) {
	c := newChannel(t, 60, 6)
	days := func(skip int, extra ...documents.Day) []documents.Day {
		var out []documents.Day
		for i, d := range c.days() {
			if i != skip {
				out = append(out, d)
			}
		}
		return append(out, extra...)
	}
	w := write(t, c)
	ix, ok := w.m.Index()
	if !ok || w.m.Encode()[0] != 2 {
		t.Fatal("the manifest carries no index or is not version 2")
	}
	m, err := DecodeManifest(w.m.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Index(); got.SnapshotHash != ix.SnapshotHash {
		t.Fatal("index_snapshot_hash does not round-trip")
	}
	for _, replays := range []bool{true, false} {
		verify := func(w *written) error {
			ch := w.check(c)
			if !replays {
				ch.Sets, ch.Frontier = nil, nil // a joiner beneath a drop
			}
			_, err := Verify(&w.cp, ch)
			return err
		}
		if err := verify(w); err != nil {
			t.Fatalf("replays %v: %v", replays, err)
		}
		if err := verify(writeWith(t, c)); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("replays %v: no index: %v", replays, err)
		}
		if err := verify(writeWith(t, c, index(t, days(2)))); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("replays %v: an index missing a shard: %v", replays, err)
		}
		if err := verify(writeWith(t, c, index(t, days(-1, c.days()[0]-1)))); !errors.Is(err, ErrOmitted) {
			t.Errorf("replays %v: an index listing a day without a shard: %v", replays, err)
		}
		altered := write(t, c)
		e, _ := altered.m.Index()
		b := append([]byte(nil), altered.snaps[e.Snapshot]...)
		b[len(b)/2] ^= 1
		altered.snaps[e.Snapshot] = b
		if err := verify(altered); !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("replays %v: altered index bytes: %v", replays, err)
		}
	}
	// A channel with no message yet: the index lists no day and still has
	// heads, so the manifest decodes and the checkpoint verifies.
	empty := &channel{shards: map[DocKey]*documents.Shard{}, sets: map[DocKey][]documents.Head{}}
	ew := write(t, empty)
	if _, err := DecodeManifest(ew.m.Encode()); err != nil {
		t.Fatalf("the manifest of an empty channel: %v", err)
	}
	if _, err := Verify(&ew.cp, ew.check(empty)); err != nil {
		t.Fatalf("the checkpoint of an empty channel: %v", err)
	}
	b := w.m.Encode()
	b[1+32+16] ^= 1 // index_snapshot_hash
	if _, err := DecodeManifest(b); !errors.Is(err, ErrBadManifest) {
		t.Fatalf("a wrong index_snapshot_hash: %v", err)
	}
}
