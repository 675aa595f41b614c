package retention

import (
	"bytes"
	"fmt"

	"weald/backend/wire"
)

// ChainKey is one published retention key of a group.
type ChainKey struct {
	Key   []byte `json:"key"`
	Prev  []byte `json:"prev,omitempty"` // empty for a root
	Epoch uint64 `json:"epoch"`
	Dead  bool   `json:"dead,omitempty"` // discarded by a resolution
}

// Chain is a client's view of a group's key-transition chain, built from the
// group's retention.transition envelopes in log order and judged by the
// rules the relay applies on accept (docs/protocol/wire.md "Relay-visible
// retention objects"), so a client trusts exactly the keys the relay does:
// a root is signed by the device that authors its envelope (a device of the
// roster); a successor by the key it succeeds, with a later epoch. A second
// root or a second successor of one key is kept as evidence and freezes the
// chain. It is stored with the group's state (JSON).
type Chain struct {
	Keys   []ChainKey `json:"keys,omitempty"`
	Frozen bool       `json:"frozen,omitempty"`
}

// Add judges a transition published in an envelope by a device whose
// roster key is author. It returns ErrBadTransition for one the relay
// would have refused (the client then ignores it).
func (c *Chain) Add(t *wire.RetentionTransition, author []byte) error {
	if t.VerifySignature() != nil {
		return fmt.Errorf("%w: signature", ErrBadTransition)
	}
	if t.IsRoot() {
		if !bytes.Equal(t.Signer, author) {
			return fmt.Errorf("%w: a root must be signed by the device that publishes it", ErrBadTransition)
		}
	} else {
		prev := c.find(t.PrevKey, false)
		if prev == nil {
			return fmt.Errorf("%w: it succeeds a key the group never published", ErrBadTransition)
		}
		if t.Epoch <= prev.Epoch {
			return fmt.Errorf("%w: a successor must belong to a later epoch", ErrBadTransition)
		}
	}
	if bytes.Equal(t.NewKey, t.PrevKey) {
		return fmt.Errorf("%w: a key cannot succeed itself", ErrBadTransition)
	}
	if k := c.find(t.NewKey, true); k != nil {
		if bytes.Equal(k.Prev, t.PrevKey) {
			return nil // published again
		}
		return fmt.Errorf("%w: the key was already published with another predecessor", ErrBadTransition)
	}
	for _, k := range c.Keys {
		if !k.Dead && bytes.Equal(k.Prev, t.PrevKey) {
			c.Frozen = true
		}
	}
	c.Keys = append(c.Keys, ChainKey{Key: append([]byte(nil), t.NewKey...), Prev: append([]byte(nil), t.PrevKey...), Epoch: t.Epoch})
	return nil
}

// Resolve ends a frozen chain: key (a current tip) continues it and every
// key off its line of ancestors is discarded.
func (c *Chain) Resolve(key []byte) error {
	if !c.Frozen || !c.IsTip(key) {
		return fmt.Errorf("%w: a resolution names a tip of a frozen chain", ErrBadTransition)
	}
	keep := map[string]bool{}
	for k := c.find(key, false); k != nil && !keep[string(k.Key)]; k = c.find(k.Prev, false) {
		keep[string(k.Key)] = true
		if len(k.Prev) == 0 {
			break
		}
	}
	for i := range c.Keys {
		if !keep[string(c.Keys[i].Key)] {
			c.Keys[i].Dead = true
		}
	}
	c.Frozen = false
	return nil
}

func (c *Chain) find(key []byte, dead bool) *ChainKey {
	for i := range c.Keys {
		if (dead || !c.Keys[i].Dead) && bytes.Equal(c.Keys[i].Key, key) {
			return &c.Keys[i]
		}
	}
	return nil
}

// Has reports whether key is a live key of the chain (a checkpoint under
// any of them may be named by a later drop).
func (c *Chain) Has(key []byte) bool { return c.find(key, false) != nil }

// IsTip reports whether key is a live key without a live successor: the
// current key (or, in a frozen chain, a contested one). Only a tip signs a
// checkpoint, so a member removed since cannot write one.
func (c *Chain) IsTip(key []byte) bool {
	if !c.Has(key) {
		return false
	}
	for _, k := range c.Keys {
		if !k.Dead && bytes.Equal(k.Prev, key) {
			return false
		}
	}
	return true
}

// Head returns the chain's current key (nil when empty or frozen).
func (c *Chain) Head() *ChainKey {
	if c.Frozen {
		return nil
	}
	for i := range c.Keys {
		if c.IsTip(c.Keys[i].Key) {
			return &c.Keys[i]
		}
	}
	return nil
}
