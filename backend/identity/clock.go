package identity

import (
	"time"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// Clock is the injected time source (conventions.md "Time").
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// UnixMilli converts a time to the u64 milliseconds used on the wire.
// Times before 1970 map to 0; times after MaxWireTime map to it.
// Times before 1970 map to 0.
func UnixMilli(t time.Time) uint64 {
	ms := t.UnixMilli()
	if ms < 0 {
		return 0
	}
	return min(uint64(ms), MaxWireTime)
}

// MaxWireTime is the largest timestamp accepted on the wire: the last
// millisecond of the year 9999. Decoders reject larger values so that every
// accepted encoding round-trips exactly.
const MaxWireTime uint64 = 253402300799999

// FromUnixMilli converts wire milliseconds to a time.Time (UTC); values
// above MaxWireTime are clamped to it.
func FromUnixMilli(ms uint64) time.Time {
	ms = min(ms, MaxWireTime)
	return time.UnixMilli(int64(ms)).UTC()
}

// ReadTime reads a u64 wire timestamp, rejecting values above MaxWireTime.
func ReadTime(r *codec.Reader) time.Time {
	v := r.U64()
	if v > MaxWireTime {
		r.Fail(ErrBadTime)
	}
	return FromUnixMilli(v)
}

// ErrBadTime: a timestamp is past the year 9999.
var ErrBadTime = errcode.New("identity/bad_time", "a timestamp is after the year 9999")
