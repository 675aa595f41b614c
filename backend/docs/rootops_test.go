package docs

import (
	"errors"
	"testing"
	"time"
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
