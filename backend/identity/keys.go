package identity

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"weald/backend/errcode"
)

// KeyKind names one kind of Ed25519 key. It is implemented only by the
// zero-size marker types of this package.
type KeyKind interface {
	prefix() string
}

// Marker types for the key kinds.
type (
	// Device keys sign for one device of a user.
	Device struct{}
	// Agent keys sign for an agent admitted by a delegation certificate.
	Agent struct{}
	// Recovery keys sign for a user's recovery principal (derived from the phrase).
	Recovery struct{}
	// Genesis keys are recorded at provisioning and sign the roster's genesis.
	Genesis struct{}
	// InviteProof keys are derived from an invite secret and prove it at redemption.
	InviteProof struct{}
	// InviteGrant keys are derived from an invite secret and authenticate a
	// grant connection to the relay; the public key is the grant.
	InviteGrant struct{}
)

func (Device) prefix() string      { return "dev" }
func (Agent) prefix() string       { return "agent" }
func (Recovery) prefix() string    { return "rec" }
func (Genesis) prefix() string     { return "gen" }
func (InviteProof) prefix() string { return "invproof" }
func (InviteGrant) prefix() string { return "invgrant" }

// Concrete key types.
type (
	DevicePrivate      = PrivateKey[Device]
	DevicePublic       = PublicKey[Device]
	AgentPrivate       = PrivateKey[Agent]
	AgentPublic        = PublicKey[Agent]
	RecoveryPrivate    = PrivateKey[Recovery]
	RecoveryPublic     = PublicKey[Recovery]
	GenesisPrivate     = PrivateKey[Genesis]
	GenesisPublic      = PublicKey[Genesis]
	InviteProofPrivate = PrivateKey[InviteProof]
	InviteProofPublic  = PublicKey[InviteProof]
	InviteGrantPrivate = PrivateKey[InviteGrant]
	InviteGrantPublic  = PublicKey[InviteGrant]
)

// Errors about keys.
var (
	ErrBadKey       = errcode.New("identity/bad_key", "the key is not a valid 32-byte Ed25519 key")
	ErrKeyPrefix    = errcode.New("identity/key_prefix", "the key text does not carry the expected kind prefix")
	ErrZeroKey      = errcode.New("identity/zero_key", "the key is not set")
	ErrBadSignature = errcode.New("identity/bad_signature", "the signature does not verify")
	ErrBadLabel     = errcode.New("identity/bad_label", "a signature label must be 1 to 64 printable ASCII characters")
)

// PrivateKey is an Ed25519 private key of kind K. The zero value is "no key".
// It is not comparable with == and never prints its secret.
type PrivateKey[K KeyKind] struct {
	_ [0]func()
	// s is the only field: behind a pointer, so that even printing a
	// struct that holds this key in an unexported field shows an address.
	s *secretKey
}

type secretKey struct {
	seed [ed25519.SeedSize]byte
	priv ed25519.PrivateKey
}

// PublicKey is an Ed25519 public key of kind K. The zero value is "no key".
// It is not comparable with ==; use Equal.
type PublicKey[K KeyKind] struct {
	_   [0]func()
	set bool
	k   [ed25519.PublicKeySize]byte
}

func kindPrefix[K KeyKind]() string {
	var k K
	return k.prefix()
}

// GenerateKey reads a 32-byte seed from rand and returns the key of kind K.
func GenerateKey[K KeyKind](rand io.Reader) (PrivateKey[K], error) {
	var seed [ed25519.SeedSize]byte
	if _, err := io.ReadFull(rand, seed[:]); err != nil {
		return PrivateKey[K]{}, fmt.Errorf("generate %s key: %w", kindPrefix[K](), err)
	}
	return PrivateFromSeed[K](seed[:])
}

// PrivateFromSeed rebuilds a private key from its 32-byte seed (as returned
// by [PrivateKey.Seed]), for loading from the device's key store.
func PrivateFromSeed[K KeyKind](seed []byte) (PrivateKey[K], error) {
	if len(seed) != ed25519.SeedSize {
		return PrivateKey[K]{}, ErrBadKey
	}
	sk := &secretKey{priv: ed25519.NewKeyFromSeed(seed)}
	copy(sk.seed[:], seed)
	return PrivateKey[K]{s: sk}, nil
}

// IsZero reports whether the key is unset.
func (k PrivateKey[K]) IsZero() bool { return k.s == nil }

// Seed returns a copy of the secret 32-byte seed, for the key store only.
func (k PrivateKey[K]) Seed() []byte {
	if k.s == nil {
		return nil
	}
	return append([]byte(nil), k.s.seed[:]...)
}

