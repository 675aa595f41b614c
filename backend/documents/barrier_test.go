package documents

import (
	"errors"
	"testing"
	"time"
)

// A checkpoint writer snapshots a shard at the changes of the first two of
// three envelopes: the snapshot holds exactly those two messages.
func TestSnapshotAtBarrier(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	ca, cb := a.channel(t, g), b.channel(t, g)
	var payloads [][]byte
	for _, text := range []string{"one", "two", "three"} {
		a.clock.advance(time.Second)
		_, p := mustPost(t, ca, text)
		payloads = append(payloads, p)
		mustApply(t, cb, a.device, p)
	}
	day, _ := DayOf(t0)
	ref := DocRef{Kind: KindChat, Day: day}
	var below []Head
	for _, p := range payloads[:2] {
		hs, err := ChangeHashes(p)
		if err != nil {
			t.Fatal(err)
		}
		below = append(below, hs[ref]...)
	}
	s, _ := cb.Shard(day)
	heads, err := s.Frontier(below)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 1 {
		t.Fatalf("frontier %v", heads)
	}
	snap, err := s.SnapshotAt(heads)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadSnapshot(snap, Options{Clock: b.clock.now})
	if err != nil {
		t.Fatal(err)
	}
	sh := &Shard{Document: l, group: g, day: day}
	if got := texts(sh.Messages()); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Fatalf("snapshot at the barrier holds %v", got)
	}

	// Without the first envelope's change the set is not closed.
	hs, _ := ChangeHashes(payloads[1])
	if _, err := s.Frontier(hs[ref]); !errors.Is(err, ErrNotClosed) {
		t.Fatalf("open set: %v", err)
	}
	if _, err := s.Frontier([]Head{{7}}); !errors.Is(err, ErrUnknownHeads) {
		t.Fatalf("unknown change: %v", err)
	}
	if _, err := ChangeHashes([]byte{9}); !errors.Is(err, ErrBadPayload) {
		t.Fatalf("bad payload: %v", err)
	}
}
