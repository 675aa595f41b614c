// Package tree implements the ratchet tree of RFC 9420: the leaf and parent
// node structures (§7.1–§7.2), credentials and capabilities (§5.3, §7.2),
// KeyPackages (§10), the tree operations Add, Update, Remove and truncation
// (§7.7, §12.1), resolution (§4.1.1), the tree hash (§7.8) and parent hash
// (§7.9), the ratchet_tree extension with its import validation
// (§12.4.3.3, §12.4.3.1), and TreeKEM (§7.4–§7.6): creating, merging and
// decrypting UpdatePaths.
//
// # Trust
//
// Decoders never panic and only check syntax. A decoded [LeafNode] or
// [KeyPackage] is not trusted until [LeafNode.Validate] or
// [KeyPackage.Validate] accepts it; a decoded tree is not usable until
// [Import] has verified its tree hash, parent hashes and every leaf.
//
// # Representation
//
// A [Tree] is the array form of §4.2 (node index 2i is leaf i) of immutable
// nodes held by pointer: operations replace nodes, never modify them. The
// arrays are copy-on-write in chunks, so [Tree.Clone] is cheap and a staged
// commit can be discarded.
// Tree hashes are cached per node and invalidated only along the direct path
// of a change. Private keys (own leaf, path nodes) live in [PrivateState],
// beside the public tree.
//
// All cryptography goes through the [Suite] interface (HPKE with labels,
// SignWithLabel, DeriveSecret, DeriveKeyPair, RefHash) so this package does
// not depend on how cipher suites are built.
package tree
