package documents

import (
	"bytes"
	"crypto/sha256"
	"testing"
	"time"
)

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// FuzzApply feeds arbitrary bytes as received changes to a document that
// already holds content: it must never panic, and when it returns an error
// the document must be exactly as it was.
func FuzzApply(f *testing.F) {
	a := newReplica("a", 1)
	g := id("group")
	src := a.channel(f, g)
	var seeds [][]byte
	for i := range 3 {
		a.clock.advance(time.Second)
		_, p := mustPost(f, src, "seed"+string(rune('0'+i)))
		dec, err := DecodePayload(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, dec.Docs[len(dec.Docs)-1].Changes)
	}
	f.Add(seeds[0])
	f.Add(seeds[2])
	f.Add(append(bytes.Clone(seeds[1]), seeds[0]...))
	f.Add([]byte{0x85, 0x6f, 0x4a, 0x83, 0, 0, 0, 0, 1, 0})
	day, _ := DayOf(t0)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewShard(g, day, Options{Clock: a.clock.now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(a.device, seeds[0]); err != nil {
			t.Fatal(err)
		}
		before := state(s.Document)
		if _, err := s.Apply(a.device, b); err != nil {
			if !bytes.Equal(before, state(s.Document)) {
				t.Fatalf("rejected changes altered the document: %v", err)
			}
			return
		}
		_ = s.Messages() // reading whatever was accepted must not panic
		if _, err := LoadShard(g, day, saved(t, s.Document), s.Pending(), Options{Clock: a.clock.now}); err != nil {
			t.Fatalf("accepted changes do not survive save and load: %v", err)
		}
	})
}

// FuzzDecodePayload: the payload decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodePayload(f *testing.F) {
	p := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindIndex}, Changes: []byte{1}}, {Ref: DocRef{Kind: KindChat, Day: 20000}, Changes: []byte{2, 3}}}}
	b, _ := p.Encode()
	f.Add(b)
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePayload(b)
		if err != nil {
			return
		}
		again, err := p.Encode()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs: %v", err)
		}
	})
}

// FuzzVerifySnapshot: arbitrary snapshot bytes never panic the verifier.
func FuzzVerifySnapshot(f *testing.F) {
	a := newReplica("a", 1)
	c := a.channel(f, id("group"))
	mustPost(f, c, "x")
	day, _ := DayOf(t0)
	s, _ := c.Shard(day)
	snap := snapshot(f, s.Document)
	f.Add(snap.Bytes)
	f.Fuzz(func(t *testing.T, b []byte) {
		s := Snapshot{Doc: snap.Doc, Heads: snap.Heads, Bytes: b, Hash: SnapshotHash(snap.Doc, snap.Heads, b)}
		if err := VerifySnapshot(s); err == nil && !bytes.Equal(b, snap.Bytes) {
			// A different encoding of the same heads is acceptable only
			// if it really loads to them, which VerifySnapshot checked.
			if _, err := LoadSnapshot(s, Options{Clock: a.clock.now}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// frameChange wraps contents in a valid change-chunk header with a correct
// checksum, so that fuzzed contents get past the framing checks and reach
// Automerge's own change parser.
func frameChange(contents []byte) []byte {
	b := append([]byte{}, chunkMagic[:]...)
	b = append(b, 0, 0, 0, 0, chunkTypeChange)
	n := uint64(len(contents))
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			b = append(b, c|0x80)
			continue
		}
		b = append(b, c)
		break
	}
	b = append(b, contents...)
	sum := sha256Sum(b[8:])
	copy(b[4:8], sum[:4])
	return b
}

// FuzzApplyFramed fuzzes the contents of a well-framed change chunk whose
// actor is the envelope author's: Automerge parses and applies it, and it
// must neither crash nor, on error, change the document.
func FuzzApplyFramed(f *testing.F) {
	a := newReplica("a", 1)
	g := id("group")
	src := a.channel(f, g)
	var contents [][]byte
	for i := range 3 {
		a.clock.advance(time.Second)
		_, p := mustPost(f, src, "seed"+string(rune('0'+i)))
		dec, _ := DecodePayload(p)
		cs, err := splitChanges(dec.Docs[len(dec.Docs)-1].Changes)
		if err != nil {
			f.Fatal(err)
		}
		c := cs[0].bytes
		_, n, _ := uleb(c[9:])
		contents = append(contents, bytes.Clone(c[9+n:]))
	}
	for _, c := range contents {
		f.Add(c)
	}
	day, _ := DayOf(t0)
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := NewShard(g, day, Options{Clock: a.clock.now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(a.device, frameChange(contents[0])); err != nil {
			t.Fatal(err)
		}
		before := state(s.Document)
		ch := frameChange(body)
		if _, err := s.Apply(a.device, ch); err != nil {
			if !bytes.Equal(before, state(s.Document)) {
				t.Fatalf("rejected change altered the document: %v", err)
			}
			return
		}
		_ = s.Messages()
		if _, err := LoadShard(g, day, saved(t, s.Document), s.Pending(), Options{Clock: a.clock.now}); err != nil {
			t.Fatalf("accepted change does not survive save and load: %v", err)
		}
	})
}

// FuzzDecodeOps: the pure-Go change header and operation decoders never
// panic on any change contents, and agree with themselves on the op count.
func FuzzDecodeOps(f *testing.F) {
	a := newReplica("a", 1)
	c := a.channel(f, id("group"))
	m, p := mustPost(f, c, "seed")
	day, _ := DayOf(t0)
	e, _ := c.Edit(day, m.ID, "edited")
	for _, pl := range [][]byte{p, e} {
		dec, _ := DecodePayload(pl)
		for _, d := range dec.Docs {
			cs, _ := splitChanges(d.Changes)
			for _, ch := range cs {
				_, n, _ := uleb(ch.bytes[9:])
				f.Add(bytes.Clone(ch.bytes[9+n:]))
			}
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cs, err := splitChanges(frameChange(body))
		if err != nil {
			return
		}
		ops, err := decodeOps(cs[0])
		if err != nil {
			return
		}
		if uint64(len(ops)) != cs[0].ops {
			t.Fatalf("%d ops decoded, %d counted", len(ops), cs[0].ops)
		}
	})
}
