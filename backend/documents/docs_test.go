package documents

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/wire"
)

func TestPostEditDeleteSaveLoad(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	c := a.channel(t, g)
	m1, _ := mustPost(t, c, "hello")
	a.clock.advance(time.Second)
	m2, _ := mustPost(t, c, "second")
	a.clock.advance(time.Second)
	day, _ := DayOf(t0)
	if _, err := c.Edit(day, m1.ID, "hello, edited"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Delete(day, m2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Edit(day, m2.ID, "again"); !errors.Is(err, ErrDeleted) {
		t.Fatalf("edit of deleted message: %v", err)
	}
	if _, _, err := c.Post(""); !errors.Is(err, ErrBadText) {
		t.Fatalf("empty post: %v", err)
	}

	store := map[DocID]Stored{}
	for _, d := range c.Dirty() {
		store[d.ID()] = Stored{Saved: saved(t, d), Pending: d.Pending()}
		if d.Ref().ID(g) != d.ID() {
			t.Fatalf("document %s has ref %+v", d.ID().Short(), d.Ref())
		}
	}
	if len(store) != 2 {
		t.Fatalf("dirty documents: %d, want index and one shard", len(store))
	}
	c2, err := OpenChannel(g, a.opts, func(id DocID) (Stored, bool, error) { s, ok := store[id]; return s, ok, nil })
	if err != nil {
		t.Fatal(err)
	}
	ms := allMessages(t, c2)
	if len(ms) != 2 || ms[0].Text != "hello, edited" || ms[0].Edited.IsZero() || !ms[1].Deleted || ms[1].Text != "" {
		t.Fatalf("after reload: %+v", ms)
	}
	if ms[0].Author != a.principal || ms[0].Device != a.device || !ms[0].Time.Equal(t0) {
		t.Fatalf("author/time: %+v", ms[0])
	}
	if got := c2.Index().Shards(); len(got) != 1 || got[0] != day {
		t.Fatalf("index shards: %v", got)
	}
}

func TestNotAuthorCannotEdit(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	m, p := mustPost(t, ca, "mine")
	mustApply(t, cb, a.device, p)
	day, _ := DayOf(t0)
	if _, err := cb.Edit(day, m.ID, "yours now"); !errors.Is(err, ErrNotAuthor) {
		t.Fatalf("edit by other principal: %v", err)
	}
	if _, err := cb.Delete(day, m.ID); !errors.Is(err, ErrNotAuthor) {
		t.Fatalf("delete by other principal: %v", err)
	}
	if _, err := cb.Edit(day, MessageID{1}, "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("edit of unknown message: %v", err)
	}
}

// Two replicas post concurrently (each creating the same day shard and
// index entry), then exchange payloads: both converge to the same messages
// and the same heads.
func TestConcurrentReplicasMerge(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	var fromA, fromB [][]byte
	for i := range 5 {
		a.clock.advance(time.Second)
		_, p := mustPost(t, ca, "a"+string(rune('0'+i)))
		fromA = append(fromA, p)
		b.clock.advance(time.Second)
		_, p = mustPost(t, cb, "b"+string(rune('0'+i)))
		fromB = append(fromB, p)
	}
	for _, p := range fromB {
		mustApply(t, ca, b.device, p)
	}
	for _, p := range fromA {
		mustApply(t, cb, a.device, p)
	}
	ma, mb := allMessages(t, ca), allMessages(t, cb)
	if len(ma) != 10 || !slices.Equal(texts(ma), texts(mb)) {
		t.Fatalf("a sees %v, b sees %v", texts(ma), texts(mb))
	}
	day, _ := DayOf(t0)
	sa, _ := ca.Shard(day)
	sb, _ := cb.Shard(day)
	if !equalHeads(sa.Heads(), sb.Heads()) || len(sa.Heads()) != 2 {
		t.Fatalf("heads differ or not concurrent: %v %v", sa.Heads(), sb.Heads())
	}
	if !equalHeads(ca.Index().Heads(), cb.Index().Heads()) || len(ca.Index().Shards()) != 1 {
		t.Fatalf("index differs: %v %v", ca.Index().Shards(), cb.Index().Shards())
	}
}

// One principal on two devices edits the same message concurrently, and
// edits another while the first device deletes it: both devices converge;
// the delete wins over the edit.
func TestConcurrentEditsConverge(t *testing.T) {
	a1, a2 := newReplica("a", 1), newReplica("a", 2)
	a2.device = id("device a, laptop")
	a2.opts.Author = a2.device
	// Both devices belong to one principal; the roster says so.
	sameUser := func(d wire.ID) (wire.ID, bool) { return a1.principal, d == a1.device || d == a2.device }
	a1.opts.PrincipalOf, a2.opts.PrincipalOf = sameUser, sameUser
	g := id("group")
	c1, c2 := a1.channel(t, g), a2.channel(t, g)
	m1, p1 := mustPost(t, c1, "one")
	m2, p2 := mustPost(t, c1, "two")
	mustApply(t, c2, a1.device, p1)
	mustApply(t, c2, a1.device, p2)
	day, _ := DayOf(t0)
	a1.clock.advance(time.Minute)
	a2.clock.advance(2 * time.Minute)
	e1, err := c1.Edit(day, m1.ID, "one from phone")
	if err != nil {
		t.Fatal(err)
	}
	e2, err := c2.Edit(day, m1.ID, "one from laptop")
	if err != nil {
		t.Fatal(err)
	}
	d1, err := c1.Delete(day, m2.ID)
	if err != nil {
		t.Fatal(err)
	}
	e3, err := c2.Edit(day, m2.ID, "two edited")
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, c1, a2.device, e2)
	mustApply(t, c1, a2.device, e3)
	mustApply(t, c2, a1.device, e1)
	mustApply(t, c2, a1.device, d1)
	ms1, ms2 := allMessages(t, c1), allMessages(t, c2)
	if !slices.Equal(texts(ms1), texts(ms2)) {
		t.Fatalf("diverged: %q vs %q", texts(ms1), texts(ms2))
	}
	if ms1[0].Text != "one from phone" && ms1[0].Text != "one from laptop" {
		t.Fatalf("edit lost: %q", ms1[0].Text)
	}
	if !ms1[1].Deleted || !ms2[1].Deleted || ms1[1].Text != "" {
		t.Fatalf("delete lost to a concurrent edit: %+v %+v", ms1[1], ms2[1])
	}
}

// Payloads applied in a shuffled order and repeated give the sender's
// document; held changes survive a save and load.
func TestApplyAnyOrderIdempotent(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	var ps [][]byte
	for i := range 30 {
		a.clock.advance(time.Second)
		_, p := mustPost(t, ca, "m"+string(rune('A'+i)))
		ps = append(ps, p)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	order := rng.Perm(len(ps))
	half := order[:15]
	for _, i := range half {
		mustApply(t, cb, a.device, ps[i])
	}
	// Save mid-way with changes held, reload, continue.
	store := map[DocID]Stored{}
	for _, d := range cb.Dirty() {
		store[d.ID()] = Stored{Saved: saved(t, d), Pending: d.Pending()}
	}
	day, _ := DayOf(t0)
	if s, _ := cb.Shard(day); s.PendingCount() == 0 {
		t.Fatal("expected held changes after a shuffled half")
	}
	cb2, err := OpenChannel(g, b.opts, func(id DocID) (Stored, bool, error) { s, ok := store[id]; return s, ok, nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range order {
		r := mustApply(t, cb2, a.device, ps[i])
		_ = r
	}
	r := mustApply(t, cb2, a.device, ps[0])
	if r.Applied != 0 || r.Duplicate == 0 {
		t.Fatalf("re-applying: %+v", r)
	}
	sa, _ := ca.Shard(day)
	sb, _ := cb2.Shard(day)
	if sb.PendingCount() != 0 || !equalHeads(sa.Heads(), sb.Heads()) {
		t.Fatalf("pending %d, heads %v vs %v", sb.PendingCount(), sa.Heads(), sb.Heads())
	}
	if got := texts(allMessages(t, cb2)); !slices.Equal(got, texts(allMessages(t, ca))) || len(got) != 30 {
		t.Fatalf("messages: %v", got)
	}
}

func TestRejectedInputLeavesDocumentUnchanged(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	_, p := mustPost(t, ca, "first")
	mustApply(t, cb, a.device, p)
	day, _ := DayOf(t0)
	shard, _ := cb.Shard(day)
	before, ibefore := state(shard.Document), state(cb.Index().Document)

	_, p2 := mustPost(t, ca, "second")
	dec, _ := DecodePayload(p2)
	good := dec.Docs[0].Changes
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	docChunk := saved(t, ca.Index().Document)
	cases := map[string][]byte{
		"garbage":        []byte("not automerge at all"),
		"truncated":      good[:len(good)-3],
		"flipped":        flipped,
		"trailing":       append(bytes.Clone(good), 0x85),
		"document chunk": docChunk,
	}
	for name, ch := range cases {
		if _, err := shard.Apply(a.device, ch); !errors.Is(err, ErrBadChanges) {
			t.Errorf("%s: err = %v, want ErrBadChanges", name, err)
		}
		pl := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: day}, Changes: ch}}}
		enc, _ := pl.Encode()
		if _, err := cb.Apply(a.device, enc); err == nil {
			t.Errorf("%s: channel accepted it", name)
		}
	}
	if _, err := cb.Apply(b.device, p2); !errors.Is(err, ErrWrongAuthor) {
		t.Errorf("wrong author: %v", err)
	}
	if _, err := cb.Apply(a.device, []byte{1, 2, 3}); !errors.Is(err, ErrBadPayload) {
		t.Errorf("bad payload: %v", err)
	}
	if !bytes.Equal(before, state(shard.Document)) || !bytes.Equal(ibefore, state(cb.Index().Document)) {
		t.Fatal("rejected input changed the document")
	}
	if got := texts(allMessages(t, cb)); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("messages: %v", got)
	}
}

