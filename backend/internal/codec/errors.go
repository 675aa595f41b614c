package codec

import (
	"fmt"

	"weald/backend/errcode"
)

// Sentinel errors, checked with errors.Is. Each has a stable code of the form
// "codec/name" followed by one plain sentence.
var (
	// ErrTruncated: the input ended before the structure did.
	ErrTruncated = errcode.New("codec/truncated", "the input ends before the structure is complete")
	// ErrTrailing: bytes remain after the structure ended.
	ErrTrailing = errcode.New("codec/trailing_bytes", "the input has bytes after the end of the structure")
	// ErrNonMinimal: a varint used more bytes than its value needs (RFC 9420 §2.1.2).
	ErrNonMinimal = errcode.New("codec/non_minimal_varint", "a length prefix is not minimally encoded")
	// ErrReservedVarint: a varint started with the reserved prefix 0b11 (RFC 9420 §2.1.2).
	ErrReservedVarint = errcode.New("codec/reserved_varint", "a length prefix uses the reserved 8-byte form")
	// ErrInvalidBool: an optional or boolean marker was neither 0 nor 1.
	ErrInvalidBool = errcode.New("codec/invalid_bool", "an optional or boolean marker is neither 0 nor 1")
	// ErrTooLong: a value does not fit the length prefix (more than 2^30-1 bytes).
	ErrTooLong = errcode.New("codec/too_long", "a vector is longer than 2^30-1 bytes")
	// ErrNoProgress: a vector element decoder consumed no bytes.
	ErrNoProgress = errcode.New("codec/no_progress", "a vector element decoder consumed no input")
)

// OffsetError wraps a sentinel error with the byte offset where it was found.
type OffsetError struct {
	Err    error
	Offset int
}

func (e *OffsetError) Error() string { return fmt.Sprintf("%v (at byte %d)", e.Err, e.Offset) }

// Unwrap returns the sentinel error.
func (e *OffsetError) Unwrap() error { return e.Err }
