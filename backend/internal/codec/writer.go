package codec

import "encoding/binary"

// Writer appends TLS-encoded values to a buffer. The zero value is ready to
// use. A Writer is not safe for concurrent use.
type Writer struct {
	buf []byte
	err error
}

// NewWriter returns a Writer that appends to buf[:0]'s backing array,
// letting callers reuse a scratch buffer.
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf[:0]} }

// Bytes returns the encoded bytes so far. The slice aliases the Writer's
// buffer and is valid until the next write or [Writer.Reset].
func (w *Writer) Bytes() []byte { return w.buf }

// Len returns the number of bytes written so far.
func (w *Writer) Len() int { return len(w.buf) }

// Err returns the first error recorded (only [ErrTooLong] can occur).
func (w *Writer) Err() error { return w.err }

// Reset empties the Writer, keeping its buffer, and clears its error.
func (w *Writer) Reset() { w.buf, w.err = w.buf[:0], nil }

// U8 writes a uint8.
func (w *Writer) U8(v uint8) { w.buf = append(w.buf, v) }

// U16 writes a big-endian uint16.
func (w *Writer) U16(v uint16) { w.buf = binary.BigEndian.AppendUint16(w.buf, v) }

// U32 writes a big-endian uint32.
func (w *Writer) U32(v uint32) { w.buf = binary.BigEndian.AppendUint32(w.buf, v) }

// U64 writes a big-endian uint64.
func (w *Writer) U64(v uint64) { w.buf = binary.BigEndian.AppendUint64(w.buf, v) }

// Bool writes a boolean as one byte, 0 or 1.
func (w *Writer) Bool(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// Raw writes b with no length prefix (a fixed-size array such as opaque[32]).
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Varint writes n as an RFC 9420 §2.1.2 variable-length integer in its
// minimal form. Values above [MaxVarint] record [ErrTooLong].
func (w *Writer) Varint(n uint64) {
	if n > MaxVarint {
		w.fail(ErrTooLong)
		return
	}
	w.buf = AppendVarint(w.buf, n)
}

// Opaque writes b as opaque<V>: a varint length followed by the bytes.
func (w *Writer) Opaque(b []byte) {
	w.Varint(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// String writes s as opaque<V>.
func (w *Writer) String(s string) {
	w.Varint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Vector writes a variable-length vector whose body is produced by body
// (which may write any number of elements, including nested vectors). The
// minimal varint length prefix is placed in front of the body.
func (w *Writer) Vector(body func(w *Writer)) {
	// Reserve one byte, the common case; widen afterwards if needed.
	start := len(w.buf)
	w.buf = append(w.buf, 0)
	body(w)
	n := uint64(len(w.buf) - start - 1)
	l := VarintLen(n)
	if l == 0 {
		w.fail(ErrTooLong)
		w.buf = w.buf[:start]
		return
	}
	if l > 1 {
		var pad [3]byte
		w.buf = append(w.buf, pad[:l-1]...)
		copy(w.buf[start+l:], w.buf[start+1:len(w.buf)-(l-1)])
	}
	putVarint(w.buf[start:start+l], n)
}

// Optional writes the optional<T> marker (1 if present, 0 if not) and, when
// present, the value produced by body.
func (w *Writer) Optional(present bool, body func(w *Writer)) {
	w.Bool(present)
	if present {
		body(w)
	}
}

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Array32 writes a fixed 32-byte array (opaque[32]), such as an id.
func (w *Writer) Array32(a [32]byte) { w.buf = append(w.buf, a[:]...) }
