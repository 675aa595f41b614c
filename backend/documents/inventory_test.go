package documents

import (
	"errors"
	"testing"
	"time"
)

func TestCheckpointInventory(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	c := a.channel(t, g)
	mustPost(t, c, "monday")
	a.clock.advance(24 * time.Hour)
	mustPost(t, c, "tuesday")
	snaps, err := c.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 || snaps[0].Doc != IndexID(g) {
		t.Fatalf("checkpoint of %d documents", len(snaps))
	}
	var inv []InventoryEntry
	for _, s := range snaps {
		inv = append(inv, s.Entry())
		if err := VerifyEntry(s.Entry(), s); err != nil {
			t.Fatal(err)
		}
	}
	if err := VerifyInventory(g, snaps[0], inv); err != nil {
		t.Fatal(err)
	}
	// A receiver rebuilds the shard from its snapshot and reads it.
	day, _ := DayOf(t0)
	sh, err := LoadSnapshot(snaps[1], Options{Clock: a.clock.now})
	if err != nil || sh.ID() != ChatID(g, day) {
		t.Fatal(err)
	}

	omitted := inv[:2]
	extra := append(append([]InventoryEntry{}, inv...), InventoryEntry{Doc: ChatID(g, day+5)})
	twice := append(append([]InventoryEntry{}, inv...), inv[1])
	wrongIndex := append([]InventoryEntry{}, inv...)
	wrongIndex[0].Heads = nil
	for name, entries := range map[string][]InventoryEntry{"omitted": omitted, "extra": extra, "twice": twice, "wrong index": wrongIndex} {
		if err := VerifyInventory(g, snaps[0], entries); !errors.Is(err, ErrBadInventory) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := VerifyInventory(id("other group"), snaps[0], inv); !errors.Is(err, ErrBadInventory) {
		t.Errorf("another group's index: %v", err)
	}
	if err := VerifyEntry(inv[1], snaps[2]); !errors.Is(err, ErrBadSnapshot) {
		t.Errorf("snapshot of another entry: %v", err)
	}
}

func TestLoadAndReadOnly(t *testing.T) {
	a := newReplica("a", 1)
	g := id("group")
	day, _ := DayOf(t0)
	if _, err := LoadShard(g, day, []byte("garbage"), nil, a.opts); !errors.Is(err, ErrBadSaved) {
		t.Fatalf("garbage saved bytes: %v", err)
	}
	s, _ := NewShard(g, day, a.opts)
	if _, err := LoadShard(g, day, saved(t, s.Document), []byte("garbage"), a.opts); !errors.Is(err, ErrBadSaved) {
		t.Fatalf("garbage pending bytes: %v", err)
	}
	ro, err := NewShard(g, day, Options{Clock: a.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ro.Post("x"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only post: %v", err)
	}
	if _, err := ro.Outgoing(nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only outgoing: %v", err)
	}
	if _, _, err := s.Post("x"); err != nil {
		t.Fatal(err)
	}
	a.clock.advance(24 * time.Hour)
	if _, _, err := s.Post("tomorrow"); !errors.Is(err, ErrWrongDay) {
		t.Fatalf("post on another day's shard: %v", err)
	}
	if _, err := NewShard(g, day, Options{Author: a.device, Clock: a.clock.now}); err == nil {
		t.Fatal("author without randomness accepted")
	}
}
