package wire

import (
	"errors"
	"fmt"

	"weald/backend/internal/codec"
)

// The wire format is the TLS presentation language of backend/internal/codec
// (conventions.md "Encoding"); writer and reader are its Writer and Reader.
// What follows are the checks every wire decoder shares: each error wraps
// ErrMalformed and names what was wrong, and lists are bounded.
type (
	writer = codec.Writer
	reader = codec.Reader
)

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("wire: malformed encoding")

// maxListItems bounds the number of items a decoder accepts in one list, so a
// hostile length cannot make a decoder allocate without bound.
const maxListItems = 1 << 16

// fail records a malformed-input error at r's offset.
func fail(r *reader, format string, args ...any) {
	r.Fail(fmt.Errorf("%w: %s at offset %d", ErrMalformed, fmt.Sprintf(format, args...), r.Offset()))
}

// malformed makes err, a codec error or a wire one, wrap ErrMalformed.
func malformed(err error) error {
	if err == nil || errors.Is(err, ErrMalformed) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// done reports the sticky error, or an error if bytes remain unread; either
// wraps ErrMalformed.
func done(r *reader) error { return malformed(r.Done()) }

// opaqueMax reads a vector (a copy, nil when empty) and fails if it is longer
// than max bytes.
func opaqueMax(r *reader, max int, what string) []byte {
	b := r.OpaqueCopy()
	if len(b) > max {
		fail(r, "%s of %d bytes exceeds %d", what, len(b), max)
		return nil
	}
	return b
}

// fixed reads a vector that must be exactly n bytes long.
func fixed(r *reader, n int, what string) []byte {
	b := r.OpaqueCopy()
	if r.Err() == nil && len(b) != n {
		fail(r, "%s must be %d bytes, got %d", what, n, len(b))
		return nil
	}
	return b
}

func str(r *reader, max int, what string) string { return string(opaqueMax(r, max, what)) }

// list reads a vector of at most maxListItems items, calling item once per
// element with a reader over the vector body until the body is consumed.
func list(r *reader, item func(r *reader)) { r.VectorMax(maxListItems, item) }