// A change Automerge itself refuses (a second change reusing an actor's
// sequence number) in the second document of a payload rolls back the
// first document too.
func TestChannelApplyIsAtomic(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	cb := b.channel(t, g)
	day, _ := DayOf(t0)

	// Two shards written under one actor, both seq 1: different changes.
	actor := append(a.device[:], 1, 2, 3, 4, 5, 6, 7, 8)
	mk := func(text string) []byte {
		d := automerge.New()
		if err := d.SetActorID(bytesHex(actor)); err != nil {
			t.Fatal(err)
		}
		_ = d.RootMap().Set("m/00000000000000000000000000000001", map[string]any{"author": a.principal[:], "time": t0.UnixMilli(), "text": text})
		ts := t0
		h, err := d.Commit("", automerge.CommitOptions{Time: &ts})
		if err != nil {
			t.Fatal(err)
		}
		ch, _ := d.Change(h)
		return ch.Save()
	}
	first := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: day}, Changes: mk("x")}}}
	enc, _ := first.Encode()
	mustApply(t, cb, a.device, enc)

	ca := a.channel(t, g)
	a.clock.advance(24 * time.Hour)
	_, p := mustPost(t, ca, "tomorrow") // index change + a shard for day+1
	dec, _ := DecodePayload(p)
	bad := Payload{Docs: []DocChanges{dec.Docs[0], {Ref: DocRef{Kind: KindChat, Day: day}, Changes: mk("y")}}}
	enc, _ = bad.Encode()
	ibefore := state(cb.Index().Document)
	shard, _ := cb.Shard(day)
	sbefore := state(shard.Document)
	if _, err := cb.Apply(a.device, enc); !errors.Is(err, ErrBadChanges) {
		t.Fatalf("duplicate sequence number: %v", err)
	}
	if !bytes.Equal(ibefore, state(cb.Index().Document)) || !bytes.Equal(sbefore, state(shard.Document)) {
		t.Fatal("a refused payload left part of itself applied")
	}
	if len(cb.Index().Shards()) != 0 {
		t.Fatalf("index: %v", cb.Index().Shards())
	}
}

