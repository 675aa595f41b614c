package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("wire: malformed encoding")

// maxVarint is the largest value of the RFC 9420 §2.1.2 varint (30 bits).
const maxVarint = 1<<30 - 1

// maxListItems bounds the number of items a decoder accepts in one list, so a
// hostile length cannot make a decoder allocate without bound.
const maxListItems = 1 << 16

// writer appends TLS-encoded values to a buffer. Writing a vector longer than
// maxVarint records a sticky error.
type writer struct {
	b   []byte
	err error
}

func (w *writer) u8(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u16(v uint16) { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.BigEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64) { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *writer) id(v ID)      { w.b = append(w.b, v[:]...) }

func (w *writer) boolean(v bool) {
	if v {
		w.u8(1)
	} else {
		w.u8(0)
	}
}

func (w *writer) varint(n uint64) {
	switch {
	case n < 1<<6:
		w.b = append(w.b, byte(n))
	case n < 1<<14:
		w.b = append(w.b, 0x40|byte(n>>8), byte(n))
	case n <= maxVarint:
		w.b = append(w.b, 0x80|byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	default:
		if w.err == nil {
			w.err = fmt.Errorf("wire: vector of %d bytes exceeds 2^30-1", n)
		}
	}
}

// opaque writes b as a varint-prefixed vector.
func (w *writer) opaque(b []byte) {
	w.varint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *writer) str(s string) {
	w.varint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// vector writes the bytes produced by body as one varint-prefixed vector.
func (w *writer) vector(body func(w *writer)) {
	inner := writer{}
	body(&inner)
	if inner.err != nil && w.err == nil {
		w.err = inner.err
	}
	w.opaque(inner.b)
}

// reader decodes TLS-encoded values. The first error is sticky; after it every
// method returns zero values. A reader never panics.
type reader struct {
	b   []byte
	off int
	err error
}

func newReader(b []byte) *reader { return &reader{b: b} }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at offset %d", ErrMalformed, fmt.Sprintf(format, args...), r.off)
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("truncated: need %d bytes, have %d", n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u8() uint8 {
	s := r.take(1)
	if s == nil {
		return 0
	}
	return s[0]
}

func (r *reader) u16() uint16 {
	s := r.take(2)
	if s == nil {
		return 0
	}
	return binary.BigEndian.Uint16(s)
}

func (r *reader) u32() uint32 {
	s := r.take(4)
	if s == nil {
		return 0
	}
	return binary.BigEndian.Uint32(s)
}

func (r *reader) u64() uint64 {
	s := r.take(8)
	if s == nil {
		return 0
	}
	return binary.BigEndian.Uint64(s)
}

func (r *reader) id() ID {
	var v ID
	copy(v[:], r.take(32))
	return v
}

func (r *reader) boolean() bool {
	switch r.u8() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail("boolean out of range")
	return false
}

func (r *reader) varint() uint64 {
	first := r.take(1)
	if first == nil {
		return 0
	}
	var n uint64
	switch first[0] >> 6 {
	case 0:
		return uint64(first[0])
	case 1:
		rest := r.take(1)
		if rest == nil {
			return 0
		}
		n = uint64(first[0]&0x3f)<<8 | uint64(rest[0])
		if n < 1<<6 {
			r.fail("non-minimal varint")
			return 0
		}
	case 2:
		rest := r.take(3)
		if rest == nil {
			return 0
		}
		n = uint64(first[0]&0x3f)<<24 | uint64(rest[0])<<16 | uint64(rest[1])<<8 | uint64(rest[2])
		if n < 1<<14 {
			r.fail("non-minimal varint")
			return 0
		}
	default:
		r.fail("reserved varint prefix")
		return 0
	}
	return n
}

// opaque reads a varint-prefixed vector and returns a copy of its bytes (nil
// for an empty vector), so decoded objects never alias the input buffer.
func (r *reader) opaque() []byte {
	n := r.varint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.fail("vector of %d bytes truncated", n)
		return nil
	}
	s := r.take(int(n))
	if len(s) == 0 {
		return nil
	}
	return append([]byte(nil), s...)
}

// opaqueMax reads a vector and fails if it is longer than max bytes.
func (r *reader) opaqueMax(max int, what string) []byte {
	b := r.opaque()
	if len(b) > max {
		r.fail("%s of %d bytes exceeds %d", what, len(b), max)
		return nil
	}
	return b
}

// fixed reads a vector that must be exactly n bytes long.
func (r *reader) fixed(n int, what string) []byte {
	b := r.opaque()
	if r.err == nil && len(b) != n {
		r.fail("%s must be %d bytes, got %d", what, n, len(b))
		return nil
	}
	return b
}

func (r *reader) str(max int, what string) string {
	return string(r.opaqueMax(max, what))
}

// list reads a varint-prefixed vector of items, calling item once per element
// with a reader over the vector body until the body is consumed.
func (r *reader) list(item func(r *reader)) {
	body := r.opaque()
	if r.err != nil {
		return
	}
	sub := newReader(body)
	for count := 0; sub.err == nil && sub.off < len(sub.b); count++ {
		if count >= maxListItems {
			sub.fail("more than %d list items", maxListItems)
			break
		}
		item(sub)
	}
	if sub.err != nil && r.err == nil {
		r.err = sub.err
	}
}

// done reports the sticky error, or an error if bytes remain unread.
func (r *reader) done() error {
	if r.err == nil && r.off != len(r.b) {
		r.fail("%d trailing bytes", len(r.b)-r.off)
	}
	return r.err
}
