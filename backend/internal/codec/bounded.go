package codec

import "fmt"

// Bounded reads, for structures whose fields have a maximum size of their own
// (Weald objects: roster operations, certificates, bundles). Each copies what
// it returns, so the decoded value never aliases the input.

// OpaqueMax reads opaque<V> of at most max bytes (else [ErrTooLong]) and
// returns a copy, empty but non-nil for an empty vector.
func (r *Reader) OpaqueMax(max int) []byte {
	n := r.Varint()
	if r.err != nil {
		return nil
	}
	if n > uint64(max) {
		r.Fail(&OffsetError{Err: fmt.Errorf("%w: %d bytes, at most %d", ErrTooLong, n, max), Offset: r.base + r.off})
		return nil
	}
	b := r.take(int(n))
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// StringMax reads opaque<V> of at most max bytes as a string.
func (r *Reader) StringMax(max int) string { return string(r.OpaqueMax(max)) }

// Array32 reads a fixed 32-byte array (opaque[32]).
func (r *Reader) Array32() (a [32]byte) {
	if b := r.take(32); b != nil {
		copy(a[:], b)
	}
	return a
}

// VectorMax is [Reader.Vector] accepting at most maxElems elements (else
// [ErrTooLong]), for vectors whose elements a decoder keeps.
func (r *Reader) VectorMax(maxElems int, elem func(r *Reader)) {
	count := 0
	r.Vector(func(r *Reader) {
		if count == maxElems {
			r.fail(ErrTooLong)
			return
		}
		count++
		elem(r)
	})
}
