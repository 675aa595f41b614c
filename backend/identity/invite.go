package identity

import (
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
)

// InviteSecret is the secret carried in an invite link (gaps.md "Invites
// and bootstrap"). Its domain-separated SHA-256 is the grant hash the relay
// (wire.GrantHash) and the roster's invite record hold; an Ed25519 key
// derived from it proves possession at redemption without revealing it:
//
//	grant     = SHA-256("weald 1 grant" || secret)
//	proof key = Ed25519 seed HKDF-SHA256(ikm = secret, salt = "weald 1 invite", info = "weald 1 invite proof", 32)
//
// Not comparable with ==, never printed by fmt.
type InviteSecret struct {
	_ [0]func()
	s *[32]byte
}

// NewInviteSecret draws 32 bytes from rand.
func NewInviteSecret(rand io.Reader) (InviteSecret, error) {
	var s [32]byte
	if _, err := io.ReadFull(rand, s[:]); err != nil {
		return InviteSecret{}, fmt.Errorf("new invite secret: %w", err)
	}
	return InviteSecret{s: &s}, nil
}

// InviteSecretFromBytes rebuilds a secret taken from a link.
func InviteSecretFromBytes(b []byte) (InviteSecret, error) {
	if len(b) != 32 {
		return InviteSecret{}, fmt.Errorf("%w: an invite secret is 32 bytes", ErrBadKey)
	}
	var s [32]byte
	copy(s[:], b)
	return InviteSecret{s: &s}, nil
}

// IsZero reports whether the secret is unset.
func (s InviteSecret) IsZero() bool { return s.s == nil }

// Bytes returns a copy of the secret, to put into the link.
func (s InviteSecret) Bytes() []byte {
	if s.s == nil {
		return nil
	}
	return append([]byte(nil), s.s[:]...)
}

// Equal compares in constant time.
func (s InviteSecret) Equal(o InviteSecret) bool {
	if s.s == nil || o.s == nil {
		return s.s == nil && o.s == nil
	}
	return subtle.ConstantTimeCompare(s.s[:], o.s[:]) == 1
}

// Grant returns the grant hash SHA-256("weald 1 grant" || secret): the
// roster's invite record stores it, and it is the same value as
// wire.GrantHash(secret), which the relay checks in access sets and at grant
// authentication, so any admin can put an invite's grant in the access set
// (or leave it out) from the roster alone (docs/protocol/identity.md).
func (s InviteSecret) Grant() [32]byte {
	if s.s == nil {
		return [32]byte{}
	}
	h := sha256.New()
	h.Write([]byte(LabelPrefix + "grant"))
	h.Write(s.s[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// ProofKey derives the invite's proof key.
func (s InviteSecret) ProofKey() (InviteProofPrivate, error) {
	if s.s == nil {
		return InviteProofPrivate{}, ErrZeroKey
	}
	seed, err := hkdf.Key(sha256.New, s.s[:], []byte("weald 1 invite"), "weald 1 invite proof", 32)
	if err != nil {
		return InviteProofPrivate{}, err
	}
	return PrivateFromSeed[InviteProof](seed)
}

// String never prints the secret.
func (s InviteSecret) String() string { return "invite-secret:(secret)" }

// GoString is String.
func (s InviteSecret) GoString() string { return s.String() }

// Format makes every fmt verb print String.
func (s InviteSecret) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }
