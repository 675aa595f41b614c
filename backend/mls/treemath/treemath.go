// Package treemath implements the array-based tree arithmetic of RFC 9420
// §4.2 and Appendix C: the nodes of a left-balanced binary tree with n leaves
// are numbered 0..2n-2 in-order, leaves at even indices, parents at odd ones.
//
// Every function takes the number of leaves of the tree (always a power of
// two in RFC 9420, §7.7) where the answer depends on the tree's size. Functions
// that cannot answer (the left child of a leaf, the parent of the root) return
// ok=false instead of panicking.
package treemath

import "math/bits"

// LeafIndex is the index of a leaf among the leaves (0..n-1).
type LeafIndex uint32

// NodeIndex is the index of a node in the array representation (0..2n-2).
type NodeIndex uint32

// Node returns the node index of leaf i (2i).
func (i LeafIndex) Node() NodeIndex { return NodeIndex(2 * uint32(i)) }

// IsLeaf reports whether x is a leaf (even) node.
func (x NodeIndex) IsLeaf() bool { return x&1 == 0 }

// Leaf returns the leaf index of a leaf node (x/2) and false for a parent node.
func (x NodeIndex) Leaf() (LeafIndex, bool) {
	if !x.IsLeaf() {
		return 0, false
	}
	return LeafIndex(x >> 1), true
}

// log2 returns floor(log2(x)), and 0 for x == 0.
func log2(x uint32) uint32 {
	if x == 0 {
		return 0
	}
	return uint32(bits.Len32(x) - 1)
}

// Level returns the level of node x in the tree: 0 for leaves, otherwise the
// number of trailing one bits.
func Level(x NodeIndex) uint32 {
	return uint32(bits.TrailingZeros32(^uint32(x)))
}

// Width returns the number of nodes needed to represent a tree with n leaves.
func Width(n uint32) uint32 {
	if n == 0 {
		return 0
	}
	return 2*(n-1) + 1
}

// Root returns the root node of a tree with n leaves (n > 0).
func Root(n uint32) NodeIndex {
	w := Width(n)
	return NodeIndex((uint32(1) << log2(w)) - 1)
}

// Left returns the left child of x; ok is false if x is a leaf.
func Left(x NodeIndex) (NodeIndex, bool) {
	k := Level(x)
	if k == 0 {
		return 0, false
	}
	return x ^ (1 << (k - 1)), true
}

// Right returns the right child of x; ok is false if x is a leaf.
func Right(x NodeIndex) (NodeIndex, bool) {
	k := Level(x)
	if k == 0 {
		return 0, false
	}
	return x ^ (3 << (k - 1)), true
}

// Parent returns the parent of x in a tree with n leaves; ok is false if x is
// the root or lies outside the tree.
func Parent(x NodeIndex, n uint32) (NodeIndex, bool) {
	if uint32(x) >= Width(n) || x == Root(n) {
		return 0, false
	}
	k := Level(x)
	b := (uint32(x) >> (k + 1)) & 1
	return NodeIndex((uint32(x) | (1 << k)) ^ (b << (k + 1))), true
}

// Sibling returns the other child of x's parent; ok is false if x is the root
// or lies outside the tree.
func Sibling(x NodeIndex, n uint32) (NodeIndex, bool) {
	p, ok := Parent(x, n)
	if !ok {
		return 0, false
	}
	if x < p {
		return Right(p)
	}
	return Left(p)
}

// DirectPath appends to dst the parents of x from x's parent up to and
// including the root, and returns it. It is empty for the root.
func DirectPath(dst []NodeIndex, x NodeIndex, n uint32) []NodeIndex {
	for {
		p, ok := Parent(x, n)
		if !ok {
			return dst
		}
		dst = append(dst, p)
		x = p
	}
}

// Copath appends to dst the siblings of x and of each node of its direct path
// except the root, and returns it. It is empty for the root.
func Copath(dst []NodeIndex, x NodeIndex, n uint32) []NodeIndex {
	for {
		s, ok := Sibling(x, n)
		if !ok {
			return dst
		}
		dst = append(dst, s)
		x, _ = Parent(x, n)
	}
}

// CommonAncestor returns the lowest node that is an ancestor of (or equal to)
// both x and y (the "common ancestor" of RFC 9420 Appendix C).
func CommonAncestor(x, y NodeIndex) NodeIndex {
	lx, ly := Level(x)+1, Level(y)+1
	if lx <= ly && uint32(x)>>ly == uint32(y)>>ly {
		return y
	}
	if ly <= lx && uint32(x)>>lx == uint32(y)>>lx {
		return x
	}
	xn, yn := uint32(x), uint32(y)
	k := uint32(0)
	for xn != yn {
		xn >>= 1
		yn >>= 1
		k++
	}
	return NodeIndex((xn << k) + (1 << (k - 1)) - 1)
}

// IsInSubtree reports whether node x lies in the subtree rooted at node a
// (including a itself).
func IsInSubtree(a, x NodeIndex) bool {
	// The aligned block of 2^(level+1) indices around a holds a's subtree
	// plus one node of a higher level.
	k := Level(a) + 1
	return Level(x) < k && uint32(a)>>k == uint32(x)>>k
}
