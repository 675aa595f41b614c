// Package codec is Weald's one codec for the TLS presentation language
// (architecture.md "Layers": one codec, importable by every layer), as used by
// MLS (RFC 9420 §2.1) and by every Weald object (conventions.md "Canonical
// encoding"): backend/mls, backend/identity, backend/roster, backend/groups,
// backend/documents and backend/wire all encode with it. It encodes
// fixed-width big-endian integers, opaque byte strings and vectors whose
// length prefix is the variable-length integer of RFC 9420 §2.1.2, nested
// vectors and optional values (§2.1.3 of RFC 8446 as profiled by RFC 9420
// §2.1).
//
// # Writing
//
// A [Writer] appends to one growing buffer; nested vectors are written with
// [Writer.Vector], which encodes the body first and then inserts the
// minimal length prefix in front of it. Writing never fails except when a
// vector exceeds the largest length the varint can express (2^30-1 bytes);
// that error is sticky and reported by [Writer.Err].
//
// # Reading
//
// A [Reader] never panics on any input. Every method records the first
// error (truncation, a non-minimal or reserved varint, an invalid boolean
// or optional marker) and, once an error is recorded, returns zero values.
// Callers read a whole structure and check [Reader.Err] once, or call
// [Reader.Done] to also reject trailing bytes. Byte slices returned by a
// Reader alias the input; copy them if the input buffer is reused.
// [Reader.OpaqueMax], [Reader.StringMax] and [Reader.VectorMax] also bound
// the size of what they read, and copy it.
//
// # Signatures
//
// [SignedContent] builds what every Weald Ed25519 signature covers: the
// label "weald 1 " + label and the content, both opaque<V>.
package codec
