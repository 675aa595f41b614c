package tree

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// EncodeRatchetTree writes the ratchet_tree extension body (RFC 9420
// §12.4.3.3): optional<Node> nodes<V>, trailing blank nodes omitted.
func (t *Tree) EncodeRatchetTree(w *codec.Writer) {
	width := t.Width()
	last := int64(-1)
	for x := int64(width) - 1; x >= 0; x-- {
		if !t.IsBlank(tm.NodeIndex(x)) {
			last = x
			break
		}
	}
	w.Vector(func(w *codec.Writer) {
		for x := tm.NodeIndex(0); int64(x) <= last; x++ {
			if x.IsLeaf() {
				l := t.leafAt(int(x >> 1))
				w.Optional(l != nil, func(w *codec.Writer) {
					w.U8(nodeTypeLeaf)
					l.Encode(w)
				})
			} else {
				p := t.parentAtK(int(x >> 1))
				w.Optional(p != nil, func(w *codec.Writer) {
					w.U8(nodeTypeParent)
					p.Encode(w)
				})
			}
		}
	})
}

// RatchetTreeBytes returns the ratchet_tree extension body.
func (t *Tree) RatchetTreeBytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 256*t.leaves.len()))
	t.EncodeRatchetTree(w)
	return w.Bytes()
}

// maxLeaves bounds decoded trees (2^24 leaves is far beyond any group and
// keeps index arithmetic in range).
const maxLeaves = 1 << 24

// DecodeRatchetTreeFrom reads a ratchet_tree body into an unvalidated tree:
// it checks only syntax and shape (node types at the right positions, last
// node non-blank). Use [Import] for a tree received from others.
func DecodeRatchetTreeFrom(s Suite, r *codec.Reader) *Tree {
	var leaves []*LeafNode
	var parents []*ParentNode
	count := 0
	lastBlank := false
	r.Vector(func(r *codec.Reader) {
		present := r.Optional()
		lastBlank = !present
		isLeaf := count%2 == 0
		count++
		if count > 2*maxLeaves && r.Err() == nil {
			r.Fail(fmt.Errorf("%w: tree too large", ErrTreeShape))
			return
		}
		var l *LeafNode
		var p *ParentNode
		if present {
			typ := r.U8()
			switch {
			case r.Err() != nil:
			case typ == nodeTypeLeaf && isLeaf:
				l = new(LeafNode)
				l.Decode(r)
			case typ == nodeTypeParent && !isLeaf:
				p = new(ParentNode)
				p.Decode(r)
			default:
				r.Fail(fmt.Errorf("%w: node %d has type %d", ErrTreeShape, count-1, typ))
			}
		}
		if isLeaf {
			leaves = append(leaves, l)
		} else {
			parents = append(parents, p)
		}
	})
	if r.Err() != nil {
		return nil
	}
	if count == 0 || lastBlank {
		r.Fail(fmt.Errorf("%w: the tree is empty or ends in a blank node", ErrTreeShape))
		return nil
	}
	if count%2 == 0 {
		// The encoding ended on a (non-blank) parent node whose right
		// subtree is all blank: TreeKEM never sets such a node.
		r.Fail(fmt.Errorf("%w: the tree ends in a parent node", ErrTreeShape))
		return nil
	}
	n := uint32(1)
	for n < uint32(len(leaves)) {
		n *= 2
	}
	t := newBlank(s, n)
	for i, l := range leaves {
		if l != nil {
			t.setLeaf(tm.LeafIndex(i), l)
		}
	}
	for k, p := range parents {
		if p != nil {
			t.setParent(tm.NodeIndex(2*k+1), p)
		}
	}
	return t
}

// DecodeRatchetTree decodes exactly one ratchet_tree body (unvalidated).
func DecodeRatchetTree(s Suite, b []byte) (*Tree, error) {
	r := codec.NewReader(b)
	t := DecodeRatchetTreeFrom(s, r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: ratchet tree: %w", ErrDecode, err)
	}
	return t, nil
}