func bytesHex(b []byte) string {
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, hexd[c>>4], hexd[c&15])
	}
	return string(out)
}

func TestOutgoingSinceSyncPoint(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	_, p := mustPost(t, cb, "from b")
	mustApply(t, ca, b.device, p)
	mustPost(t, ca, "a1")
	day, _ := DayOf(t0)
	sa, _ := ca.Shard(day)
	sync := ca.SyncPoint()
	if len(sync) != 2 || !equalHeads(sync[sa.ID()], sa.Heads()) {
		t.Fatalf("sync point %v", sync)
	}
	mustPost(t, ca, "a2")
	mustPost(t, ca, "a3")
	out, err := ca.Outgoing(sync)
	if err != nil {
		t.Fatal(err)
	}
	// b has "from b" and gets only a's unsent changes: it lacks a1, so
	// those are held until a1 arrives.
	r := mustApply(t, cb, a.device, out)
	if r.Applied != 0 || r.Pending != 2 {
		t.Fatalf("unsent changes: %+v", r)
	}
	all, err := ca.Outgoing(nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, cb, a.device, all)
	if got := texts(allMessages(t, cb)); len(got) != 4 {
		t.Fatalf("messages: %v", got)
	}
	if _, err := ca.Outgoing(map[DocID][]Head{sa.ID(): {{9}}}); !errors.Is(err, ErrUnknownHeads) {
		t.Fatalf("unknown heads: %v", err)
	}
}

