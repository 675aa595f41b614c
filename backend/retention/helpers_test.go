package retention

import (
	"crypto/ed25519"
	"math/rand/v2"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/wire"
)

type chachaRand struct{ r *rand.ChaCha8 }

func (c chachaRand) Read(p []byte) (int, error) { return c.r.Read(p) }

func seeded(b byte) chachaRand { return chachaRand{rand.NewChaCha8([32]byte{b})} }

func key(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(append(make([]byte, 31), b)) }

var testGroup = wire.ID{7}

// channel is a group's shards written by one author over days, with the
// change set of every message (as the writer reads it from the envelopes).
type channel struct {
	shards map[DocKey]*documents.Shard
	sets   map[DocKey][]documents.Head
	order  []DocKey
}

// newChannel posts n messages spread over days days.
func newChannel(t testing.TB, n, days int) *channel {
	t.Helper()
	c := &channel{shards: map[DocKey]*documents.Shard{}, sets: map[DocKey][]documents.Head{}}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	now := start
	opts := documents.Options{Author: wire.ID{1}, Principal: wire.ID{2}, Clock: func() time.Time { return now }, Rand: seeded(3)}
	for i := 0; i < n; i++ {
		now = start.Add(time.Duration(i*days) * 24 * time.Hour / time.Duration(n))
		day, _ := documents.DayOf(now)
		k := DocKey{Kind: KindChat, Day: uint32(day)}
		s := c.shards[k]
		if s == nil {
			var err error
			if s, err = documents.NewShard(testGroup, day, opts); err != nil {
				t.Fatal(err)
			}
			c.shards[k] = s
			c.order = append(c.order, k)
		}
		_, ch, err := s.Post("message")
		if err != nil {
			t.Fatal(err)
		}
		p := documents.Payload{Docs: []documents.DocChanges{{Ref: documents.DocRef{Kind: documents.KindChat, Day: day}, Changes: ch}}}
		pb, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		hs, err := documents.ChangeHashes(pb)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			c.sets[k] = append(c.sets[k], h...)
		}
	}
	return c
}

func (c *channel) sources() []Source {
	var out []Source
	for _, k := range c.order {
		out = append(out, Source{Key: k, Doc: c.shards[k].Document, Set: c.sets[k]})
	}
	return out
}

func (c *channel) frontier(k DocKey, set []documents.Head) ([]documents.Head, error) {
	return c.shards[k].Frontier(set)
}

// written is a checkpoint as a writer makes it, with what a receiver opens.
type written struct {
	cp    wire.Checkpoint
	m     Manifest
	snaps map[wire.EnvelopeRef][]byte
	chain Chain
}

// write checkpoints c, with an index listing every day of c, under a
// one-key chain rooted by device key 9.
func write(t testing.TB, c *channel) *written {
	t.Helper()
	return writeWith(t, c, index(t, c.days()))
}

// days are the days of c's shards.
func (c *channel) days() []documents.Day {
	var out []documents.Day
	for _, k := range c.order {
		out = append(out, documents.Day(k.Day))
	}
	return out
}

// index is the index source of a checkpoint over days.
func index(t testing.TB, days []documents.Day) Source {
	t.Helper()
	ix, err := IndexSource(testGroup, days, documents.Options{Author: wire.ID{1}, Clock: func() time.Time { return time.Unix(1, 0) }, Rand: seeded(9)})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// writeWith checkpoints c's shards and extra (the index, or none).
func writeWith(t testing.TB, c *channel, extra ...Source) *written {
	t.Helper()
	keys, snaps, err := Snapshots(append(c.sources(), extra...))
	if err != nil {
		t.Fatal(err)
	}
	w := &written{snaps: map[wire.EnvelopeRef][]byte{}}
	refs := make([]wire.EnvelopeRef, len(snaps))
	for i, s := range snaps {
		refs[i] = wire.EnvelopeRef{Author: wire.ID{1}, Ctr: uint64(100 + i), Hash: wire.ID(s.Hash)}
		w.snaps[refs[i]] = s.Bytes
	}
	w.m = Manifest{Group: testGroup, CreatedAt: 1, Changes: 1, Documents: Entries(keys, snaps, refs)}
	rk := key(5)
	root := Root(testGroup, 1, rk, key(9))
	if err := w.chain.Add(&root, Pub(key(9))); err != nil {
		t.Fatal(err)
	}
	w.cp = Sign(testGroup, []wire.EnvelopeRef{{Author: wire.ID{1}, Ctr: 99}}, w.m.Refs(), w.m.Encode(), rk)
	return w
}

func (w *written) check(c *channel) Check {
	return Check{Chain: &w.chain, Manifest: &w.m, Snapshots: w.snaps, Sets: c.sets, Frontier: c.frontier}
}
