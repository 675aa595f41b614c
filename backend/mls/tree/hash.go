package tree

import (
	"bytes"
	"fmt"
	"slices"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// Node types of TreeHashInput (RFC 9420 §7.8).
const (
	nodeTypeLeaf   = 1
	nodeTypeParent = 2
)

// TreeHash returns the tree hash of the root (RFC 9420 §7.8). Node hashes
// are cached; only nodes changed since the last call are rehashed.
func (t *Tree) TreeHash() []byte {
	if t.NumLeaves() == 0 {
		return nil
	}
	var w codec.Writer
	return slices.Clone(t.nodeHash(&w, t.Root()))
}

// NodeHash returns the tree hash of the subtree rooted at node x, or nil
// for a node outside the tree.
func (t *Tree) NodeHash(x tm.NodeIndex) []byte {
	if uint32(x) >= t.Width() {
		return nil
	}
	var w codec.Writer
	return slices.Clone(t.nodeHash(&w, x))
}

// nodeHash computes (and caches) the tree hash of x; w is scratch space.
// The result aliases the cache: use it before the tree changes.
func (t *Tree) nodeHash(w *codec.Writer, x tm.NodeIndex) []byte {
	if h := t.hashes.get(uint32(x)); h != nil {
		return h
	}
	var h []byte
	if x.IsLeaf() {
		h = t.leafHash(w, tm.LeafIndex(x>>1), t.leafAt(int(x>>1)))
	} else {
		l, _ := tm.Left(x)
		r, _ := tm.Right(x)
		lh := t.nodeHash(w, l)
		rh := t.nodeHash(w, r)
		h = t.parentNodeHash(w, t.parentAtK(int(x>>1)), lh, rh)
	}
	return t.hashes.put(uint32(x), h)
}

// leafHash hashes TreeHashInput for a leaf (LeafNodeHashInput).
func (t *Tree) leafHash(w *codec.Writer, i tm.LeafIndex, l *LeafNode) []byte {
	w.Reset()
	w.U8(nodeTypeLeaf)
	w.U32(uint32(i))
	w.Optional(l != nil, func(w *codec.Writer) { l.Encode(w) })
	return t.suite.Hash(w.Bytes())
}

// parentNodeHash hashes TreeHashInput for a parent (ParentNodeHashInput).
func (t *Tree) parentNodeHash(w *codec.Writer, p *ParentNode, lh, rh []byte) []byte {
	w.Reset()
	w.U8(nodeTypeParent)
	w.Optional(p != nil, func(w *codec.Writer) { p.Encode(w) })
	w.Opaque(lh)
	w.Opaque(rh)
	return t.suite.Hash(w.Bytes())
}

// hashExcluding returns the tree hash of x in the tree where every leaf in
// excl (sorted) is blank and removed from all unmerged_leaves lists: the
// "original sibling tree hash" of RFC 9420 §7.9. Subtrees holding no
// excluded leaf use the cache.
func (t *Tree) hashExcluding(w *codec.Writer, x tm.NodeIndex, excl []tm.LeafIndex) []byte {
	lvl := tm.Level(x)
	first := tm.LeafIndex((uint32(x) >> lvl) << lvl >> 1)
	last := first + tm.LeafIndex(uint32(1)<<lvl) // exclusive
	lo, _ := slices.BinarySearch(excl, first)
	hi, _ := slices.BinarySearch(excl, last)
	if lo == hi {
		return t.nodeHash(w, x)
	}
	sub := excl[lo:hi]
	if x.IsLeaf() {
		return t.leafHash(w, first, nil)
	}
	l, _ := tm.Left(x)
	r, _ := tm.Right(x)
	lh := slices.Clone(t.hashExcluding(w, l, sub))
	rh := t.hashExcluding(w, r, sub)
	p := t.parentAtK(int(x >> 1))
	if p != nil {
		q := *p
		q.UnmergedLeaves = nil
		for _, u := range p.UnmergedLeaves {
			if _, found := slices.BinarySearch(sub, u); !found {
				q.UnmergedLeaves = append(q.UnmergedLeaves, u)
			}
		}
		p = &q
	}
	return t.parentNodeHash(w, p, lh, rh)
}

// parentHash computes ParentHash(P, S) (RFC 9420 §7.9): the hash of
// ParentHashInput with P's encryption key and parent hash and the original
// tree hash of P's child s.
func (t *Tree) parentHash(w *codec.Writer, p *ParentNode, s tm.NodeIndex) []byte {
	sib := slices.Clone(t.hashExcluding(w, s, p.UnmergedLeaves))
	w.Reset()
	w.Opaque(p.EncryptionKey)
	w.Opaque(p.ParentHash)
	w.Opaque(sib)
	return t.suite.Hash(w.Bytes())
}

// nodeParentHash returns the parent_hash field of non-blank node x and
// whether it has one (parents, and leaves of source commit).
func (t *Tree) nodeParentHash(x tm.NodeIndex) ([]byte, bool) {
	if uint32(x) >= t.Width() {
		return nil, false // an out-of-range unmerged leaf of an unvalidated tree
	}
	if x.IsLeaf() {
		l := t.leafAt(int(x >> 1))
		if l == nil || l.Source != SourceCommit {
			return nil, false
		}
		return l.ParentHash, true
	}
	if p := t.parentAtK(int(x >> 1)); p != nil {
		return p.ParentHash, true
	}
	return nil, false
}

// VerifyParentHashes checks that every non-blank parent node is parent-hash
// valid (RFC 9420 §7.9.2): for one of its children C (the other being S)
// there is a node D in C's resolution with D.parent_hash = ParentHash(P, S),
// and the rest of C's resolution is exactly P's unmerged leaves below C.
func (t *Tree) VerifyParentHashes() error {
	var w codec.Writer
	var res []tm.NodeIndex
	for k := 0; k < t.parents.len(); k++ {
		p := t.parentAtK(k)
		if p == nil {
			continue
		}
		x := tm.NodeIndex(2*k + 1)
		l, _ := tm.Left(x)
		r, _ := tm.Right(x)
		ok := false
		for _, c := range [2][2]tm.NodeIndex{{l, r}, {r, l}} {
			res = t.Resolution(res[:0], c[0])
			if t.chainsTo(&w, p, c[0], c[1], res) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%w: node %d is not parent-hash valid", ErrParentHash, x)
		}
	}
	return nil
}

// chainsTo reports whether parent p (child c, co-path child s) is
// parent-hash valid with respect to a node of res, the resolution of c.
func (t *Tree) chainsTo(w *codec.Writer, p *ParentNode, c, s tm.NodeIndex, res []tm.NodeIndex) bool {
	var d tm.NodeIndex
	found := 0
	for _, y := range res {
		if li, isLeaf := y.Leaf(); isLeaf {
			if _, unmerged := slices.BinarySearch(p.UnmergedLeaves, li); unmerged {
				continue
			}
		}
		d = y
		found++
	}
	if found != 1 {
		return false
	}
	// Every unmerged leaf of p below c must be in the resolution.
	below := 0
	for _, u := range p.UnmergedLeaves {
		if tm.IsInSubtree(c, u.Node()) {
			below++
		}
	}
	if below != len(res)-1 {
		return false
	}
	ph, has := t.nodeParentHash(d)
	return has && bytes.Equal(ph, t.parentHash(w, p, s))
}
