package suite

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/subtle"
	"io"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// ErrBadSignature is returned when a signature does not verify.
var ErrBadSignature = errcode.New("mls/suite/bad_signature", "the signature does not verify")

// ErrBadKey is returned when a key's encoding is invalid for the suite.
var ErrBadKey = errcode.New("mls/suite/bad_key", "the key is not valid for this cipher suite")

// SigningKey is a parsed signature private key of one suite. Its String
// method never prints secret bytes.
type SigningKey struct {
	suite *Suite
	ed    ed25519.PrivateKey
	ec    *ecdsa.PrivateKey
	priv  []byte
	pub   []byte
	raw   []byte // the bytes it was parsed from (priv before padding)
}

// Suite returns the suite the key belongs to.
func (k *SigningKey) Suite() *Suite { return k.suite }

// Bytes returns the private key encoding (Ed25519 seed or ECDSA scalar).
func (k *SigningKey) Bytes() []byte { return append([]byte(nil), k.priv...) }

// Public returns the public key encoding (Ed25519 key or uncompressed point).
func (k *SigningKey) Public() []byte { return append([]byte(nil), k.pub...) }

// String describes the key without revealing it.
func (k *SigningKey) String() string { return "SigningKey(" + k.suite.String() + ")" }

// ParseSigningKey parses a signature private key. Parsing costs a scalar
// multiplication, so the suite remembers the last key it parsed and
// returns the same (immutable) *SigningKey when given the same bytes
// again: a group that signs with one key pays for parsing once.
func (s *Suite) ParseSigningKey(priv []byte) (*SigningKey, error) {
	if last := s.lastKey.Load(); last != nil && len(last.raw) == len(priv) && subtle.ConstantTimeCompare(last.raw, priv) == 1 {
		return last, nil
	}
	k, err := s.parseSigningKey(priv)
	if err != nil {
		return nil, err
	}
	k.raw = append([]byte(nil), priv...)
	s.lastKey.Store(k)
	return k, nil
}

func (s *Suite) parseSigningKey(priv []byte) (*SigningKey, error) {
	k := &SigningKey{suite: s, priv: append([]byte(nil), priv...)}
	switch s.sig {
	case sigEd25519:
		if len(priv) != ed25519.SeedSize {
			return nil, ErrBadKey
		}
		k.ed = ed25519.NewKeyFromSeed(priv)
		k.pub = append([]byte(nil), k.ed.Public().(ed25519.PublicKey)...)
	default:
		// Some encoders strip leading zero bytes of the scalar (the
		// vectors' P-521 keys have 65 bytes): left-pad to the curve size.
		if len(priv) > 0 && len(priv) < s.nsk {
			priv = append(make([]byte, s.nsk-len(priv)), priv...)
			k.priv = priv
		}
		ec, err := ecdsa.ParseRawPrivateKey(s.curve, priv)
		if err != nil {
			return nil, ErrBadKey
		}
		k.ec = ec
		if k.pub, err = ec.PublicKey.Bytes(); err != nil {
			return nil, ErrBadKey
		}
	}
	return k, nil
}

// GenerateSigningKey creates a signature key pair from rand.
func (s *Suite) GenerateSigningKey(rand io.Reader) (*SigningKey, error) {
	if s.sig == sigEd25519 {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := io.ReadFull(rand, seed); err != nil {
			return nil, err
		}
		return s.ParseSigningKey(seed)
	}
	k, err := randomKey(rand, s.dh, s.nsk)
	if err != nil {
		return nil, err
	}
	return s.ParseSigningKey(k.Bytes())
}

// signContent encodes SignContent (RFC 9420 §5.1.2):
//
//	struct { opaque label<V> = "MLS 1.0 " + Label; opaque content<V>; } SignContent;
func signContent(label string, content []byte) []byte {
	w := codec.NewWriter(make([]byte, 0, 16+len(label)+len(content)))
	writeLabel(w, label)
	w.Opaque(content)
	return w.Bytes()
}

func (s *Suite) digest(msg []byte) []byte { return s.Hash(msg) }

// SignWithLabel signs SignContent{label, content} with k (RFC 9420 §5.1.2).
// rand is passed to ECDSA signing (which in Go 1.26 uses the system source).
func (s *Suite) SignWithLabel(rand io.Reader, k *SigningKey, label string, content []byte) ([]byte, error) {
	if k == nil || k.suite != s {
		return nil, ErrBadKey
	}
	msg := signContent(label, content)
	if s.sig == sigEd25519 {
		return ed25519.Sign(k.ed, msg), nil
	}
	return ecdsa.SignASN1(rand, k.ec, s.digest(msg))
}

// VerifyWithLabel checks signature over SignContent{label, content} under
// the public key pub (RFC 9420 §5.1.2). It returns ErrBadSignature or
// ErrBadKey on failure and never panics.
func (s *Suite) VerifyWithLabel(pub []byte, label string, content, signature []byte) error {
	msg := signContent(label, content)
	if s.sig == sigEd25519 {
		if len(pub) != ed25519.PublicKeySize {
			return ErrBadKey
		}
		if !ed25519.Verify(pub, msg, signature) {
			return ErrBadSignature
		}
		return nil
	}
	pk, err := ecdsa.ParseUncompressedPublicKey(s.curve, pub)
	if err != nil {
		return ErrBadKey
	}
	if !ecdsa.VerifyASN1(pk, s.digest(msg), signature) {
		return ErrBadSignature
	}
	return nil
}

// ValidateSignaturePublicKey checks that pub is a valid signature public
// key encoding for the suite.
func (s *Suite) ValidateSignaturePublicKey(pub []byte) error {
	if s.sig == sigEd25519 {
		if len(pub) != ed25519.PublicKeySize {
			return ErrBadKey
		}
		return nil
	}
	if _, err := ecdsa.ParseUncompressedPublicKey(s.curve, pub); err != nil {
		return ErrBadKey
	}
	return nil
}
