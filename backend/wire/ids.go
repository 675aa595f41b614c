package wire

import (
	"crypto/sha256"
	"encoding/hex"
)

// ID is a 32-byte identifier: a workspace, group, device, agent or grant hash.
type ID [32]byte

// ZeroID is the all-zero id: the previous hash of an author's first envelope
// in a group and the head of an empty roster.
var ZeroID ID

// String returns the id in lower-case hex.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Short returns the first 8 hex digits, for logs.
func (id ID) Short() string { return hex.EncodeToString(id[:4]) }

// IsZero reports whether id is all zeros.
func (id ID) IsZero() bool { return id == ZeroID }

// IDFromBytes returns b as an ID and whether it was exactly 32 bytes.
func IDFromBytes(b []byte) (ID, bool) {
	var id ID
	if len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, true
}

// KeyID is the id of a principal key: SHA-256 of its Ed25519 public key
// (device_id, agent id, recovery principal id; conventions "Ids").
func KeyID(pub []byte) ID { return sha256.Sum256(pub) }
