// Package ed25519batch verifies many Ed25519 signatures (RFC 8032) and
// checks public keys where they enter the relay.
//
// The relay checks the author signature of every envelope it accepts
// (design/gaps.md "Relay protocol"), and clients check the same signatures
// with crypto/ed25519.Verify. Both must accept exactly the same envelopes,
// or the relay stores what every client then drops (issue 11 finding 7).
// So everything here accepts a signature exactly when crypto/ed25519.Verify
// does: the cofactorless equation [s]B = R + [k]A with R compared by its
// encoding, s < ℓ, and crypto/ed25519's decoding rules for the key.
//
// What it no longer does: a random-weight multi-scalar-multiplication batch.
// Such a batch can only check the cofactored equation [8][s]B = [8]R +
// [8][k]A: it accepted signatures whose R carries a small-order component
// (which any key's holder can make) and, for a small-order key, signatures
// anyone can make, all of which crypto/ed25519.Verify refuses. Telling them
// apart needs a subgroup check of every R, which costs as much as a
// signature check. Verify therefore checks each signature against a
// prepared key (PreparedKey, about 55 % of a crypto/ed25519 check) when its
// key signs several items, and with crypto/ed25519.Verify otherwise.
//
// Keys are checked where they enter the relay with wire.PrimeOrderKey: for
// keys of the prime-order subgroup the two equations agree on every
// signature whose R is in it too, but not on one whose R is not.
package ed25519batch

import (
	"crypto/ed25519"
	"crypto/sha512"

	"filippo.io/edwards25519"
)

// Item is one signature to check: sig by the key pub over msg.
type Item struct {
	Pub, Msg, Sig []byte
}

// prepareFrom is how many items of one key make preparing it pay (building
// the table costs about two checks; each prepared check saves about 0.45).
const prepareFrom = 5

// Verify reports whether every item's signature is valid, exactly as
// crypto/ed25519.Verify would judge each one. An empty batch is valid. It
// never panics on malformed input: a key or signature of the wrong length,
// or one that does not decode, makes the batch invalid.
func Verify(items []Item) bool {
	uses := map[string]int{}
	for _, it := range items {
		uses[string(it.Pub)]++
	}
	prepared := map[string]*PreparedKey{}
	for _, it := range items {
		if len(it.Pub) != ed25519.PublicKeySize || len(it.Sig) != ed25519.SignatureSize {
			return false
		}
		if uses[string(it.Pub)] < prepareFrom {
			if !ed25519.Verify(ed25519.PublicKey(it.Pub), it.Msg, it.Sig) {
				return false
			}
			continue
		}
		pk := prepared[string(it.Pub)]
		if pk == nil {
			var err error
			if pk, err = Prepare(it.Pub); err != nil {
				return false
			}
			prepared[string(it.Pub)] = pk
		}
		if !pk.Verify(it.Msg, it.Sig) {
			return false
		}
	}
	return true
}

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