// ImportOptions configure [Import].
type ImportOptions struct {
	GroupID []byte
	// TreeHash is the tree_hash of the GroupContext the tree must match.
	TreeHash []byte
	// Required and GroupExtensions come from the GroupContext extensions.
	Required        *RequiredCapabilities
	GroupExtensions Extensions
	// Credential authenticates each member's leaf (existing: true); nil
	// accepts all.
	Credential CredentialFunc
	// Parallelism bounds concurrent signature checks; 0 means GOMAXPROCS.
	Parallelism int
}

// Import decodes a ratchet tree received from others and validates it per
// RFC 9420 §12.4.3.1: the tree hash, every parent hash, the unmerged leaf
// lists, every leaf node (§7.3, signatures checked in parallel), and that no
// encryption key or signature key appears twice.
func Import(s Suite, b []byte, o *ImportOptions) (*Tree, error) {
	t, err := DecodeRatchetTree(s, b)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(o); err != nil {
		return nil, err
	}
	return t, nil
}

// Validate runs the checks of [Import] on t.
func (t *Tree) Validate(o *ImportOptions) error {
	if o.TreeHash != nil && !bytes.Equal(t.TreeHash(), o.TreeHash) {
		return fmt.Errorf("%w: ratchet tree", ErrTreeHash)
	}
	if err := t.checkUnmerged(); err != nil {
		return err
	}
	if err := t.checkUniqueKeys(); err != nil {
		return err
	}
	if err := t.verifyLeafSignatures(o.GroupID, o.Parallelism); err != nil {
		return err
	}
	inUse := t.credentialTypes()
	for i := 0; i < t.leaves.len(); i++ {
		l := t.leafAt(i)
		if l == nil {
			continue
		}
		c := &LeafContext{
			Suite: t.suite, GroupID: o.GroupID, Leaf: tm.LeafIndex(i),
			Required: o.Required, GroupExtensions: o.GroupExtensions,
			Credential: o.Credential, Existing: true, SkipSignature: true,
		}
		if err := l.Validate(c); err != nil {
			return fmt.Errorf("leaf %d: %w", i, err)
		}
		for _, ct := range inUse {
			if !l.Capabilities.SupportsCredential(ct) {
				return fmt.Errorf("leaf %d: %w: credential type %d in use", i, ErrCapabilities, ct)
			}
		}
	}
	return t.VerifyParentHashes()
}

// checkUnmerged checks each parent's unmerged leaves: strictly increasing,
// below the parent, non-blank, and listed by every non-blank node between
// the leaf and the parent.
func (t *Tree) checkUnmerged() error {
	n := t.NumLeaves()
	for k := 0; k < t.parents.len(); k++ {
		p := t.parentAtK(k)
		if p == nil {
			continue
		}
		x := tm.NodeIndex(2*k + 1)
		for j, u := range p.UnmergedLeaves {
			if j > 0 && p.UnmergedLeaves[j-1] >= u {
				return fmt.Errorf("%w: node %d: not strictly increasing", ErrUnmergedLeaves, x)
			}
			if uint32(u) >= n || !tm.IsInSubtree(x, u.Node()) || t.leafAt(int(u)) == nil {
				return fmt.Errorf("%w: node %d lists leaf %d", ErrUnmergedLeaves, x, u)
			}
			for y, _ := tm.Parent(u.Node(), n); y != x; y, _ = tm.Parent(y, n) {
				// Binary search: an unsorted q is rejected when q itself is checked.
				if q := t.parentAtK(int(y >> 1)); q != nil {
					if _, ok := slices.BinarySearch(q.UnmergedLeaves, u); !ok {
						return fmt.Errorf("%w: node %d lists leaf %d but node %d does not", ErrUnmergedLeaves, x, u, y)
					}
				}
			}
		}
	}
	return nil
}

