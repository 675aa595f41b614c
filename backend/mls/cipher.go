package mls

import (
	"io"

	"weald/backend/mls/suite"
)

// cipher binds a cipher suite to the group's randomness. It satisfies the
// tree package's Suite interface, so TreeKEM and leaf signing run on the
// same suite and reader as the rest of the group.
type cipher struct {
	s    *suite.Suite
	rand io.Reader
}

func newCipher(id uint16, rand io.Reader) (*cipher, error) {
	s, err := suite.ByID(suite.ID(id))
	if err != nil {
		return nil, unsupported(err)
	}
	return &cipher{s: s, rand: rand}, nil
}

func (c *cipher) ID() uint16              { return uint16(c.s.ID()) }
func (c *cipher) SecretSize() int         { return c.s.Nh() }
func (c *cipher) Hash(data []byte) []byte { return c.s.Hash(data) }
func (c *cipher) RefHash(label string, value []byte) []byte {
	return c.s.RefHash(label, value)
}

func (c *cipher) DeriveSecret(secret []byte, label string) ([]byte, error) {
	return c.s.DeriveSecret(secret, label), nil
}

func (c *cipher) DeriveKeyPair(ikm []byte) (priv, pub []byte, err error) {
	kp, err := c.s.DeriveKeyPair(ikm)
	if err != nil {
		return nil, nil, err
	}
	return kp.Private, kp.Public, nil
}

func (c *cipher) SignWithLabel(priv []byte, label string, content []byte) ([]byte, error) {
	k, err := c.s.ParseSigningKey(priv)
	if err != nil {
		return nil, err
	}
	return c.s.SignWithLabel(c.rand, k, label, content)
}

func (c *cipher) VerifyWithLabel(pub []byte, label string, content, signature []byte) bool {
	return c.s.VerifyWithLabel(pub, label, content, signature) == nil
}

func (c *cipher) EncryptWithLabel(pub []byte, label string, context, plaintext []byte) ([]byte, []byte, error) {
	return c.s.EncryptWithLabel(c.rand, pub, label, context, plaintext)
}

func (c *cipher) DecryptWithLabel(priv []byte, label string, context, kemOutput, ciphertext []byte) ([]byte, error) {
	return c.s.DecryptWithLabel(c.hpkePriv(priv), label, context, kemOutput, ciphertext)
}

// hpkePriv left-pads a NIST-curve HPKE private key given as a minimal
// big-endian scalar (as some implementations and the RFC 9420 vectors for
// P-521 do) to the KEM's Nsk.
func (c *cipher) hpkePriv(priv []byte) []byte {
	var nsk int
	switch c.s.ID() {
	case 2:
		nsk = 32
	case 5:
		nsk = 66
	case 7:
		nsk = 48
	default:
		return priv
	}
	if len(priv) >= nsk || len(priv) == 0 {
		return priv
	}
	out := make([]byte, nsk)
	copy(out[nsk-len(priv):], priv)
	return out
}
