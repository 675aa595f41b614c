package retention

import (
	"errors"
	"testing"
	"time"

	"weald/backend/documents"
)

// writePartial checkpoints the shards of c whose key keep accepts, with
// an index of their days, marked OmitsExpired and written at at (what a
// steward writes under a finite text window, or a member lying about it).
func writePartial(t *testing.T, c *channel, at time.Time, keep func(DocKey) bool) *written {
	t.Helper()
	k := &channel{shards: c.shards, sets: map[DocKey][]documents.Head{}}
	for _, key := range c.order {
		if keep(key) {
			k.order = append(k.order, key)
			k.sets[key] = c.sets[key]
		}
	}
	w := write(t, k)
	w.m.OmitsExpired, w.m.CreatedAt = true, uint64(at.UnixMilli())
	w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(5))
	m, err := DecodeManifest(w.m.Encode())
	if err != nil || !m.OmitsExpired {
		t.Fatalf("the partial manifest decodes as %+v, %v", m.OmitsExpired, err)
	}
	return w
}

// docs/protocol/retention.md "What a text window removes": under a finite
// text window a checkpoint marked OmitsExpired may leave out the shards of
// days that ended a window before its created_at (capped at the receiver's
// clock). Six days of messages (1 to 6 November), a 5-day window, written
// on 8 November at noon: 1 and 2 November are expired, the 3rd is not.
func TestCheckpointLeavesOutExpiredDays(t *testing.T) {
	c := newChannel(t, 60, 6)
	at := time.Date(2026, 11, 8, 12, 0, 0, 0, time.UTC)
	window := 5 * Day
	third := uint32(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	notExpired := func(k DocKey) bool { return !Expired(k.Day, at, window) }
	if Expired(third, at, window) || !Expired(third-1, at, window) {
		t.Fatalf("expired: the 3rd %v, the 2nd %v", Expired(third, at, window), Expired(third-1, at, window))
	}
	policy := Policy{TextWindow: window, Active: true, ActiveSince: at.Add(-time.Hour)}
	check := func(w *written, p Policy, now time.Time) Check {
		ch := w.check(c)
		ch.Window, ch.Now = WindowAt(p, time.UnixMilli(int64(w.m.CreatedAt))), now
		return ch
	}
	w := writePartial(t, c, at, notExpired)
	if n := len(w.m.Documents); n != 5 {
		t.Fatalf("the partial checkpoint lists %d documents, want 4 days and the index", n)
	}
	if _, err := Verify(&w.cp, check(w, policy, at.Add(time.Hour))); err != nil {
		t.Fatalf("a receiver refuses the expired days' gap: %v", err)
	}
	for i, e := range w.m.Documents {
		if e.Key.Kind == KindChat && e.Key.Day < third {
			t.Fatalf("entry %d is of an expired day", i)
		}
	}
	// Beneath a drop too, where the receiver cannot replay.
	beneath := check(w, policy, at.Add(time.Hour))
	beneath.Sets, beneath.Frontier = nil, nil
	if _, err := Verify(&w.cp, beneath); err != nil {
		t.Fatalf("beneath a drop: %v", err)
	}

	// From the attacker's side: the flag without a finite window in force
	// at created_at, beneath a drop as well as replaying.
	for name, p := range map[string]Policy{
		"no policy":          {TextWindow: DefaultTextWindow, MediaWindow: DefaultMediaWindow},
		"unlimited text":     {TextWindow: 0, MediaWindow: 90 * Day, Active: true, ActiveSince: at.Add(-time.Hour)},
		"a policy too young": {TextWindow: window, Active: true, ActiveSince: at.Add(time.Minute)},
	} {
		for _, sets := range []bool{true, false} {
			ch := check(w, p, at.Add(time.Hour))
			if !sets {
				ch.Sets, ch.Frontier = nil, nil
			}
			if _, err := Verify(&w.cp, ch); !errors.Is(err, ErrExpiry) {
				t.Errorf("%s (replaying %v): got %v, want %s", name, sets, err, ErrExpiry)
			}
		}
	}
	// A gap of a day not expired: the 3rd left out too.
	early := writePartial(t, c, at, func(k DocKey) bool { return k.Day > third })
	if _, err := Verify(&early.cp, check(early, policy, at.Add(time.Hour))); !errors.Is(err, ErrOmitted) {
		t.Errorf("a gap of a day not expired: got %v, want %s", err, ErrOmitted)
	}
	// A created_at in the future counts only up to the receiver's clock:
	// written "on 20 November" to expire every day, read on the 8th.
	future := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	ahead := writePartial(t, c, future, func(k DocKey) bool { return !Expired(k.Day, future, window) })
	if _, err := Verify(&ahead.cp, check(ahead, policy, at.Add(time.Hour))); !errors.Is(err, ErrOmitted) {
		t.Errorf("a created_at ahead of the receiver's clock: got %v, want %s", err, ErrOmitted)
	}
	// Without the flag, the same gap is an omission, as before.
	w.m.OmitsExpired = false
	w.cp = Sign(testGroup, w.cp.Barrier, w.m.Refs(), w.m.Encode(), key(5))
	if _, err := Verify(&w.cp, check(w, policy, at.Add(time.Hour))); !errors.Is(err, ErrOmitted) {
		t.Errorf("the gap without the flag: got %v, want %s", err, ErrOmitted)
	}
}

// Version 3 carries the flag byte, which must be exactly 1.
func TestPartialManifestFlag(t *testing.T) {
	c := newChannel(t, 20, 3)
	m := write(t, c).m
	m.OmitsExpired = true
	b := m.Encode()
	if b[0] != 3 {
		t.Fatalf("a partial manifest encodes as version %d", b[0])
	}
	const flag = 1 + 32 + 8 + 8 + 32
	for _, f := range []byte{0, 2, 3} {
		x := append([]byte(nil), b...)
		x[flag] = f
		if _, err := DecodeManifest(x); !errors.Is(err, ErrBadManifest) {
			t.Errorf("flags %d: got %v", f, err)
		}
	}
	m.OmitsExpired = false
	if b := m.Encode(); b[0] != 2 {
		t.Errorf("a complete manifest encodes as version %d, want 2", b[0])
	}
}