// Public returns the public half.
func (k PrivateKey[K]) Public() PublicKey[K] {
	if k.s == nil {
		return PublicKey[K]{}
	}
	var p PublicKey[K]
	p.set = true
	copy(p.k[:], k.s.priv[ed25519.SeedSize:])
	return p
}

// Equal reports whether two private keys are the same key (constant time).
func (k PrivateKey[K]) Equal(o PrivateKey[K]) bool {
	if k.s == nil || o.s == nil {
		return k.s == nil && o.s == nil
	}
	return subtle.ConstantTimeCompare(k.s.seed[:], o.s.seed[:]) == 1
}

// String prints the kind and the public key's short form, never the secret.
func (k PrivateKey[K]) String() string {
	if k.s == nil {
		return kindPrefix[K]() + "priv:none"
	}
	return kindPrefix[K]() + "priv:" + k.Public().shortHex() + "…"
}

// GoString is String, so %#v never prints the secret either.
func (k PrivateKey[K]) GoString() string { return k.String() }

// Format makes every fmt verb print String.
func (k PrivateKey[K]) Format(f fmt.State, _ rune) { io.WriteString(f, k.String()) }

// MarshalText refuses: private keys are stored through Seed, never as text by accident.
func (k PrivateKey[K]) MarshalText() ([]byte, error) {
	return nil, errcode.New("identity/secret_marshal", "private keys are not marshalled as text")
}

// Sign signs content under label (see [SignedContent]).
func (k PrivateKey[K]) Sign(label Label, content []byte) ([]byte, error) {
	if k.s == nil {
		return nil, ErrZeroKey
	}
	msg, err := SignedContent(label, content)
	if err != nil {
		return nil, err
	}
	return ed25519.Sign(k.s.priv, msg), nil
}

// PublicFromBytes parses a raw 32-byte public key of kind K.
func PublicFromBytes[K KeyKind](b []byte) (PublicKey[K], error) {
	if len(b) != ed25519.PublicKeySize {
		return PublicKey[K]{}, ErrBadKey
	}
	var p PublicKey[K]
	p.set = true
	copy(p.k[:], b)
	return p, nil
}

// IsZero reports whether the key is unset.
func (p PublicKey[K]) IsZero() bool { return !p.set }

// Bytes returns the raw 32 bytes (nil for the zero key).
func (p PublicKey[K]) Bytes() []byte {
	if !p.set {
		return nil
	}
	return append([]byte(nil), p.k[:]...)
}

// Equal reports whether two public keys are the same.
func (p PublicKey[K]) Equal(o PublicKey[K]) bool { return p.set == o.set && p.k == o.k }

// Hash returns SHA-256 of the raw public key: the principal id of its owner.
func (p PublicKey[K]) Hash() [32]byte { return sha256.Sum256(p.k[:]) }

func (p PublicKey[K]) shortHex() string { return hex.EncodeToString(p.k[:4]) }

// String prints "<kind>pub:<64 hex>".
func (p PublicKey[K]) String() string {
	if !p.set {
		return kindPrefix[K]() + "pub:none"
	}
	return kindPrefix[K]() + "pub:" + hex.EncodeToString(p.k[:])
}

// ShortString prints "<kind>pub:<8 hex>…", for logs and UIs.
func (p PublicKey[K]) ShortString() string {
	if !p.set {
		return kindPrefix[K]() + "pub:none"
	}
	return kindPrefix[K]() + "pub:" + p.shortHex() + "…"
}

// MarshalText encodes String.
func (p PublicKey[K]) MarshalText() ([]byte, error) {
	if !p.set {
		return nil, ErrZeroKey
	}
	return []byte(p.String()), nil
}

// UnmarshalText parses the output of MarshalText; a key of another kind is refused.
func (p *PublicKey[K]) UnmarshalText(b []byte) error {
	pre := kindPrefix[K]() + "pub:"
	s := string(b)
	if !strings.HasPrefix(s, pre) {
		return fmt.Errorf("%w: want %q", ErrKeyPrefix, pre)
	}
	raw, err := hex.DecodeString(s[len(pre):])
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return ErrBadKey
	}
	q, _ := PublicFromBytes[K](raw)
	*p = q
	return nil
}

// Verify checks sig over content under label.
func (p PublicKey[K]) Verify(label Label, content, sig []byte) error {
	if !p.set {
		return ErrZeroKey
	}
	msg, err := SignedContent(label, content)
	if err != nil {
		return err
	}
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(ed25519.PublicKey(p.k[:]), msg, sig) {
		return fmt.Errorf("%w (%s, label %q)", ErrBadSignature, p.ShortString(), string(label))
	}
	return nil
}
