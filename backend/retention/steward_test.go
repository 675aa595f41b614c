package retention

import (
	"testing"
	"time"
)

// ExpiryCheckpointDue: a quiet channel's newest checkpoint is replaced once
// it is a cadence old and holds a day the window has expired; not under an
// unlimited or inactive policy, not sooner than the cadence, and not when
// every day it holds is still inside the window.
func TestExpiryCheckpointDue(t *testing.T) {
	day0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	d0 := uint32(day0.Unix() / 86400)
	at := func(days int) time.Time { return day0.Add(time.Duration(days) * Day) }
	window := Policy{Active: true, TextWindow: 30 * Day}
	cases := []struct {
		name    string
		p       Policy
		days    []uint32
		written time.Time
		now     time.Time
		want    bool
	}{
		{"an expired day, a cadence old", window, []uint32{d0, d0 + 8}, at(8), at(40), true},
		{"only days inside the window", window, []uint32{d0 + 20}, at(21), at(40), false},
		{"an expired day, the checkpoint 6 days old", window, []uint32{d0}, at(34), at(40), false},
		{"no chat day", window, nil, at(8), at(40), false},
		{"unlimited text", Policy{Active: true}, []uint32{d0}, at(8), at(400), false},
		{"no policy", Policy{TextWindow: 30 * Day}, []uint32{d0}, at(8), at(400), false},
		{"the day ends a window ago exactly", window, []uint32{d0}, at(1), at(31).Truncate(24 * time.Hour), true},
		{"the day ends a window ago in a second", window, []uint32{d0}, at(1), at(31).Truncate(24 * time.Hour).Add(-time.Second), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ExpiryCheckpointDue(c.p, c.days, c.written, c.now); got != c.want {
				t.Fatalf("ExpiryCheckpointDue = %v, want %v", got, c.want)
			}
		})
	}
}
