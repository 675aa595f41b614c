// Package secrettree implements the MLS secret tree of RFC 9420 §9: the
// per-epoch tree of secrets rooted at encryption_secret, the per-leaf
// handshake and application hash ratchets (§9.1), and the sender-data key
// and nonce derivation of §6.3.2.
//
// Secrets are derived lazily and deleted as soon as they are consumed
// (§9.2): a parent secret is dropped once both children exist, a leaf
// secret once its two ratchets exist, and a ratchet secret once the next
// one is derived. Receivers tolerate reordering within a bounded window:
// [Config.MaxForward] generations ahead of the ratchet, and up to
// [Config.MaxSkipped] keys of skipped generations kept per ratchet (the
// oldest are evicted first). A used key is deleted, so a replayed
// generation is rejected with [ErrKeyConsumed].
//
// Lookups ([Tree.Key]) never change state; [Tree.Consume] commits the
// use of a key after the caller has authenticated the message with it,
// so a rejected message leaves the tree as it was.
package secrettree

import (
	"fmt"
	"sort"

	"weald/backend/errcode"
	"weald/backend/mls/suite"
	"weald/backend/mls/treemath"
)

// RatchetType selects one of a leaf's two ratchets.
type RatchetType uint8

const (
	// Handshake is the ratchet for proposals and commits.
	Handshake RatchetType = 0
	// Application is the ratchet for application messages.
	Application RatchetType = 1
)

// Errors, matched with errors.Is.
var (
	ErrLeafOutOfRange = errcode.New("mls/secrettree/leaf_out_of_range", "the sender leaf is not in the tree")
	ErrTooFarAhead    = errcode.New("mls/secrettree/too_far_ahead", "the generation is too far ahead of the ratchet")
	ErrKeyConsumed    = errcode.New("mls/secrettree/key_consumed", "the key for this generation was already used or discarded")
	ErrExhausted      = errcode.New("mls/secrettree/exhausted", "the ratchet has reached its last generation")
)

// Config bounds out-of-order tolerance. Zero fields take the defaults.
type Config struct {
	// MaxForward is how many generations beyond the next expected one a
	// receiver will ratchet forward (default 1000).
	MaxForward uint32
	// MaxSkipped is how many keys of skipped generations are kept per
	// ratchet (default 1000).
	MaxSkipped int
}

func (c Config) withDefaults() Config {
	if c.MaxForward == 0 {
		c.MaxForward = 1000
	}
	if c.MaxSkipped == 0 {
		c.MaxSkipped = 1000
	}
	return c
}

// KeyNonce is the AEAD key and nonce of one generation of a ratchet.
type KeyNonce struct {
	Generation uint32
	Key        []byte
	Nonce      []byte
}

type ratchet struct {
	next    uint32 // generation of secret
	secret  []byte // ratchet secret of generation next; nil when exhausted
	skipped map[uint32]KeyNonce
}

type leafState struct {
	ratchets [2]*ratchet
}

// Tree is the secret tree of one epoch. It is not safe for concurrent use.
type Tree struct {
	suite   *suite.Suite
	nLeaves uint32
	cfg     Config
	nodes   map[treemath.NodeIndex][]byte // node secrets not yet expanded
	leaves  map[treemath.LeafIndex]*leafState
}

// New returns the secret tree of an epoch with encryption_secret and
// nLeaves leaves (the ratchet tree's leaf count, a power of two).
func New(s *suite.Suite, encryptionSecret []byte, nLeaves uint32, cfg Config) (*Tree, error) {
	if nLeaves == 0 || nLeaves&(nLeaves-1) != 0 {
		return nil, fmt.Errorf("secrettree: leaf count %d is not a power of two", nLeaves)
	}
	t := &Tree{suite: s, nLeaves: nLeaves, cfg: cfg.withDefaults(),
		nodes:  map[treemath.NodeIndex][]byte{treemath.Root(nLeaves): append([]byte(nil), encryptionSecret...)},
		leaves: map[treemath.LeafIndex]*leafState{}}
	return t, nil
}

// LeafCount returns the number of leaves.
func (t *Tree) LeafCount() uint32 { return t.nLeaves }

func (t *Tree) expand(secret []byte, label string, ctx []byte, n int) []byte {
	out, err := t.suite.ExpandWithLabel(secret, label, ctx, n)
	if err != nil {
		panic("secrettree: " + err.Error()) // unreachable: lengths are Nh/Nk/Nn
	}
	return out
}

