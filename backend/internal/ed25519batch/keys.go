package ed25519batch

import (
	"crypto/ed25519"
	"crypto/sha512"

	"filippo.io/edwards25519"
)

// invEight is 8⁻¹ mod ℓ: [8⁻¹]([8]P) is P's component in the prime-order
// subgroup.
var invEight = func() *edwards25519.Scalar {
	var b [32]byte
	b[0] = 8
	s, _ := edwards25519.NewScalar().SetCanonicalBytes(b[:])
	return s.Invert(s)
}()

// torsion returns p's small-order component: p − [8⁻¹]([8]p).
func torsion(p *edwards25519.Point) *edwards25519.Point {
	q := new(edwards25519.Point).MultByCofactor(p)
	q.ScalarMult(invEight, q)
	return q.Subtract(p, q)
}

// smallOrder is a point of order 8 (the torsion component of the point
// whose encoding is 32 bytes of 3).
var smallOrder = func() *edwards25519.Point {
	var b [32]byte
	for i := range b {
		b[i] = 3
	}
	for {
		if p, err := new(edwards25519.Point).SetBytes(b[:]); err == nil {
			t := torsion(p)
			t4 := new(edwards25519.Point).Add(t, t)
			t4.Add(t4, t4)
			t8 := new(edwards25519.Point).Add(t4, t4)
			if t8.Equal(edwards25519.NewIdentityPoint()) == 1 && t4.Equal(edwards25519.NewIdentityPoint()) == 0 {
				return t
			}
		}
		b[0]++
	}
}()

// SignWithTorsion signs msg with priv and then adds the j-th multiple of a
// small-order point to R (j mod 8; j = 0 is crypto/ed25519.Sign's
// signature). The result satisfies the cofactored equation and, for j ≠
// 0, not the cofactorless one: what any key holder can make to probe
// whether a verifier is cofactored. For tests of verifiers.
func SignWithTorsion(priv ed25519.PrivateKey, msg []byte, j int) []byte {
	pub := priv.Public().(ed25519.PublicKey)
	h := sha512.Sum512(priv.Seed())
	a, _ := edwards25519.NewScalar().SetBytesWithClamping(h[:32])
	nonce := sha512.Sum512(append(h[32:], msg...)) // RFC 8032's r: j = 0 is ed25519.Sign's signature
	r, _ := edwards25519.NewScalar().SetUniformBytes(nonce[:])
	t := edwards25519.NewIdentityPoint()
	for i := 0; i < j&7; i++ {
		t.Add(t, smallOrder)
	}
	R := new(edwards25519.Point).ScalarBaseMult(r)
	R.Add(R, t)
	k := challenge(R.Bytes(), pub, msg)
	s := edwards25519.NewScalar().MultiplyAdd(k, a, r)
	return append(R.Bytes(), s.Bytes()...)
}
