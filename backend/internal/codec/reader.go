package codec

import "encoding/binary"

// Reader decodes TLS-encoded values from a byte slice. The first error is
// sticky: later calls return zero values and do not advance. A Reader never
// panics. It is not safe for concurrent use.
type Reader struct {
	data []byte
	off  int
	base int // offset of data[0] in the outermost input, for error messages
	err  error
	// parent receives this Reader's error when it is a vector body.
	parent *Reader
}

// NewReader returns a Reader over b.
func NewReader(b []byte) *Reader { return &Reader{data: b} }

// Err returns the first error recorded, or nil.
func (r *Reader) Err() error { return r.err }

// Len returns the number of unread bytes.
func (r *Reader) Len() int {
	if r.err != nil {
		return 0
	}
	return len(r.data) - r.off
}

// Empty reports whether all input has been consumed (or an error occurred).
func (r *Reader) Empty() bool { return r.Len() == 0 }

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int { return r.off }

// Done returns the recorded error or, if there is none, [ErrTrailing] when
// unread bytes remain.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.data) {
		r.fail(ErrTrailing)
	}
	return r.err
}

// Fail records err (if no error is recorded yet) so that callers decoding
// higher-level structures can reject semantically invalid values through the
// same sticky mechanism. The error propagates to enclosing vector readers.
func (r *Reader) Fail(err error) {
	if err != nil {
		r.setErr(err)
	}
}

func (r *Reader) fail(sentinel error) {
	r.setErr(&OffsetError{Err: sentinel, Offset: r.base + r.off})
}

func (r *Reader) setErr(err error) {
	for p := r; p != nil; p = p.parent {
		if p.err == nil {
			p.err = err
		}
	}
}

// take returns the next n bytes or records ErrTruncated.
func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.data)-r.off {
		r.fail(ErrTruncated)
		return nil
	}
	b := r.data[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// U8 reads a uint8.
func (r *Reader) U8() uint8 {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// U16 reads a big-endian uint16.
func (r *Reader) U16() uint16 {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint16(b)
}

// U32 reads a big-endian uint32.
func (r *Reader) U32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

// U64 reads a big-endian uint64.
func (r *Reader) U64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// Bool reads one byte that must be 0 or 1 (else [ErrInvalidBool]).
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
	r.off--
	r.fail(ErrInvalidBool)
	return false
}

// Optional reads an optional<T> presence marker; see [Reader.Bool].
func (r *Reader) Optional() bool { return r.Bool() }

// Raw reads exactly n bytes (a fixed-size array). The result aliases the input.
func (r *Reader) Raw(n int) []byte { return r.take(n) }

// Varint reads an RFC 9420 §2.1.2 variable-length integer, rejecting the
// reserved 0b11 prefix and any non-minimal encoding.
func (r *Reader) Varint() uint64 {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.data) {
		r.fail(ErrTruncated)
		return 0
	}
	first := r.data[r.off]
	var n int
	switch first >> 6 {
	case 0:
		n = 1
	case 1:
		n = 2
	case 2:
		n = 4
	default:
		r.fail(ErrReservedVarint)
		return 0
	}
	start := r.off
	b := r.take(n)
	if b == nil {
		return 0
	}
	v := uint64(b[0] & 0x3f)
	for _, c := range b[1:] {
		v = v<<8 | uint64(c)
	}
	if VarintLen(v) != n {
		r.off = start
		r.fail(ErrNonMinimal)
		return 0
	}
	return v
}

// Opaque reads opaque<V>: a varint length and that many bytes. The result
// aliases the input and is non-nil (possibly empty) on success.
func (r *Reader) Opaque() []byte {
	n := r.Varint()
	if r.err != nil {
		return nil
	}
	return r.take(int(n))
}

// OpaqueCopy is [Reader.Opaque] returning a fresh copy (nil when empty).
func (r *Reader) OpaqueCopy() []byte {
	b := r.Opaque()
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// String reads opaque<V> as a string (copied).
func (r *Reader) String() string { return string(r.Opaque()) }

// Sub reads a varint length prefix and returns a Reader over exactly that
// many bytes, advancing r past them. Errors in the sub-Reader are also
// recorded in r. On error it returns an empty Reader that carries the error.
func (r *Reader) Sub() *Reader {
	n := r.Varint()
	start := r.off
	b := r.take(int(n))
	sub := &Reader{data: b, base: r.base + start, parent: r, err: r.err}
	return sub
}

// Vector reads a variable-length vector and calls elem once per element
// until the vector body is consumed or an error is recorded. Each call must
// consume at least one byte (else [ErrNoProgress]); an element that runs
// past the body's end records [ErrTruncated].
func (r *Reader) Vector(elem func(r *Reader)) {
	sub := r.Sub()
	for sub.err == nil && sub.off < len(sub.data) {
		before := sub.off
		elem(sub)
		if sub.err == nil && sub.off == before {
			sub.fail(ErrNoProgress)
		}
	}
}
