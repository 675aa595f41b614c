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

// Contest decides whether a member may contest the head of c's chain
// (docs/protocol/retention.md "A fabricated successor"). derive returns the
// public key the member derives for an epoch whose seed it holds (false for
// another); current is the member's MLS epoch after reading the log.
//
// The head's line is walked back from the head to the newest key the member
// derives at that key's own epoch (the anchor). The key after the anchor on
// the line (or the line's root when the member derives none of it) is proven
// fabricated when the member derives another key for the epoch it claims,
// or when it claims an epoch the group has not reached (a legitimate
// transition of epoch e is sent after the commit to e, so a member that has
// read the log is at e or later). Only then does Contest report ok: the
// member publishes the successor of anchor to its current epoch's key (a
// second root when anchor is nil), which contests the line and freezes the
// chain. A line the member cannot prove fabricated (it held neither the
// claimed epoch nor a later one: a member who joined since, or an epoch
// more than 64 back) is never contested; nor is a frozen chain, a head the
// member derives, or one when the member's current key is already in the
// chain or no later than the anchor's epoch.
func (c *Chain) Contest(derive func(epoch uint64) ([]byte, bool), current uint64) (anchor *ChainKey, ok bool) {
	head := c.Head()
	if head == nil {
		return nil, false
	}
	var suspect *ChainKey
	for k, n := head, 0; k != nil && n <= len(c.Keys); n++ {
		if pub, held := derive(k.Epoch); held && bytes.Equal(pub, k.Key) {
			anchor = k
			break
		}
		suspect = k
		if len(k.Prev) == 0 {
			break
		}
		k = c.find(k.Prev, false)
	}
	if suspect == nil { // the head is a key this member derives: the usual case, one derivation
		return nil, false
	}
	if own, held := derive(current); !held || c.find(own, true) != nil || anchor != nil && anchor.Epoch >= current {
		return nil, false
	}
	if pub, held := derive(suspect.Epoch); held && !bytes.Equal(pub, suspect.Key) || suspect.Epoch > current {
		return anchor, true
	}
	return nil, false
}
