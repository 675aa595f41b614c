package mls

import (
	"crypto/rand"
	"io"
	"time"

	"weald/backend/mls/tree"
)

// Config is what a group needs from its environment. The zero value is
// usable in tests only through [Config.withDefaults]; backend code passes
// its own Rand and Now.
type Config struct {
	// Rand is the source of every random value (keys, nonces, reuse guards,
	// padding is deterministic). Nil means crypto/rand.
	Rand io.Reader
	// Now is the clock checked against KeyPackage and leaf lifetimes. Nil
	// skips lifetime checks of incoming key packages.
	Now func() time.Time
	// Credential authenticates every leaf that enters a group or is in a
	// tree received on joining (RFC 9420 §5.3.1): key packages of Adds,
	// Updates, commit path leaves, external joiners, Welcome and GroupInfo
	// trees. The engine plugs the roster in here. Nil accepts all.
	Credential tree.CredentialFunc
	// PSKs resolves external pre-shared keys by id; nil knows none.
	PSKs func(id []byte) ([]byte, bool)
	// MaxForwardRatchet bounds how far a receiver ratchets forward in one
	// secret-tree chain for out-of-order messages (default 1024).
	MaxForwardRatchet uint32
	// Padding pads PrivateMessage content to a multiple of this many bytes
	// (0: no padding).
	Padding int
	// ParallelEncryption, if above 1, lets a commit encrypt its path
	// secrets on up to that many goroutines (a sparse tree needs one HPKE
	// encryption per unmerged leaf). Rand must then be safe for concurrent
	// use (crypto/rand is), and the output no longer follows from the
	// reader alone.
	ParallelEncryption int
}

func (c *Config) parallel() int {
	if c == nil {
		return 0
	}
	return c.ParallelEncryption
}

func (c *Config) rand() io.Reader {
	if c == nil || c.Rand == nil {
		return rand.Reader
	}
	return c.Rand
}

// now is Unix seconds, or 0 when no clock was given (lifetimes unchecked).
func (c *Config) now() uint64 {
	if c == nil || c.Now == nil {
		return 0
	}
	t := c.Now().Unix()
	if t < 0 {
		return 0
	}
	return uint64(t)
}

func (c *Config) credential() tree.CredentialFunc {
	if c == nil {
		return nil
	}
	return c.Credential
}
