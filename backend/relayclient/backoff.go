package relayclient

import (
	"encoding/binary"
	"io"
	"time"
)

// Clock is the client's time source; tests inject a fake.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Backoff is capped exponential backoff with full jitter: the n-th retry
// (n from 0) waits a uniformly random duration in [Min/2, min(Max, Min·2^n)].
type Backoff struct {
	Min, Max time.Duration
}

// DefaultBackoff reconnects after 100 ms at first and at most every 30 s.
var DefaultBackoff = Backoff{Min: 100 * time.Millisecond, Max: 30 * time.Second}

// Delay returns the wait before retry n using random bytes from r.
func (b Backoff) Delay(n int, r io.Reader) time.Duration {
	min, max := b.Min, b.Max
	if min <= 0 {
		min = DefaultBackoff.Min
	}
	if max < min {
		max = min
	}
	ceil := min
	for i := 0; i < n && ceil < max; i++ {
		ceil *= 2
	}
	if ceil > max {
		ceil = max
	}
	floor := min / 2
	span := ceil - floor
	if span <= 0 {
		return ceil
	}
	var buf [8]byte
	if _, err := io.ReadFull(r, buf[:]); err != nil {
		return ceil
	}
	return floor + time.Duration(binary.BigEndian.Uint64(buf[:])%uint64(span+1))
}
