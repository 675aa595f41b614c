// Package wire holds the types that Weald clients and the relay exchange, with
// their canonical encodings, signature helpers and decoders.
//
// It implements the relay protocol of design/gaps.md "Relay protocol" and the
// relay-verifiable retention objects of spec/lifecycle.md "Checkpoints" and
// "Dropping". The protocol is written down in docs/protocol/wire.md.
//
// # Encoding
//
// Every object is encoded in the TLS presentation language as profiled by
// RFC 9420 §2.1: fixed-width big-endian integers, fixed 32-byte ids, and
// variable-length vectors prefixed by the RFC 9420 §2.1.2 varint (minimal
// encoding required, at most 2^30-1 bytes). An encoding is canonical: a
// decoder rejects non-minimal varints, trailing bytes and out-of-range values,
// so re-encoding a decoded object gives back the same bytes.
//
// # Signatures
//
// Every Weald signature is Ed25519 over
//
//	struct { opaque label<V> = "weald 1 " + Label; opaque content<V>; }
//
// where content is the object's encoding without its signature ([Sign],
// [Verify]). The labels are the Label* constants.
//
// # Decoding untrusted bytes
//
// Decode functions never panic; on malformed input they return an error that
// wraps [ErrMalformed]. A decoded object is only parsed, not verified: callers
// verify signatures and semantics separately.
package wire