func TestSnapshot(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	c := a.channel(t, g)
	mustPost(t, c, "one")
	day, _ := DayOf(t0)
	s, _ := c.Shard(day)
	mid := s.Heads()
	mustPost(t, c, "two")

	snap := snapshot(t, s.Document)
	if err := VerifySnapshot(snap); err != nil {
		t.Fatal(err)
	}
	old, err := s.SnapshotAt(mid)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySnapshot(old); err != nil {
		t.Fatal(err)
	}
	d, err := LoadSnapshot(old, Options{Clock: a.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if !equalHeads(d.Heads(), mid) {
		t.Fatalf("snapshot at heads: %v want %v", d.Heads(), mid)
	}
	if old.Hash == snap.Hash {
		t.Fatal("different snapshots share a hash")
	}
	bad := snap
	bad.Heads = mid
	if err := VerifySnapshot(bad); !errors.Is(err, ErrBadSnapshot) {
		t.Fatalf("wrong heads: %v", err)
	}
	bad.Heads, bad.Hash = mid, SnapshotHash(snap.Doc, mid, snap.Bytes)
	if err := VerifySnapshot(bad); !errors.Is(err, ErrBadSnapshot) {
		t.Fatalf("rehashed wrong heads: %v", err)
	}
	bad = snap
	bad.Bytes = append(bytes.Clone(snap.Bytes[:len(snap.Bytes)-1]), snap.Bytes[len(snap.Bytes)-1]^1)
	if err := VerifySnapshot(bad); !errors.Is(err, ErrBadSnapshot) {
		t.Fatalf("tampered bytes: %v", err)
	}
	if _, err := s.SnapshotAt([]Head{{1}}); !errors.Is(err, ErrUnknownHeads) {
		t.Fatalf("unknown heads: %v", err)
	}
}

func TestMessagesAcrossDaysWithLimit(t *testing.T) {
	a := newReplica("a", 1)
	c := a.channel(t, id("group"))
	for i := range 3 {
		mustPost(t, c, "day"+string(rune('0'+i))+"a")
		a.clock.advance(time.Hour)
		mustPost(t, c, "day"+string(rune('0'+i))+"b")
		a.clock.advance(23 * time.Hour)
	}
	if n := len(c.Index().Shards()); n != 3 {
		t.Fatalf("shards: %d", n)
	}
	ms, err := c.Messages(3)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(ms); !slices.Equal(got, []string{"day1b", "day2a", "day2b"}) {
		t.Fatalf("newest 3: %v", got)
	}
}

func TestIDsAndDays(t *testing.T) {
	g := id("group")
	d, err := DayOf(t0)
	if err != nil || d.String() != "2026-12-01" {
		t.Fatalf("day %v %v", d, err)
	}
	if p, err := ParseDay("2026-12-01"); err != nil || p != d {
		t.Fatalf("parse %v %v", p, err)
	}
	if _, err := DayOf(time.Unix(-1, 0)); !errors.Is(err, ErrBadDay) {
		t.Fatal("day before 1970 accepted")
	}
	if ChatID(g, d) == ChatID(g, d+1) || ChatID(g, d) == ChatID(id("other"), d) || ChatID(g, d) == DocID(IndexID(g)) {
		t.Fatal("document ids collide")
	}
	if (DocRef{Kind: KindChat, Day: d}).ID(g) != ChatID(g, d) {
		t.Fatal("DocRef.ID")
	}
}

func TestPayloadEncoding(t *testing.T) {
	p := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindIndex}, Changes: []byte{1}}, {Ref: DocRef{Kind: KindChat, Day: 7}, Changes: []byte{2, 3}}}}
	b, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodePayload(b)
	if err != nil || len(q.Docs) != 2 || q.Docs[1].Ref.Day != 7 || !bytes.Equal(q.Docs[1].Changes, []byte{2, 3}) {
		t.Fatalf("round trip: %+v %v", q, err)
	}
	bad := []Payload{
		{},
		{Docs: []DocChanges{{Ref: DocRef{Kind: KindIndex, Day: 1}, Changes: []byte{1}}}},
		{Docs: []DocChanges{{Ref: DocRef{Kind: 9}, Changes: []byte{1}}}},
		{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: MaxDay + 1}, Changes: []byte{1}}}},
		{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: 1}}}},
		{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: 1}, Changes: []byte{1}}, {Ref: DocRef{Kind: KindChat, Day: 1}, Changes: []byte{1}}}},
	}
	for i, p := range bad {
		b, _ := p.Encode()
		if _, err := DecodePayload(b); !errors.Is(err, ErrBadPayload) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	if _, err := DecodePayload(append(b, 0)); !errors.Is(err, ErrBadPayload) {
		t.Error("trailing byte accepted")
	}
	b[0] = 2
	if _, err := DecodePayload(b); !errors.Is(err, ErrBadPayload) {
		t.Error("version 2 accepted")
	}
}
