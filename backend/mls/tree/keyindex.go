package tree

import (
	"bytes"
	"slices"

	tm "weald/backend/mls/treemath"
)

// keyIndex is a pointer-free side table of the tree's public keys: the
// first 8 bytes of each node's encryption key and of each leaf's signature
// key, and how many leaves use each credential type. Uniqueness checks scan
// these contiguous arrays instead of dereferencing every node, and clone
// with a memmove.
type keyIndex struct {
	enc   cowSlice[uint64] // per node; 0 when blank (a prefix hit is confirmed on the node)
	sig   cowSlice[uint64] // per leaf
	creds []credCount
}

type credCount struct {
	typ CredentialType
	n   int
}

func keyPrefix(k []byte) uint64 {
	var v uint64
	for i := 0; i < 8; i++ {
		v <<= 8
		if i < len(k) {
			v |= uint64(k[i])
		}
	}
	return v
}

func newKeyIndex(nLeaves uint32) keyIndex {
	return keyIndex{enc: newCowSlice[uint64](int(tm.Width(nLeaves))), sig: newCowSlice[uint64](int(nLeaves))}
}

func (ki *keyIndex) clone() keyIndex {
	return keyIndex{enc: ki.enc.clone(), sig: ki.sig.clone(), creds: slices.Clone(ki.creds)}
}

func (ki *keyIndex) resize(nLeaves uint32) {
	ki.enc.resize(int(tm.Width(nLeaves)))
	ki.sig.resize(int(nLeaves))
}

func (ki *keyIndex) countCred(t CredentialType, d int) {
	for k := range ki.creds {
		if ki.creds[k].typ == t {
			ki.creds[k].n += d
			if ki.creds[k].n == 0 {
				ki.creds = slices.Delete(ki.creds, k, k+1)
			}
			return
		}
	}
	if d > 0 {
		ki.creds = append(ki.creds, credCount{typ: t, n: d})
	}
}

// setLeaf records leaf i changing from old to l.
func (ki *keyIndex) setLeaf(i tm.LeafIndex, old, l *LeafNode) {
	if old != nil {
		ki.countCred(old.Credential.Type, -1)
	}
	if l == nil {
		ki.enc.set(int(i.Node()), 0)
		ki.sig.set(int(i), 0)
		return
	}
	ki.countCred(l.Credential.Type, 1)
	ki.enc.set(int(i.Node()), keyPrefix(l.EncryptionKey))
	ki.sig.set(int(i), keyPrefix(l.SignatureKey))
}

func (ki *keyIndex) setParent(x tm.NodeIndex, p *ParentNode) {
	if p == nil {
		ki.enc.set(int(x), 0)
		return
	}
	ki.enc.set(int(x), keyPrefix(p.EncryptionKey))
}

// credentialUsers returns how many leaves use credential type ct.
func (ki *keyIndex) credentialUsers(ct CredentialType) int {
	for _, c := range ki.creds {
		if c.typ == ct {
			return c.n
		}
	}
	return 0
}

// hasEncryptionKey reports whether any node other than except carries key.
func (t *Tree) hasEncryptionKey(key []byte, except tm.NodeIndex) bool {
	p := keyPrefix(key)
	found := false
	t.keys.enc.each(0, t.keys.enc.len(), func(x int, v uint64) bool {
		if v == p && tm.NodeIndex(x) != except && !t.IsBlank(tm.NodeIndex(x)) && bytes.Equal(t.EncryptionKey(tm.NodeIndex(x)), key) {
			found = true
		}
		return !found
	})
	return found
}

// hasSignatureKey reports whether any leaf other than except carries key.
func (t *Tree) hasSignatureKey(key []byte, except tm.LeafIndex) bool {
	p := keyPrefix(key)
	found := false
	t.keys.sig.each(0, t.keys.sig.len(), func(i int, v uint64) bool {
		if v == p && tm.LeafIndex(i) != except {
			if l := t.leafAt(i); l != nil && bytes.Equal(l.SignatureKey, key) {
				found = true
			}
		}
		return !found
	})
	return found
}

// prefixSet is a small set of key prefixes with a 1024-bit filter in front.
type prefixSet struct {
	filter [16]uint64
	keys   [][]byte
}

func (ps *prefixSet) add(k []byte) {
	v := keyPrefix(k)
	ps.filter[v>>60] |= 1 << ((v >> 54) & 63)
	ps.keys = append(ps.keys, k)
}

// mayHold is a fast negative test on a prefix.
func (ps *prefixSet) mayHold(v uint64) bool {
	return ps.filter[v>>60]&(1<<((v>>54)&63)) != 0
}

func (ps *prefixSet) holds(k []byte) bool {
	for _, x := range ps.keys {
		if bytes.Equal(x, k) {
			return true
		}
	}
	return false
}
