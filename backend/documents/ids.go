package documents

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// DocID is a document's 32-byte id. Channel documents have deterministic ids
// derived from the group id, so that every member names the same document
// without coordination and a document created twice is the same document.
type DocID [32]byte

// String returns the id in lower-case hex.
func (id DocID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 8 hex digits, for logs.
func (id DocID) Short() string { return hex.EncodeToString(id[:4]) }

// Kind is the kind of a channel document.
type Kind uint8

// The document kinds of a channel. Values are stable: they are on the wire
// in a content payload.
const (
	KindIndex Kind = 1 // the channel index: the inventory of the channel's documents
	KindChat  Kind = 2 // one UTC day of chat messages
)

func (k Kind) String() string {
	switch k {
	case KindIndex:
		return "index"
	case KindChat:
		return "chat"
	}
	return "kind(?)"
}

// Day is a UTC calendar day, counted from 1970-01-01 (day 0).
type Day uint32

// MaxDay is the last day a Day can name: 9999-12-31.
const MaxDay Day = 2932896

// ErrBadDay: a time or day is outside 1970-01-01 … 9999-12-31.
var ErrBadDay = errcode.New("docs/bad_day", "the day is before 1970 or after the year 9999")

// DayOf returns the UTC day t falls on.
func DayOf(t time.Time) (Day, error) {
	ms := t.UnixMilli()
	if ms < 0 {
		return 0, ErrBadDay
	}
	d := ms / (24 * 3600 * 1000)
	if d > int64(MaxDay) {
		return 0, ErrBadDay
	}
	return Day(d), nil
}

// Start returns midnight UTC at the start of the day.
func (d Day) Start() time.Time { return time.Unix(int64(d)*24*3600, 0).UTC() }

// String returns the day as YYYY-MM-DD.
func (d Day) String() string { return d.Start().Format("2006-01-02") }

// ParseDay parses YYYY-MM-DD.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil || len(s) != 10 {
		return 0, ErrBadDay
	}
	return DayOf(t)
}

// IndexID is the id of a group's channel index document:
// SHA-256("weald/doc/index" ‖ group_id).
func IndexID(group wire.ID) DocID {
	h := sha256.New()
	h.Write([]byte("weald/doc/index"))
	h.Write(group[:])
	return DocID(h.Sum(nil))
}

// ChatID is the id of a group's chat shard for one UTC day:
// SHA-256("weald/doc/chat" ‖ group_id ‖ uint32 day, big-endian).
func ChatID(group wire.ID, day Day) DocID {
	h := sha256.New()
	h.Write([]byte("weald/doc/chat"))
	h.Write(group[:])
	h.Write(binary.BigEndian.AppendUint32(nil, uint32(day)))
	return DocID(h.Sum(nil))
}

// DocRef names a channel document by what derives its id.
type DocRef struct {
	Kind Kind
	Day  Day // chat shards only; 0 for the index
}

// ID returns the document id of r in group.
func (r DocRef) ID(group wire.ID) DocID {
	if r.Kind == KindIndex {
		return IndexID(group)
	}
	return ChatID(group, r.Day)
}
