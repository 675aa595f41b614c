package treemath_test

import (
	"fmt"

	"weald/backend/mls/treemath"
)

// The direct path and copath of leaf 2 (node 4) in a tree of 8 leaves, as
// in the figures of RFC 9420 §4.
func Example() {
	const leaves = 8
	x := treemath.LeafIndex(2).Node()
	fmt.Println("root:", treemath.Root(leaves))
	fmt.Println("direct path:", treemath.DirectPath(nil, x, leaves))
	fmt.Println("copath:", treemath.Copath(nil, x, leaves))
	fmt.Println("common ancestor of leaves 2 and 5:", treemath.CommonAncestor(x, treemath.LeafIndex(5).Node()))
	// Output:
	// root: 7
	// direct path: [5 3 7]
	// copath: [6 1 11]
	// common ancestor of leaves 2 and 5: 7
}
