package identity

import (
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
)

// InviteSecret is the secret carried in an invite link (gaps.md "Invites
// and bootstrap"). Two independent Ed25519 keys are derived from it, each
// with its own HKDF label, and the secret itself never leaves the link:
//
//	grant key = Ed25519 seed HKDF-SHA256(ikm = secret, salt = "weald 1 invite", info = "weald 1 invite grant", 32)
//	proof key = Ed25519 seed HKDF-SHA256(ikm = secret, salt = "weald 1 invite", info = "weald 1 invite proof", 32)
//
// The grant key's public key is the grant: the roster's invite record and
// the relay's access set hold it, and the grant connection's AUTH proves
// possession of the grant key by a signature over the relay's challenge
// (docs/protocol/wire.md "Authentication"). The proof key signs the roster
// redemption. Nothing the relay sees (the grant, the AUTH signatures, the
// proof key's public half) lets it compute the proof key's seed.
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

// Grant returns the grant: the public grant key. The roster's invite
// record stores it and the relay checks it in access sets and at grant
// authentication, so any admin can put an invite's grant in the access set
// (or leave it out) from the roster alone (docs/protocol/identity.md).
func (s InviteSecret) Grant() [32]byte {
	k, err := s.GrantKey()
	if err != nil {
		return [32]byte{}
	}
	return [32]byte(k.Public().Bytes())
}

// GrantKey derives the invite's grant key, which answers the relay's
// challenge on a grant connection.
func (s InviteSecret) GrantKey() (InviteGrantPrivate, error) {
	return deriveInviteKey[InviteGrant](s, "weald 1 invite grant")
}

// ProofKey derives the invite's proof key, which signs the redemption.
func (s InviteSecret) ProofKey() (InviteProofPrivate, error) {
	return deriveInviteKey[InviteProof](s, "weald 1 invite proof")
}

func deriveInviteKey[K KeyKind](s InviteSecret, info string) (PrivateKey[K], error) {
	if s.s == nil {
		return PrivateKey[K]{}, ErrZeroKey
	}
	seed, err := hkdf.Key(sha256.New, s.s[:], []byte("weald 1 invite"), info, 32)
	if err != nil {
		return PrivateKey[K]{}, err
	}
	return PrivateFromSeed[K](seed)
}

// String never prints the secret.
func (s InviteSecret) String() string { return "invite-secret:(secret)" }

// GoString is String.
func (s InviteSecret) GoString() string { return s.String() }

// Format makes every fmt verb print String.
func (s InviteSecret) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }
