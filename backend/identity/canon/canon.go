// Package canon is the canonical encoding of Weald objects (conventions.md
// "Canonical encoding"): the TLS presentation language as profiled by
// RFC 9420 §2.1, with fixed-width big-endian integers and opaque vectors
// prefixed by the variable-length integer of RFC 9420 §2.1.2 (QUIC-style,
// 1, 2 or 4 bytes, minimal, the 0b11 prefix reserved).
//
// It lives under backend/identity because identity is the lowest layer
// (architecture.md "Layers") and cannot import backend/mls. The wire format
// is the same as backend/mls/codec's, byte for byte.
//
// A [Reader] never panics on any input: the first error is sticky, later
// reads return zero values, and [Reader.Done] also rejects trailing bytes.
package canon

import (
	"encoding/binary"
	"fmt"

	"weald/backend/errcode"
)

// Errors, checked with errors.Is. Each is a stable code and one sentence.
var (
	ErrTruncated   = errcode.New("canon/truncated", "the input ends before the structure is complete")
	ErrTrailing    = errcode.New("canon/trailing_bytes", "the input has bytes after the end of the structure")
	ErrNonMinimal  = errcode.New("canon/non_minimal_varint", "a length prefix is not minimally encoded")
	ErrReserved    = errcode.New("canon/reserved_varint", "a length prefix uses the reserved 0b11 form")
	ErrInvalidBool = errcode.New("canon/invalid_bool", "a boolean or optional marker is neither 0 nor 1")
	ErrTooLong     = errcode.New("canon/too_long", "a vector is longer than the format allows")
)

// MaxVarint is the largest value of an RFC 9420 §2.1.2 varint (2^30-1).
const MaxVarint = 1<<30 - 1

// Writer appends canonical encodings to a buffer. The only failure is a
// vector longer than MaxVarint; it is sticky and reported by Err.
type Writer struct {
	buf []byte
	err error
}

// Bytes returns the encoding written so far.
func (w *Writer) Bytes() []byte { return w.buf }

// Err returns the first error, or nil.
func (w *Writer) Err() error { return w.err }

// U8 appends a uint8.
func (w *Writer) U8(v uint8) { w.buf = append(w.buf, v) }

// U16 appends a big-endian uint16.
func (w *Writer) U16(v uint16) { w.buf = binary.BigEndian.AppendUint16(w.buf, v) }

// U32 appends a big-endian uint32.
func (w *Writer) U32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }

// U64 appends a big-endian uint64.
func (w *Writer) U64(v uint64) { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }

// Bool appends 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// Raw appends b without a length prefix (a fixed-size array).
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Varint appends n as a minimal RFC 9420 §2.1.2 varint.
func (w *Writer) Varint(n uint64) {
	switch {
	case n < 1<<6:
		w.buf = append(w.buf, byte(n))
	case n < 1<<14:
		w.buf = append(w.buf, byte(n>>8)|0x40, byte(n))
	case n <= MaxVarint:
		w.buf = append(w.buf, byte(n>>24)|0x80, byte(n>>16), byte(n>>8), byte(n))
	default:
		if w.err == nil {
			w.err = ErrTooLong
		}
	}
}

// Opaque appends opaque<V>: a varint length and the bytes.
func (w *Writer) Opaque(b []byte) {
	w.Varint(uint64(len(b)))
	w.Raw(b)
}

// String appends s as opaque<V>.
func (w *Writer) String(s string) {
	w.Varint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Vector appends a vector whose body is written by body.
func (w *Writer) Vector(body func(w *Writer)) {
	var inner Writer
	body(&inner)
	if inner.err != nil && w.err == nil {
		w.err = inner.err
	}
	w.Opaque(inner.buf)
}

// Reader decodes canonical encodings from a byte slice.
type Reader struct {
	data   []byte
	off    int
	err    error
	parent *Reader
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader { return &Reader{data: b} }

// Err returns the first error recorded, or nil.
func (r *Reader) Err() error { return r.err }

// Empty reports whether all input is consumed (or an error was recorded).
func (r *Reader) Empty() bool { return r.err != nil || r.off == len(r.data) }

// Done returns the recorded error, or ErrTrailing if unread bytes remain.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.data) {
		r.Fail(fmt.Errorf("%w (at byte %d)", ErrTrailing, r.off))
	}
	return r.err
}

