// Package ed25519batch verifies many Ed25519 signatures (RFC 8032) at once.
//
// The relay checks the author signature of every envelope it accepts
// (design/gaps.md "Relay protocol"); one check costs about as much as storing
// the row, so the relay verifies a request's envelopes as one batch: a single
// multi-scalar multiplication over the signatures' R points, one point per
// distinct key and the base point, with a fresh random 128-bit weight per
// signature. A batch of envelopes from one author costs about a quarter of
// checking them one by one.
//
// A batch accepts exactly when every signature satisfies the cofactored
// equation [8][s]B = [8]R + [8][k]A (RFC 8032 §5.1.7 allows either form), up to
// a probability of 2⁻¹²⁸ of accepting a bad one. It differs from
// crypto/ed25519.Verify (the cofactorless check) only for a signature whose R
// carries a small-order component, and only the holder of the private key can
// make one. Verify rejects what the per-signature check rejects on sight: a
// key that does not decode, an s that is not reduced (s ≥ ℓ), an R that does
// not decode or is not canonically encoded.
//
// When a batch fails, Verify does not say which signature is bad; callers
// that must name it check the items one by one.
package ed25519batch

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"

	"filippo.io/edwards25519"
)

// Item is one signature to check: sig by the key pub over msg.
type Item struct {
	Pub, Msg, Sig []byte
}

// Verify reports whether every item's signature is valid. An empty batch is
// valid. It never panics on malformed input: a key or signature of the wrong
// length, or one that does not decode, makes the batch invalid.
func Verify(items []Item) bool {
	if len(items) == 0 {
		return true
	}
	if len(items) == 1 {
		it := items[0]
		return len(it.Pub) == ed25519.PublicKeySize && len(it.Sig) == ed25519.SignatureSize &&
			ed25519.Verify(ed25519.PublicKey(it.Pub), it.Msg, it.Sig)
	}
	weights := make([]byte, 16*len(items))
	if _, err := rand.Read(weights); err != nil {
		return false
	}

	// Points: every R, then one per distinct key, then B. Scalars: -z for
	// R, -Σ z·k for a key, Σ z·s for B.
	points := make([]*edwards25519.Point, 0, len(items)+2)
	scalars := make([]*edwards25519.Scalar, 0, len(items)+2)
	keyIndex := map[string]int{}
	var keyPoints []*edwards25519.Point
	var keyScalars []*edwards25519.Scalar
	sumS := edwards25519.NewScalar()
	var zBuf [32]byte
	for i, it := range items {
		if len(it.Pub) != ed25519.PublicKeySize || len(it.Sig) != ed25519.SignatureSize {
			return false
		}
		rBytes, sBytes := it.Sig[:32], it.Sig[32:]
		if !canonicalPoint(rBytes) {
			return false
		}
		r, err := new(edwards25519.Point).SetBytes(rBytes)
		if err != nil {
			return false
		}
		s, err := edwards25519.NewScalar().SetCanonicalBytes(sBytes)
		if err != nil {
			return false
		}
		ki, ok := keyIndex[string(it.Pub)]
		if !ok {
			a, err := new(edwards25519.Point).SetBytes(it.Pub)
			if err != nil {
				return false
			}
			ki = len(keyPoints)
			keyIndex[string(it.Pub)] = ki
			keyPoints = append(keyPoints, a)
			keyScalars = append(keyScalars, edwards25519.NewScalar())
		}

		k := challenge(rBytes, it.Pub, it.Msg)
		copy(zBuf[:16], weights[16*i:16*i+16])
		z, err := edwards25519.NewScalar().SetCanonicalBytes(zBuf[:]) // < 2¹²⁸, so reduced
		if err != nil {
			return false
		}

		sumS.MultiplyAdd(z, s, sumS)
		keyScalars[ki].MultiplyAdd(z, k, keyScalars[ki])
		points = append(points, r)
		scalars = append(scalars, edwards25519.NewScalar().Negate(z))
	}
	for i := range keyPoints {
		points = append(points, keyPoints[i])
		scalars = append(scalars, keyScalars[i].Negate(keyScalars[i]))
	}
	points = append(points, edwards25519.NewGeneratorPoint())
	scalars = append(scalars, sumS)

	sum := new(edwards25519.Point).VarTimeMultiScalarMult(scalars, points)
	sum.MultByCofactor(sum)
	return sum.Equal(edwards25519.NewIdentityPoint()) == 1
}

// canonicalPoint reports whether b is the canonical encoding of a field
// element y < p = 2²⁵⁵ - 19 (with any sign bit): the per-signature check
// compares R's canonical re-encoding with the bytes, so it rejects the others.
// The sign bit set on x = 0 is caught by the same comparison there; here the
// only such points are y = ±1 (x = 0), which are rejected as well.
func canonicalPoint(b []byte) bool {
	// y is b with the top bit cleared, little endian. y ≥ p exactly when
	// bytes 1..30 are 0xff, byte 31 (masked) is 0x7f and byte 0 ≥ 0xed.
	nonCanonicalY := b[0] >= 0xed && b[31]&0x7f == 0x7f
	for i := 1; nonCanonicalY && i < 31; i++ {
		nonCanonicalY = b[i] == 0xff
	}
	if nonCanonicalY {
		return false
	}
	if b[31]&0x80 != 0 {
		// x = 0 happens only for y = 1 or y = p - 1; with the sign bit set
		// that is not a canonical encoding.
		if isYOne(b) || isYMinusOne(b) {
			return false
		}
	}
	return true
}

// isY reports whether b, its sign bit ignored, encodes y: low in byte 0 and
// fill in bytes 1..30 and in byte 31's low seven bits.
func isY(b []byte, low, fill byte) bool {
	if b[0] != low || b[31]&0x7f != fill&0x7f {
		return false
	}
	for i := 1; i < 31; i++ {
		if b[i] != fill {
			return false
		}
	}
	return true
}

func isYOne(b []byte) bool      { return isY(b, 1, 0) }
func isYMinusOne(b []byte) bool { return isY(b, 0xec, 0xff) } // p - 1 = 2²⁵⁵ - 20

// challenge is RFC 8032's k = SHA-512(R ‖ A ‖ M) mod ℓ.
func challenge(r, pub, msg []byte) *edwards25519.Scalar {
	h := sha512.New()
	h.Write(r)
	h.Write(pub)
	h.Write(msg)
	var digest [64]byte
	k, _ := edwards25519.NewScalar().SetUniformBytes(h.Sum(digest[:0])) // 64 bytes: cannot fail
	return k
}
