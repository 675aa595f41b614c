package documents

import (
	"testing"
	"time"
)

// The header rules Apply enforces hold for every change real replicas make:
// concurrent posts, merges, edits and deletes on two devices.
func TestChangeRulesHoldForRealChanges(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	day, _ := DayOf(t0)
	for i := range 20 {
		a.clock.advance(time.Second)
		m, p := mustPost(t, ca, "a")
		mustApply(t, cb, a.device, p)
		_, p = mustPost(t, cb, "b")
		if i%3 == 0 {
			mustApply(t, ca, b.device, p)
			e, err := ca.Edit(day, m.ID, "edited")
			if err != nil {
				t.Fatal(err)
			}
			mustApply(t, cb, a.device, e)
		} else {
			defer mustApply(t, ca, b.device, p) // concurrent: delivered late
		}
	}
	// Replay everything b has into a fresh read-only document under the
	// rules, in dependency order: nothing may be refused.
	s, _ := cb.Shard(day)
	chs, err := s.doc.Changes()
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewShard(g, day, Options{Clock: a.clock.now})
	var all []rawChange
	for _, ch := range chs {
		rc, _, err := parseChunk(ch.Save())
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rc)
	}
	if _, err := fresh.applyRaw(all); err != nil {
		t.Fatalf("a real change broke the rules: %v", err)
	}
	if !equalHeads(fresh.Heads(), s.Heads()) {
		t.Fatal("replay differs")
	}
}

// Changes that Automerge's apply accepts but that would leave a document
// its own save cannot reload are refused: a skipped sequence number and a
// wrong start op.
func TestPoisonedHeadersRefused(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	src := a.channel(t, g)
	day, _ := DayOf(t0)
	var chunks []rawChange
	for i := range 2 {
		a.clock.advance(time.Second)
		_, p := mustPost(t, src, "seed"+string(rune('0'+i)))
		dec, _ := DecodePayload(p)
		cs, _ := splitChanges(dec.Docs[len(dec.Docs)-1].Changes)
		chunks = append(chunks, cs[0])
	}
	c := chunks[1].bytes
	_, n, _ := uleb(c[9:])
	body := c[9+n:]
	seqOff := 1 + 32*int(body[0]) + 1 + 40
	for name, edit := range map[string]func(b []byte){
		"seq skipped":   func(b []byte) { b[seqOff] = 5 },
		"start op low":  func(b []byte) { b[seqOff+1] = 1 },
		"start op high": func(b []byte) { b[seqOff+1] = 9 },
	} {
		mod := append([]byte{}, body...)
		edit(mod)
		s, _ := NewShard(g, day, Options{Clock: a.clock.now})
		if _, err := s.Apply(a.device, chunks[0].bytes); err != nil {
			t.Fatal(err)
		}
		before := state(s.Document)
		if _, err := s.Apply(a.device, frameChange(mod)); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if string(before) != string(state(s.Document)) {
			t.Errorf("%s: document changed", name)
		}
		if _, err := LoadShard(g, day, s.doc.Save(), nil, Options{Clock: a.clock.now}); err != nil {
			t.Errorf("%s: document no longer loads: %v", name, err)
		}
	}
}

// A change Automerge applies but its loader would refuse (found by
// FuzzApplyFramed: an empty change carrying a stray column) is dropped by
// Save, reported by TakeRejected, and the saved document loads with every
// other change in it.
func TestSaveDropsUnloadableChange(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	src := a.channel(t, g)
	_, p := mustPost(t, src, "good")
	dec, _ := DecodePayload(p)
	good := dec.Docs[len(dec.Docs)-1].Changes
	actor := append(append([]byte{}, a.device[:]...), []byte("00000000")...)
	body := []byte{0, 40}
	body = append(body, actor...)
	body = append(body, 1, 1, '0', 0, 0, 1, 0x30, 1, '0') // seq 1, start op 1, time, no message, no actors, one stray column
	bad := frameChange(body)

	day, _ := DayOf(t0)
	s, _ := NewShard(g, day, Options{Clock: a.clock.now})
	if _, err := s.Apply(a.device, good); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(a.device, bad); err != nil {
		t.Fatalf("Automerge (pinned version) refuses this change at apply now: %v", err)
	}
	if loadsTo(s.doc.Save(), s.Heads()) {
		t.Fatal("the stray-column change no longer breaks loading; pick another")
	}
	b := saved(t, s.Document)
	rej := s.TakeRejected()
	if len(rej) != 1 {
		t.Fatalf("rejected %v", rej)
	}
	l, err := LoadShard(g, day, b, nil, Options{Clock: a.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Messages(); len(got) != 1 || got[0].Text != "good" {
		t.Fatalf("messages after the drop: %+v", got)
	}
	if l.Has(rej[0]) {
		t.Fatal("the dropped change is still there")
	}
}

// A client that reopens its documents writes under a fresh actor; a peer
// applies the new session's changes under the same rules.
func TestNewSessionChangesApply(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	_, p := mustPost(t, ca, "before restart")
	mustApply(t, cb, a.device, p)
	store := map[DocID]Stored{}
	for _, d := range ca.Dirty() {
		store[d.ID()] = Stored{Saved: saved(t, d), Pending: d.Pending()}
	}
	ca2, err := OpenChannel(g, a.opts, func(id DocID) (Stored, bool, error) { s, ok := store[id]; return s, ok, nil })
	if err != nil {
		t.Fatal(err)
	}
	a.clock.advance(time.Minute)
	day, _ := DayOf(t0)
	s1, _ := ca.Shard(day)
	s2, _ := ca2.Shard(day)
	if s1.doc.ActorID() == s2.doc.ActorID() {
		t.Fatal("the reopened document writes under the old actor")
	}
	_, p = mustPost(t, ca2, "after restart")
	mustApply(t, cb, a.device, p)
	if got := texts(allMessages(t, cb)); len(got) != 2 || got[1] != "after restart" {
		t.Fatalf("messages %v", got)
	}
	sb, _ := cb.Shard(day)
	if _, err := LoadShard(g, day, saved(t, sb.Document), nil, b.opts); err != nil {
		t.Fatal(err)
	}
}