// leafSecret returns the secret of leaf's node, deriving it from the
// nearest stored ancestor. With commit, intermediate secrets are stored and
// consumed ones deleted; without, the tree is not modified.
func (t *Tree) leafSecret(leaf treemath.LeafIndex, commit bool) ([]byte, bool) {
	target := leaf.Node()
	// Path from target up to the root.
	var path []treemath.NodeIndex
	path = append(path, target)
	path = treemath.DirectPath(path, target, t.nLeaves)
	// Find the lowest node on the path that holds a secret.
	start := -1
	for i, n := range path {
		if _, ok := t.nodes[n]; ok {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	secret := t.nodes[path[start]]
	for i := start; i > 0; i-- {
		node, child := path[i], path[i-1]
		left, _ := treemath.Left(node)
		right, _ := treemath.Right(node)
		ls := t.expand(secret, "tree", []byte("left"), t.suite.Nh())
		rs := t.expand(secret, "tree", []byte("right"), t.suite.Nh())
		if commit {
			delete(t.nodes, node)
			t.nodes[left], t.nodes[right] = ls, rs
		}
		if child == left {
			secret = ls
		} else {
			secret = rs
		}
	}
	if commit {
		delete(t.nodes, target)
	}
	return secret, true
}

// ratchetFor returns the ratchet (nil, nil if not yet created). With
// create, a missing ratchet pair is initialised from the leaf secret.
func (t *Tree) ratchetFor(leaf treemath.LeafIndex, typ RatchetType, create bool) (*ratchet, error) {
	if uint32(leaf) >= t.nLeaves || typ > Application {
		return nil, ErrLeafOutOfRange
	}
	if ls, ok := t.leaves[leaf]; ok {
		return ls.ratchets[typ], nil
	}
	secret, ok := t.leafSecret(leaf, create)
	if !ok {
		return nil, ErrKeyConsumed
	}
	h := &ratchet{secret: t.expand(secret, "handshake", nil, t.suite.Nh())}
	a := &ratchet{secret: t.expand(secret, "application", nil, t.suite.Nh())}
	if create {
		t.leaves[leaf] = &leafState{ratchets: [2]*ratchet{h, a}}
	}
	if typ == Handshake {
		return h, nil
	}
	return a, nil
}

func (t *Tree) keyNonce(secret []byte, gen uint32) KeyNonce {
	k, _ := t.suite.DeriveTreeSecret(secret, "key", gen, t.suite.Nk())
	n, _ := t.suite.DeriveTreeSecret(secret, "nonce", gen, t.suite.Nn())
	return KeyNonce{Generation: gen, Key: k, Nonce: n}
}

func (t *Tree) nextSecret(secret []byte, gen uint32) []byte {
	s, _ := t.suite.DeriveTreeSecret(secret, "secret", gen, t.suite.Nh())
	return s
}

// Key returns the key and nonce of generation gen of leaf's ratchet
// without changing the tree. It fails with ErrKeyConsumed for a generation
// already used or evicted, ErrTooFarAhead beyond the forward window.
func (t *Tree) Key(leaf treemath.LeafIndex, typ RatchetType, gen uint32) (KeyNonce, error) {
	r, err := t.ratchetFor(leaf, typ, false)
	if err != nil {
		return KeyNonce{}, err
	}
	if gen < r.next || r.secret == nil {
		if kn, ok := r.skipped[gen]; ok {
			return kn, nil
		}
		return KeyNonce{}, ErrKeyConsumed
	}
	if gen-r.next > t.cfg.MaxForward {
		return KeyNonce{}, ErrTooFarAhead
	}
	secret := r.secret
	for g := r.next; g < gen; g++ {
		secret = t.nextSecret(secret, g)
	}
	return t.keyNonce(secret, gen), nil
}

// Consume records that the key of generation gen has been used: the
// ratchet moves past gen, keys of generations skipped on the way are kept
// (bounded by MaxSkipped) and gen's key is deleted. It returns the key.
func (t *Tree) Consume(leaf treemath.LeafIndex, typ RatchetType, gen uint32) (KeyNonce, error) {
	if _, err := t.Key(leaf, typ, gen); err != nil {
		return KeyNonce{}, err
	}
	r, err := t.ratchetFor(leaf, typ, true)
	if err != nil {
		return KeyNonce{}, err
	}
	if gen < r.next || r.secret == nil {
		kn := r.skipped[gen]
		delete(r.skipped, gen)
		return kn, nil
	}
	for r.next < gen {
		t.skip(r, t.keyNonce(r.secret, r.next))
		r.secret = t.nextSecret(r.secret, r.next)
		r.next++
	}
	kn := t.keyNonce(r.secret, gen)
	if gen == ^uint32(0) {
		r.secret = nil
	} else {
		r.secret = t.nextSecret(r.secret, gen)
		r.next = gen + 1
	}
	return kn, nil
}

func (t *Tree) skip(r *ratchet, kn KeyNonce) {
	if r.skipped == nil {
		r.skipped = map[uint32]KeyNonce{}
	}
	r.skipped[kn.Generation] = kn
	for len(r.skipped) > t.cfg.MaxSkipped {
		oldest := kn.Generation
		for g := range r.skipped {
			if g < oldest {
				oldest = g
			}
		}
		delete(r.skipped, oldest)
	}
}

// Next returns the key of the next generation of leaf's ratchet for
// sending, and consumes it.
func (t *Tree) Next(leaf treemath.LeafIndex, typ RatchetType) (KeyNonce, error) {
	r, err := t.ratchetFor(leaf, typ, true)
	if err != nil {
		return KeyNonce{}, err
	}
	if r.secret == nil {
		return KeyNonce{}, ErrExhausted
	}
	return t.Consume(leaf, typ, r.next)
}

// skippedGenerations returns the sorted skipped generations of r.
func skippedGenerations(r *ratchet) []uint32 {
	gens := make([]uint32, 0, len(r.skipped))
	for g := range r.skipped {
		gens = append(gens, g)
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i] < gens[j] })
	return gens
}
