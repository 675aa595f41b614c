package retention

import (
	"crypto/ed25519"
	"fmt"

	"weald/backend/wire"
)

// LabelKey is the MLS exporter label of the retention signing key
// (design/gaps.md "Groups and keys": "an Ed25519 key derived from the MLS
// exporter of each epoch").
const LabelKey = "weald/retention"

// Exporter is what the package needs of an MLS epoch: its MLS-Exporter
// (RFC 9420 §8.5).
type Exporter interface {
	Export(label string, context []byte, length int) ([]byte, error)
}

// KeySeed returns the 32-byte Ed25519 seed of an epoch's retention key:
// MLS-Exporter(epoch, "weald/retention", group id, 32). Every member of the
// epoch derives the same key; nobody else can.
func KeySeed(epoch Exporter, group wire.ID) ([]byte, error) {
	s, err := epoch.Export(LabelKey, group[:], ed25519.SeedSize)
	if err != nil {
		return nil, fmt.Errorf("retention key: %w", err)
	}
	return s, nil
}

// Key returns the private key of a seed from [KeySeed].
func Key(seed []byte) (ed25519.PrivateKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: a retention key seed is 32 bytes", ErrNoKey)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// Pub returns the public half of priv.
func Pub(priv ed25519.PrivateKey) []byte {
	return append([]byte(nil), priv.Public().(ed25519.PublicKey)...)
}

// Root returns the transition that starts a group's chain: the epoch's key,
// signed by the publishing device (which must author the envelope).
func Root(group wire.ID, epoch uint64, key ed25519.PrivateKey, device ed25519.PrivateKey) wire.RetentionTransition {
	t := wire.RetentionTransition{Group: group, Epoch: epoch, NewKey: Pub(key)}
	t.Sign(device)
	return t
}

// Successor returns the transition from prev (the chain's head) to the key
// of a later epoch, signed by prev.
func Successor(group wire.ID, epoch uint64, prev, next ed25519.PrivateKey) wire.RetentionTransition {
	t := wire.RetentionTransition{Group: group, Epoch: epoch, PrevKey: Pub(prev), NewKey: Pub(next)}
	t.Sign(prev)
	return t
}
