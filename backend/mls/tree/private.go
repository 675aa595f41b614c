package tree

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// PrivateState is a member's secret half of the tree (RFC 9420 §7): its leaf
// index, the private keys of its leaf (HPKE and signature), and the HPKE
// private keys it knows for parent nodes on its direct path. Each parent key
// is stored with its public key, so a key whose node has since been blanked
// or replaced is simply never used again.
type PrivateState struct {
	Leaf          tm.LeafIndex
	EncryptionKey []byte // HPKE private key of the leaf
	SignatureKey  []byte // signature private key
	path          map[tm.NodeIndex]nodeKey
}

type nodeKey struct{ priv, pub []byte }

// NewPrivateState returns the private state of the member at leaf.
func NewPrivateState(leaf tm.LeafIndex, encPriv, sigPriv []byte) *PrivateState {
	return &PrivateState{Leaf: leaf, EncryptionKey: encPriv, SignatureKey: sigPriv, path: map[tm.NodeIndex]nodeKey{}}
}

// Clone returns an independent copy (keys are never modified in place).
func (p *PrivateState) Clone() *PrivateState {
	q := *p
	q.path = maps.Clone(p.path)
	if q.path == nil {
		q.path = map[tm.NodeIndex]nodeKey{}
	}
	return &q
}

// SetNodeKey records the private key of parent node x, whose public key is pub.
func (p *PrivateState) SetNodeKey(x tm.NodeIndex, priv, pub []byte) {
	if p.path == nil {
		p.path = map[tm.NodeIndex]nodeKey{}
	}
	p.path[x] = nodeKey{priv: priv, pub: pub}
}

// keyFor returns the private key for node x of t if this member holds the
// current one.
func (p *PrivateState) keyFor(t *Tree, x tm.NodeIndex) ([]byte, bool) {
	if x == p.Leaf.Node() {
		return p.EncryptionKey, t.Leaf(p.Leaf) != nil
	}
	k, ok := p.path[x]
	if !ok || !bytes.Equal(k.pub, t.EncryptionKey(x)) {
		return nil, false
	}
	return k.priv, true
}

// Prune drops parent keys that no longer match t (blanked or replaced
// nodes), keeping the serialised state small.
func (p *PrivateState) Prune(t *Tree) {
	for x, k := range p.path {
		if !bytes.Equal(k.pub, t.EncryptionKey(x)) {
			delete(p.path, x)
		}
	}
}

// Encode writes the private state:
//
//	struct { uint32 leaf; opaque encryption_priv<V>; opaque signature_priv<V>;
//	         struct { uint32 node; opaque priv<V>; opaque pub<V>; } path<V>; }
func (p *PrivateState) Encode(w *codec.Writer) {
	w.U32(uint32(p.Leaf))
	w.Opaque(p.EncryptionKey)
	w.Opaque(p.SignatureKey)
	nodes := slices.Sorted(maps.Keys(p.path))
	w.Vector(func(w *codec.Writer) {
		for _, x := range nodes {
			w.U32(uint32(x))
			w.Opaque(p.path[x].priv)
			w.Opaque(p.path[x].pub)
		}
	})
}

// DecodePrivateState reads what [PrivateState.Encode] wrote.
func DecodePrivateState(r *codec.Reader) *PrivateState {
	p := NewPrivateState(tm.LeafIndex(r.U32()), r.OpaqueCopy(), r.OpaqueCopy())
	r.Vector(func(r *codec.Reader) {
		x := tm.NodeIndex(r.U32())
		k := nodeKey{priv: r.OpaqueCopy(), pub: r.OpaqueCopy()}
		if x.IsLeaf() && r.Err() == nil {
			r.Fail(fmt.Errorf("%w: private key for leaf node %d", ErrDecode, x))
		}
		p.path[x] = k
	})
	return p
}

// ImportPathSecret installs the path secret a joiner receives in a Welcome
// (RFC 9420 §12.4.3.1 GroupSecrets.path_secret) for node x, the lowest
// common ancestor of the joiner and the committer: it derives the keys of x
// and of every node above it on the joiner's filtered direct path and checks
// each against the tree.
func (p *PrivateState) ImportPathSecret(t *Tree, x tm.NodeIndex, secret []byte) error {
	fdp := t.FilteredDirectPath(nil, p.Leaf)
	i := slices.Index(fdp, x)
	if i < 0 {
		return fmt.Errorf("%w: node %d is not on the filtered direct path of leaf %d", ErrPathKey, x, p.Leaf)
	}
	keys := make([]nodeKey, 0, len(fdp)-i)
	for _, y := range fdp[i:] {
		priv, pub, err := nodeKeyPair(t.suite, secret)
		if err != nil {
			return err
		}
		if !bytes.Equal(pub, t.EncryptionKey(y)) {
			return fmt.Errorf("%w: node %d", ErrPathKey, y)
		}
		keys = append(keys, nodeKey{priv: priv, pub: pub})
		if secret, err = t.suite.DeriveSecret(secret, "path"); err != nil {
			return err
		}
	}
	for j, y := range fdp[i:] {
		p.SetNodeKey(y, keys[j].priv, keys[j].pub)
	}
	return nil
}

// nodeKeyPair derives a node's HPKE key pair from its path secret:
// DeriveKeyPair(DeriveSecret(path_secret, "node")) (RFC 9420 §7.4).
func nodeKeyPair(s Suite, pathSecret []byte) (priv, pub []byte, err error) {
	ns, err := s.DeriveSecret(pathSecret, "node")
	if err != nil {
		return nil, nil, err
	}
	return s.DeriveKeyPair(ns)
}
