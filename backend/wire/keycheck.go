package wire

import (
	"crypto/subtle"

	"filippo.io/edwards25519"
)

// lMinusOne is ℓ - 1, ℓ = 2²⁵² + 27742317777372353535851937790883648493 the
// order of the Ed25519 base point (RFC 8032 §5.1), little-endian.
var lMinusOne = func() *edwards25519.Scalar {
	b := [32]byte{0xec, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		31: 0x10}
	s, err := edwards25519.NewScalar().SetCanonicalBytes(b[:])
	if err != nil {
		panic("wire: ℓ - 1 is not a canonical scalar")
	}
	return s
}()

// PrimeOrderKey reports whether pub is the canonical encoding of an Ed25519
// point of order ℓ: it decodes, re-encodes to the same bytes, is not of small
// order and has no torsion component ([ℓ]P is the identity). A key that
// fails has signatures crypto/ed25519.Verify and a cofactored batch check
// can disagree on, or that anyone can forge; such a key is refused where it
// enters (design/gaps.md "Relay protocol").
func PrimeOrderKey(pub []byte) bool {
	if len(pub) != 32 {
		return false
	}
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil || subtle.ConstantTimeCompare(p.Bytes(), pub) != 1 {
		return false
	}
	id := edwards25519.NewIdentityPoint()
	if new(edwards25519.Point).MultByCofactor(p).Equal(id) == 1 {
		return false
	}
	// [ℓ]P = O exactly when [ℓ-1]P = -P.
	return new(edwards25519.Point).ScalarMult(lMinusOne, p).Equal(new(edwards25519.Point).Negate(p)) == 1
}