// checkUniqueKeys rejects a repeated encryption key (any node) or
// signature key (leaves).
func (t *Tree) checkUniqueKeys() error {
	enc := make(map[string]struct{}, 2*t.leaves.len())
	sig := make(map[string]struct{}, t.leaves.len())
	for i := 0; i < t.leaves.len(); i++ {
		l := t.leafAt(i)
		if l == nil {
			continue
		}
		if _, dup := enc[string(l.EncryptionKey)]; dup {
			return fmt.Errorf("%w: leaf %d encryption key", ErrDuplicateKey, i)
		}
		enc[string(l.EncryptionKey)] = struct{}{}
		if _, dup := sig[string(l.SignatureKey)]; dup {
			return fmt.Errorf("%w: leaf %d signature key", ErrDuplicateKey, i)
		}
		sig[string(l.SignatureKey)] = struct{}{}
	}
	for k := 0; k < t.parents.len(); k++ {
		p := t.parentAtK(k)
		if p == nil {
			continue
		}
		if _, dup := enc[string(p.EncryptionKey)]; dup {
			return fmt.Errorf("%w: node %d encryption key", ErrDuplicateKey, 2*k+1)
		}
		enc[string(p.EncryptionKey)] = struct{}{}
	}
	return nil
}

// credentialTypes lists the distinct credential types of the members.
func (t *Tree) credentialTypes() []CredentialType {
	var out []CredentialType
	for i := 0; i < t.leaves.len(); i++ {
		l := t.leafAt(i)
		if l != nil && !contains(out, l.Credential.Type) {
			out = append(out, l.Credential.Type)
		}
	}
	return out
}

// verifyLeafSignatures checks every leaf signature, spreading the work over
// up to par goroutines, and reports the lowest failing leaf.
func (t *Tree) verifyLeafSignatures(groupID []byte, par int) error {
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	n := t.leaves.len()
	if par > n {
		par = n
	}
	bad := make([]bool, n)
	var wg sync.WaitGroup
	chunk := (n + par - 1) / par
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := start; i < end; i++ {
				if l := t.leafAt(int(i)); l != nil {
					bad[i] = l.VerifySignature(t.suite, groupID, tm.LeafIndex(i)) != nil
				}
			}
		}()
	}
	wg.Wait()
	for i, b := range bad {
		if b {
			return fmt.Errorf("%w: leaf node of leaf %d", ErrBadSignature, i)
		}
	}
	return nil
}

// ValidateLeaf checks a leaf node that is to be placed at leaf i (a new
// member, an Update, or a committer's path leaf) against the tree per
// RFC 9420 §7.3: [LeafNode.Validate] with c, support for every credential
// type in use and by every member for its own, and that its encryption and
// signature keys appear nowhere else in the tree (leaf i itself excepted).
// The signature is checked for position i, whatever c.Leaf says.
func (t *Tree) ValidateLeaf(l *LeafNode, i tm.LeafIndex, c *LeafContext) error {
	lc := *c
	lc.Leaf = i // the signature of update and commit leaves covers i
	if err := l.Validate(&lc); err != nil {
		return err
	}
	// Every member supports every credential type in use (checked when
	// each joined), so only a type new to the group needs a scan.
	var old *LeafNode
	if uint32(i) < t.NumLeaves() {
		old = t.leafAt(int(i))
	}
	for _, c := range t.keys.creds {
		n := c.n
		if old != nil && old.Credential.Type == c.typ {
			n--
		}
		if n > 0 && !l.Capabilities.SupportsCredential(c.typ) {
			return fmt.Errorf("%w: credential type %d in use", ErrCapabilities, c.typ)
		}
	}
	users := t.keys.credentialUsers(l.Credential.Type)
	if old != nil && old.Credential.Type == l.Credential.Type {
		users--
	}
	if users == 0 {
		var err error
		t.Members(func(j tm.LeafIndex, m *LeafNode) {
			if err == nil && j != i && !m.Capabilities.SupportsCredential(l.Credential.Type) {
				err = fmt.Errorf("%w: leaf %d does not support credential type %d", ErrCapabilities, j, l.Credential.Type)
			}
		})
		if err != nil {
			return err
		}
	}
	if t.hasSignatureKey(l.SignatureKey, i) {
		return fmt.Errorf("%w: signature key", ErrDuplicateKey)
	}
	if t.hasEncryptionKey(l.EncryptionKey, i.Node()) {
		return fmt.Errorf("%w: encryption key", ErrDuplicateKey)
	}
	return nil
}
