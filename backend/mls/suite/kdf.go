package suite

import (
	"crypto/sha256"
	"crypto/sha512"
	"hash"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// ErrLength is returned when a requested KDF output is longer than
// HKDF-Expand allows (255·Nh) or does not fit the uint16 length field.
var ErrLength = errcode.New("mls/suite/length", "the requested key length is too large")

func (s *Suite) newHash() hash.Hash {
	switch s.hash {
	case sha384ID:
		return sha512.New384()
	case sha512ID:
		return sha512.New()
	}
	return sha256.New()
}

// Hash returns the suite hash of data.
func (s *Suite) Hash(data []byte) []byte { return s.AppendHash(nil, data) }

// AppendHash appends the suite hash of data to dst.
func (s *Suite) AppendHash(dst, data []byte) []byte {
	switch s.hash {
	case sha384ID:
		h := sha512.Sum384(data)
		return append(dst, h[:]...)
	case sha512ID:
		h := sha512.Sum512(data)
		return append(dst, h[:]...)
	}
	h := sha256.Sum256(data)
	return append(dst, h[:]...)
}

// NewHash returns a streaming instance of the suite hash.
func (s *Suite) NewHash() hash.Hash { return s.newHash() }

// MAC returns HMAC(key, data) with the suite hash (RFC 9420 §5.1, used for
// the membership tag and confirmation tag).
func (s *Suite) MAC(key, data []byte) []byte {
	return s.hmacAppend(make([]byte, 0, s.nh), key, data, nil, nil)
}

// Extract is HKDF-Extract(salt, ikm) (RFC 5869). An empty salt is
// equivalent to Nh zero bytes.
func (s *Suite) Extract(salt, ikm []byte) []byte {
	return s.hmacAppend(make([]byte, 0, s.nh), salt, ikm, nil, nil)
}

// Expand is HKDF-Expand(prk, info, length) (RFC 5869).
func (s *Suite) Expand(prk, info []byte, length int) ([]byte, error) {
	if length < 0 || length > 255*s.nh {
		return nil, ErrLength
	}
	out := make([]byte, 0, (length+s.nh-1)/s.nh*s.nh)
	var prev []byte
	var ctr [1]byte
	for i := byte(1); len(out) < length; i++ {
		ctr[0] = i
		start := len(out)
		out = s.hmacAppend(out, prk, prev, info, ctr[:])
		prev = out[start:]
	}
	return out[:length:length], nil
}

// mlsPrefix is prepended to every MLS label (RFC 9420 §5.1.2, §5.1.3, §8).
const mlsPrefix = "MLS 1.0 "

// writeLabel writes opaque label<V> = "MLS 1.0 " + label.
func writeLabel(w *codec.Writer, label string) {
	w.Varint(uint64(len(mlsPrefix) + len(label)))
	w.Raw([]byte(mlsPrefix))
	w.Raw([]byte(label))
}

// ExpandWithLabel is RFC 9420 §8:
//
//	ExpandWithLabel(Secret, Label, Context, Length) =
//	    KDF.Expand(Secret, KDFLabel, Length)
//	struct { uint16 length; opaque label<V> = "MLS 1.0 " + Label; opaque context<V>; } KDFLabel;
func (s *Suite) ExpandWithLabel(secret []byte, label string, context []byte, length int) ([]byte, error) {
	if length < 0 || length > 0xffff {
		return nil, ErrLength
	}
	var scratch [128]byte
	w := codec.NewWriter(scratch[:])
	w.U16(uint16(length))
	writeLabel(w, label)
	w.Opaque(context)
	return s.Expand(secret, w.Bytes(), length)
}

// DeriveSecret is ExpandWithLabel(secret, label, "", Nh) (RFC 9420 §8).
func (s *Suite) DeriveSecret(secret []byte, label string) []byte {
	out, err := s.ExpandWithLabel(secret, label, nil, s.nh)
	if err != nil {
		panic("suite: DeriveSecret: " + err.Error()) // unreachable: Nh is always a valid length
	}
	return out
}

// DeriveTreeSecret is ExpandWithLabel(secret, label, generation, length)
// with generation encoded as uint32 (RFC 9420 §9).
func (s *Suite) DeriveTreeSecret(secret []byte, label string, generation uint32, length int) ([]byte, error) {
	ctx := [4]byte{byte(generation >> 24), byte(generation >> 16), byte(generation >> 8), byte(generation)}
	return s.ExpandWithLabel(secret, label, ctx[:], length)
}

// RefHash is RFC 9420 §5.2:
//
//	MakeRefHash(label, value) = Hash(RefHashInput)
//	struct { opaque label<V>; opaque value<V>; } RefHashInput;
//
// The label is used as given (callers pass the full "MLS 1.0 ..." label).
func (s *Suite) RefHash(label string, value []byte) []byte {
	var scratch [512]byte
	w := codec.NewWriter(scratch[:])
	w.String(label)
	w.Opaque(value)
	return s.Hash(w.Bytes())
}

// MakeKeyPackageRef is RefHash("MLS 1.0 KeyPackage Reference", KeyPackage)
// over the encoded KeyPackage (RFC 9420 §5.2).
func (s *Suite) MakeKeyPackageRef(keyPackage []byte) []byte {
	return s.RefHash("MLS 1.0 KeyPackage Reference", keyPackage)
}

// MakeProposalRef is RefHash("MLS 1.0 Proposal Reference",
// AuthenticatedContent) over the encoded AuthenticatedContent (RFC 9420 §5.2).
func (s *Suite) MakeProposalRef(authenticatedContent []byte) []byte {
	return s.RefHash("MLS 1.0 Proposal Reference", authenticatedContent)
}
