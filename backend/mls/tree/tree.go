package tree

import (
	"fmt"
	"slices"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// ParentNode is RFC 9420 §7.1 ParentNode. UnmergedLeaves is sorted in
// increasing order. Treat it as immutable once it is in a [Tree].
type ParentNode struct {
	EncryptionKey  []byte
	ParentHash     []byte
	UnmergedLeaves []tm.LeafIndex
}

// Encode writes the parent node.
func (p *ParentNode) Encode(w *codec.Writer) {
	w.Opaque(p.EncryptionKey)
	w.Opaque(p.ParentHash)
	w.Vector(func(w *codec.Writer) {
		for _, u := range p.UnmergedLeaves {
			w.U32(uint32(u))
		}
	})
}

// Decode reads a parent node (syntax only).
func (p *ParentNode) Decode(r *codec.Reader) {
	p.EncryptionKey = r.OpaqueCopy()
	p.ParentHash = r.OpaqueCopy()
	p.UnmergedLeaves = nil
	r.Vector(func(r *codec.Reader) {
		p.UnmergedLeaves = append(p.UnmergedLeaves, tm.LeafIndex(r.U32()))
	})
}

// withUnmerged returns a copy of p with leaf u inserted into its sorted
// unmerged leaves.
func (p *ParentNode) withUnmerged(u tm.LeafIndex) *ParentNode {
	q := *p
	q.UnmergedLeaves = make([]tm.LeafIndex, 0, len(p.UnmergedLeaves)+1)
	i, found := slices.BinarySearch(p.UnmergedLeaves, u)
	q.UnmergedLeaves = append(q.UnmergedLeaves, p.UnmergedLeaves[:i]...)
	if !found {
		q.UnmergedLeaves = append(q.UnmergedLeaves, u)
	}
	q.UnmergedLeaves = append(q.UnmergedLeaves, p.UnmergedLeaves[i:]...)
	return &q
}

// Tree is a ratchet tree (RFC 9420 §7) over a power-of-two number of leaves.
// Node 2i is leaf i; odd node x is a parent. Nil means blank. A Tree may be
// read from several goroutines at once, but every method that changes it,
// and [Tree.Clone], needs exclusive access.
type Tree struct {
	suite   Suite
	leaves  cowSlice[*LeafNode]   // len n
	parents cowSlice[*ParentNode] // len n-1; parent x at x>>1
	// hashes caches the tree hash of each node.
	hashes hashCache
	keys   keyIndex
}

// New returns a one-member tree holding leaf (a group creator's tree).
func New(s Suite, leaf *LeafNode) *Tree {
	t := newBlank(s, 1)
	t.setLeaf(0, leaf)
	return t
}

// newBlank returns a tree of n (a power of two) blank leaves.
func newBlank(s Suite, n uint32) *Tree {
	return &Tree{suite: s, leaves: newCowSlice[*LeafNode](int(n)), parents: newCowSlice[*ParentNode](int(n) - 1),
		hashes: newHashCache(tm.Width(n)), keys: newKeyIndex(n)}
}

// Suite returns the tree's cipher suite.
func (t *Tree) Suite() Suite { return t.suite }

// Clone returns an independent copy of t. Nodes are shared (they are
// immutable) and the per-node arrays are copy-on-write (cow.go), so this
// copies only chunk headers. Clone counts as a write to t.
func (t *Tree) Clone() *Tree {
	return &Tree{suite: t.suite, leaves: t.leaves.clone(), parents: t.parents.clone(),
		hashes: t.hashes.clone(), keys: t.keys.clone()}
}

// leafAt and parentAtK read the arrays: leaf i, parent node 2k+1.
func (t *Tree) leafAt(i int) *LeafNode      { return t.leaves.at(i) }
func (t *Tree) parentAtK(k int) *ParentNode { return t.parents.at(k) }

// NumLeaves returns the number of leaves, blank ones included.
func (t *Tree) NumLeaves() uint32 { return uint32(t.leaves.len()) }

// Width returns the number of nodes.
func (t *Tree) Width() uint32 { return tm.Width(t.NumLeaves()) }

// Root returns the root node index.
func (t *Tree) Root() tm.NodeIndex { return tm.Root(t.NumLeaves()) }

// Leaf returns leaf i, or nil if it is blank or outside the tree.
func (t *Tree) Leaf(i tm.LeafIndex) *LeafNode {
	if uint32(i) >= t.NumLeaves() {
		return nil
	}
	return t.leafAt(int(i))
}

// ParentAt returns the parent node at odd node index x, or nil if blank.
func (t *Tree) ParentAt(x tm.NodeIndex) *ParentNode {
	if x.IsLeaf() || uint32(x) >= t.Width() {
		return nil
	}
	return t.parentAtK(int(x >> 1))
}

// IsBlank reports whether node x is blank.
func (t *Tree) IsBlank(x tm.NodeIndex) bool {
	if x.IsLeaf() {
		return t.Leaf(tm.LeafIndex(x>>1)) == nil
	}
	return t.ParentAt(x) == nil
}

// EncryptionKey returns the HPKE public key of non-blank node x.
func (t *Tree) EncryptionKey(x tm.NodeIndex) []byte {
	if x.IsLeaf() {
		if l := t.Leaf(tm.LeafIndex(x >> 1)); l != nil {
			return l.EncryptionKey
		}
		return nil
	}
	if p := t.ParentAt(x); p != nil {
		return p.EncryptionKey
	}
	return nil
}

// Members calls f for each non-blank leaf in index order.
func (t *Tree) Members(f func(i tm.LeafIndex, l *LeafNode)) {
	t.leaves.each(0, t.leaves.len(), func(i int, l *LeafNode) bool {
		if l != nil {
			f(tm.LeafIndex(i), l)
		}
		return true
	})
}

// invalidate drops the cached hash of x and of its ancestors.
func (t *Tree) invalidate(x tm.NodeIndex) {
	n := t.NumLeaves()
	for {
		if !t.hashes.drop(uint32(x)) {
			return // ancestors are not cached either (invariant)
		}
		p, ok := tm.Parent(x, n)
		if !ok {
			return
		}
		x = p
	}
}

func (t *Tree) setLeaf(i tm.LeafIndex, l *LeafNode) {
	t.keys.setLeaf(i, t.leafAt(int(i)), l)
	t.leaves.set(int(i), l)
	t.invalidate(i.Node())
}

func (t *Tree) setParent(x tm.NodeIndex, p *ParentNode) {
	t.parents.set(int(x>>1), p)
	t.keys.setParent(x, p)
	t.invalidate(x)
}

// blankDirectPath blanks every parent node on leaf i's direct path.
func (t *Tree) blankDirectPath(i tm.LeafIndex) {
	n := t.NumLeaves()
	for x := i.Node(); ; {
		p, ok := tm.Parent(x, n)
		if !ok {
			return
		}
		if t.parentAtK(int(p>>1)) != nil {
			t.setParent(p, nil)
		}
		x = p
	}
}

// grow doubles the number of leaves; the old tree becomes the left subtree
// and keeps its node indices and cached hashes.
func (t *Tree) grow() {
	n := t.NumLeaves()
	t.leaves.resize(int(2 * n))
	t.parents.resize(int(2*n) - 1)
	t.hashes.resize(tm.Width(2 * n))
	t.keys.resize(2 * n)
}

// AddLeaf places leaf in the leftmost blank leaf, extending the tree if
// there is none, and records it as unmerged in every non-blank parent on its
// direct path (RFC 9420 §7.7). It returns the new leaf's index.
func (t *Tree) AddLeaf(leaf *LeafNode) tm.LeafIndex {
	i := -1
	t.leaves.each(0, t.leaves.len(), func(j int, l *LeafNode) bool {
		if l == nil {
			i = j
		}
		return i < 0
	})
	if i < 0 {
		i = t.leaves.len()
		t.grow()
	}
	li := tm.LeafIndex(i)
	t.setLeaf(li, leaf)
	n := t.NumLeaves()
	for x := li.Node(); ; {
		p, ok := tm.Parent(x, n)
		if !ok {
			break
		}
		if pn := t.parentAtK(int(p >> 1)); pn != nil {
			t.setParent(p, pn.withUnmerged(li))
		}
		x = p
	}
	return li
}

// UpdateLeaf replaces leaf i and blanks its direct path (RFC 9420 §12.1.2).
func (t *Tree) UpdateLeaf(i tm.LeafIndex, leaf *LeafNode) error {
	if t.Leaf(i) == nil {
		return fmt.Errorf("%w: update of leaf %d", ErrLeafIndex, i)
	}
	t.setLeaf(i, leaf)
	t.blankDirectPath(i)
	return nil
}

// RemoveLeaf blanks leaf i and its direct path and truncates the tree
// (RFC 9420 §12.1.3).
func (t *Tree) RemoveLeaf(i tm.LeafIndex) error {
	if t.Leaf(i) == nil {
		return fmt.Errorf("%w: removal of leaf %d", ErrLeafIndex, i)
	}
	t.setLeaf(i, nil)
	t.blankDirectPath(i)
	t.truncate()
	return nil
}

// truncate removes the right half of the tree while it is entirely blank
// (RFC 9420 §7.8 "truncate"), keeping at least one leaf.
func (t *Tree) truncate() {
	for n := t.NumLeaves(); n > 1; n = t.NumLeaves() {
		half := n / 2
		if !t.resolutionEmpty(tm.Root(n) + tm.NodeIndex(half)) {
			return
		}
		// A blank right half has blank parents too (their unmerged or
		// path leaves would be non-blank), so nothing is lost.
		t.leaves.resize(int(half))
		t.parents.resize(int(half) - 1)
		t.hashes.resize(tm.Width(half))
		t.keys.resize(half)
	}
}

// Resolution appends the resolution of node x (RFC 9420 §4.1.1) to dst: x
// itself and its unmerged leaves if x is non-blank, nothing for a blank leaf,
// and the resolutions of both children for a blank parent. A node outside
// the tree has an empty resolution.
func (t *Tree) Resolution(dst []tm.NodeIndex, x tm.NodeIndex) []tm.NodeIndex {
	if uint32(x) >= t.Width() {
		return dst
	}
	return t.resolution(dst, x)
}

func (t *Tree) resolution(dst []tm.NodeIndex, x tm.NodeIndex) []tm.NodeIndex {
	if x.IsLeaf() {
		if t.leafAt(int(x>>1)) != nil {
			dst = append(dst, x)
		}
		return dst
	}
	if p := t.parentAtK(int(x >> 1)); p != nil {
		dst = append(dst, x)
		for _, u := range p.UnmergedLeaves {
			dst = append(dst, u.Node())
		}
		return dst
	}
	l, _ := tm.Left(x)
	r, _ := tm.Right(x)
	dst = t.resolution(dst, l)
	return t.resolution(dst, r)
}

// resolutionEmpty reports whether node x's resolution is empty, i.e. every
// leaf below it is blank, without building it.
func (t *Tree) resolutionEmpty(x tm.NodeIndex) bool {
	lvl := tm.Level(x)
	first := int((uint32(x) >> lvl) << lvl >> 1) // leftmost leaf index below x
	empty := true
	t.leaves.each(first, first+(1<<lvl), func(_ int, l *LeafNode) bool {
		empty = l == nil
		return empty
	})
	return empty
}

// FilteredDirectPath appends leaf i's filtered direct path (RFC 9420
// §4.1.2) to dst: the direct path without the nodes whose copath child has
// an empty resolution.
func (t *Tree) FilteredDirectPath(dst []tm.NodeIndex, i tm.LeafIndex) []tm.NodeIndex {
	n := t.NumLeaves()
	for x := i.Node(); ; {
		p, ok := tm.Parent(x, n)
		if !ok {
			return dst
		}
		s, _ := tm.Sibling(x, n)
		if !t.resolutionEmpty(s) {
			dst = append(dst, p)
		}
		x = p
	}
}

// FindLeaf returns the index of the first non-blank leaf for which pred is true.
func (t *Tree) FindLeaf(pred func(*LeafNode) bool) (tm.LeafIndex, bool) {
	found := -1
	t.leaves.each(0, t.leaves.len(), func(i int, l *LeafNode) bool {
		if l != nil && pred(l) {
			found = i
		}
		return found < 0
	})
	return tm.LeafIndex(max(found, 0)), found >= 0
}