// Fail records err (if none is recorded) here and in enclosing readers, so
// that semantic checks share the sticky error.
func (r *Reader) Fail(err error) {
	for p := r; p != nil && err != nil; p = p.parent {
		if p.err == nil {
			p.err = err
		}
	}
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)-r.off {
		r.Fail(fmt.Errorf("%w (at byte %d)", ErrTruncated, r.off))
		return nil
	}
	b := r.data[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// U8 reads a uint8.
func (r *Reader) U8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// U16 reads a big-endian uint16.
func (r *Reader) U16() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

// U32 reads a big-endian uint32.
func (r *Reader) U32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// U64 reads a big-endian uint64.
func (r *Reader) U64() uint64 {
	if b := r.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	b := r.take(1)
	if b == nil {
		return false
	}
	switch b[0] {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail(fmt.Errorf("%w (at byte %d)", ErrInvalidBool, r.off-1))
	return false
}

// Raw reads exactly n bytes; the result aliases the input.
func (r *Reader) Raw(n int) []byte { return r.take(n) }

// Array32 reads a fixed 32-byte array.
func (r *Reader) Array32() (a [32]byte) {
	if b := r.take(32); b != nil {
		copy(a[:], b)
	}
	return a
}

// Varint reads a minimal RFC 9420 §2.1.2 varint.
func (r *Reader) Varint() uint64 {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.data) {
		r.Fail(fmt.Errorf("%w (at byte %d)", ErrTruncated, r.off))
		return 0
	}
	start := r.off
	var n int
	switch r.data[r.off] >> 6 {
	case 0:
		n = 1
	case 1:
		n = 2
	case 2:
		n = 4
	default:
		r.Fail(fmt.Errorf("%w (at byte %d)", ErrReserved, start))
		return 0
	}
	b := r.take(n)
	if b == nil {
		return 0
	}
	v := uint64(b[0] & 0x3f)
	for _, c := range b[1:] {
		v = v<<8 | uint64(c)
	}
	minimal := 1
	if v >= 1<<14 {
		minimal = 4
	} else if v >= 1<<6 {
		minimal = 2
	}
	if n != minimal {
		r.Fail(fmt.Errorf("%w (at byte %d)", ErrNonMinimal, start))
		return 0
	}
	return v
}

// Opaque reads opaque<V>, at most max bytes long; the result is a copy.
func (r *Reader) Opaque(max int) []byte {
	n := r.Varint()
	if r.err != nil {
		return nil
	}
	if n > uint64(max) {
		r.Fail(fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, n, max))
		return nil
	}
	b := r.take(int(n))
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// String reads opaque<V> of at most max bytes as a string.
func (r *Reader) String(max int) string { return string(r.Opaque(max)) }

// Vector reads a vector and calls elem for each element until its body is
// consumed. At most maxElems elements are accepted, and each call must
// consume input.
func (r *Reader) Vector(maxElems int, elem func(r *Reader)) {
	n := r.Varint()
	b := r.take(int(min(n, uint64(len(r.data)+1))))
	if r.err != nil {
		return
	}
	sub := &Reader{data: b, parent: r}
	count := 0
	for sub.err == nil && sub.off < len(sub.data) {
		if count == maxElems {
			sub.Fail(fmt.Errorf("%w: more than %d elements", ErrTooLong, maxElems))
			return
		}
		before := sub.off
		elem(sub)
		count++
		if sub.err == nil && sub.off == before {
			sub.Fail(fmt.Errorf("%w: an element consumed no input", ErrTruncated))
		}
	}
}
