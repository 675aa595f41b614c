package documents

import (
	"errors"
	"testing"
	"time"

	"weald/backend/wire"
)

// A member's change that deletes, overwrites or shadows another member's
// message at the shard root, or writes a foreign key into the index, is
// refused and changes nothing.
func TestForbiddenRootChangesRefused(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	m, p := mustPost(t, ca, "a's message")
	mustApply(t, cb, a.device, p)
	day, _ := DayOf(t0)
	key := msgPrefix + m.ID.String()

	hostile := map[string]func(s *Shard) error{
		"delete": func(s *Shard) error { return s.root().Delete(key) },
		"overwrite": func(s *Shard) error {
			return s.root().Set(key, "gone")
		},
		"shadow": func(s *Shard) error {
			return s.root().Set(key, map[string]any{"author": b.principal[:], "time": t0.UnixMilli(), "text": "forged"})
		},
		"stray root key": func(s *Shard) error { return s.root().Set("title", "mine") },
		"edit another's text": func(s *Shard) error {
			v, err := s.root().Get(key)
			if err != nil {
				return err
			}
			return v.Map().Set("text", "rewritten by b")
		},
		"delete another's message": func(s *Shard) error {
			v, err := s.root().Get(key)
			if err != nil {
				return err
			}
			return v.Map().Set("deleted", true)
		},
	}
	for name, edit := range hostile {
		// b forks its shard so each attempt starts from the same state.
		sb, _ := cb.Shard(day)
		fork, err := LoadShard(g, day, saved(t, sb.Document), nil, b.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := edit(fork); err != nil {
			t.Fatal(err)
		}
		b.clock.advance(time.Second)
		ch, err := fork.commitAt(b.clock.now())
		if err != nil {
			t.Fatal(err)
		}
		sa, _ := ca.Shard(day)
		before := state(sa.Document)
		if _, err := sa.Apply(b.device, ch); !errors.Is(err, ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", name, err)
		}
		if string(before) != string(state(sa.Document)) {
			t.Errorf("%s: document changed", name)
		}
	}
	if got := texts(allMessages(t, ca)); len(got) != 1 || got[0] != "a's message" {
		t.Fatalf("messages %v", got)
	}

	// The index takes only chat entries.
	ib, err := LoadIndex(g, saved(t, cb.Index().Document), nil, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ib.root().Set("admin", "b"); err != nil {
		t.Fatal(err)
	}
	ch, err := ib.commitAt(b.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Index().Apply(b.device, ch); !errors.Is(err, ErrForbidden) {
		t.Fatalf("foreign index key: %v", err)
	}
	// Legitimate edits and deletes of one's own messages still pass.
	e, err := ca.Edit(day, m.ID, "edited")
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, cb, a.device, e)
	dl, err := ca.Delete(day, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, cb, a.device, dl)
}

// A member who posts under another member's name is caught: the message's
// device comes from the change that created it, not from its fields, and
// the claimed author is checked against that device's principal.
func TestImpersonationMarkedForged(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	principals := map[[32]byte][32]byte{a.device: a.principal, b.device: b.principal}
	a.opts.PrincipalOf = func(d wire.ID) (wire.ID, bool) { p, ok := principals[d]; return p, ok }
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	_, p := mustPost(t, cb, "honest")
	mustApply(t, ca, b.device, p)

	// b writes a message claiming to be from a, from a's device.
	day, _ := DayOf(t0)
	sb, _ := cb.Shard(day)
	if err := sb.root().Set(msgPrefix+"0123456789abcdef0123456789abcdef", map[string]any{
		"author": a.principal[:], "device": a.device[:], "time": t0.Add(time.Second).UnixMilli(), "text": "I am a",
	}); err != nil {
		t.Fatal(err)
	}
	ch, err := sb.commitAt(b.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := ca.Shard(day)
	if _, err := sa.Apply(b.device, ch); err != nil {
		t.Fatal(err)
	}
	ms := sa.Messages()
	if len(ms) != 2 {
		t.Fatalf("%d messages", len(ms))
	}
	if ms[0].Forged || ms[0].Device != b.device {
		t.Fatalf("honest message: %+v", ms[0])
	}
	if !ms[1].Forged || ms[1].Device != b.device || ms[1].Author != a.principal {
		t.Fatalf("impersonation not caught: %+v", ms[1])
	}
	// After a save and load the attribution is the same.
	l, err := LoadShard(g, day, saved(t, sa.Document), nil, a.opts)
	if err != nil {
		t.Fatal(err)
	}
	if ms := l.Messages(); !ms[1].Forged || ms[1].Device != b.device {
		t.Fatalf("after reload: %+v", ms[1])
	}
}
