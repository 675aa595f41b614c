package tree

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sync"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// GroupContextFunc returns the encoded provisional GroupContext of the
// commit (RFC 9420 §12.4.2) for the tree hash of the tree after the path has
// been merged; path secrets are encrypted to (and decrypted with) it.
type GroupContextFunc func(treeHash []byte) ([]byte, error)

// PathOptions are the inputs of [Tree.CreateUpdatePath].
type PathOptions struct {
	Rand    io.Reader
	GroupID []byte
	// Leaf is the committer's new leaf node template: credential,
	// capabilities, extensions and signature key are kept; encryption key,
	// source, parent hash and signature are set.
	Leaf          *LeafNode
	SignatureKey  []byte // signature private key
	Excluded      []tm.LeafIndex
	GroupContext  GroupContextFunc
	PrivateBefore *PrivateState // committer's state; updated in place
	// Parallel, if above 1, lets up to that many goroutines call
	// EncryptWithLabel at once (a sparse tree needs one encryption per
	// leaf). Set it only if the Suite's randomness source is safe for
	// concurrent use (crypto/rand is); the ciphertexts then depend on
	// scheduling, not only on the reader.
	Parallel int
}

// PathSecrets are the committer's outputs of an UpdatePath: the path secret
// of each node of its filtered direct path and the commit secret.
type PathSecrets struct {
	Nodes        []tm.NodeIndex
	Secrets      [][]byte
	CommitSecret []byte
}

// For returns the node and path secret to give a member at leaf (a joiner in
// GroupSecrets.path_secret): the lowest node of the path above leaf.
func (ps *PathSecrets) For(leaf tm.LeafIndex) (tm.NodeIndex, []byte, bool) {
	for i, x := range ps.Nodes {
		if tm.IsInSubtree(x, leaf.Node()) {
			return x, ps.Secrets[i], true
		}
	}
	return 0, nil, false
}

// CreateUpdatePath runs the committer's side of TreeKEM (RFC 9420 §7.4–§7.6,
// §12.4.2) on t, the tree with the commit's proposals applied: it blanks the
// direct path of o.PrivateBefore.Leaf, draws a fresh leaf key and path
// secret from o.Rand, sets the new public keys and parent hashes, signs the
// new leaf, and encrypts each path secret to the copath resolution minus
// o.Excluded. On success t and o.PrivateBefore hold the new state (pass
// clones to stage a commit); on error both are unchanged.
func (t *Tree) CreateUpdatePath(o *PathOptions) (*UpdatePath, *PathSecrets, error) {
	s := t.suite
	priv := o.PrivateBefore
	leaf := priv.Leaf
	if t.Leaf(leaf) == nil {
		return nil, nil, fmt.Errorf("%w: committer leaf %d", ErrLeafIndex, leaf)
	}
	saved := t.saveDirectPath(leaf)
	done := false
	defer func() {
		if !done {
			saved.restore(t)
		}
	}()
	t.blankDirectPath(leaf)
	fdp := t.FilteredDirectPath(nil, leaf)

	seed := make([]byte, s.SecretSize())
	if _, err := io.ReadFull(o.Rand, seed); err != nil {
		return nil, nil, fmt.Errorf("update path: randomness: %w", err)
	}
	leafPriv, leafPub, err := s.DeriveKeyPair(seed)
	if err != nil {
		return nil, nil, err
	}
	secret := make([]byte, s.SecretSize())
	if _, err := io.ReadFull(o.Rand, secret); err != nil {
		return nil, nil, fmt.Errorf("update path: randomness: %w", err)
	}
	ps := &PathSecrets{Nodes: fdp, Secrets: make([][]byte, len(fdp))}
	keys := make([]nodeKey, len(fdp))
	for i := range fdp {
		ps.Secrets[i] = secret
		if keys[i].priv, keys[i].pub, err = nodeKeyPair(s, secret); err != nil {
			return nil, nil, err
		}
		if secret, err = s.DeriveSecret(secret, "path"); err != nil {
			return nil, nil, err
		}
	}
	ps.CommitSecret = secret

	pubs := make([][]byte, len(fdp))
	for i := range keys {
		pubs[i] = keys[i].pub
	}
	leafPH := t.setPath(leaf, fdp, pubs)

	ln := *o.Leaf
	ln.EncryptionKey = leafPub
	ln.Source = SourceCommit
	ln.Lifetime = Lifetime{}
	ln.ParentHash = leafPH
	if err := ln.Sign(s, o.SignatureKey, o.GroupID, leaf); err != nil {
		return nil, nil, err
	}
	t.setLeaf(leaf, &ln)

	gc, err := o.GroupContext(t.TreeHash())
	if err != nil {
		return nil, nil, err
	}
	up := &UpdatePath{LeafNode: ln, Nodes: make([]UpdatePathNode, len(fdp))}
	var jobs []encryptJob
	var res []tm.NodeIndex
	for i, x := range fdp {
		up.Nodes[i].EncryptionKey = keys[i].pub
		res = t.copathResolution(res[:0], leaf, x, o.Excluded)
		up.Nodes[i].EncryptedPathSecret = make([]HPKECiphertext, len(res))
		for j, y := range res {
			jobs = append(jobs, encryptJob{node: y, pub: t.EncryptionKey(y), secret: ps.Secrets[i], out: &up.Nodes[i].EncryptedPathSecret[j]})
		}
	}
	if err := runEncryptJobs(s, gc, jobs, o.Parallel); err != nil {
		return nil, nil, err
	}

	done = true
	priv.EncryptionKey = leafPriv
	for i, x := range fdp {
		priv.SetNodeKey(x, keys[i].priv, keys[i].pub)
	}
	priv.Prune(t)
	return up, ps, nil
}

// copathResolution appends the resolution of the child of x that is not
// above leaf, without the excluded leaves.
func (t *Tree) copathResolution(dst []tm.NodeIndex, leaf tm.LeafIndex, x tm.NodeIndex, excl []tm.LeafIndex) []tm.NodeIndex {
	l, _ := tm.Left(x)
	r, _ := tm.Right(x)
	c := r
	if !tm.IsInSubtree(l, leaf.Node()) {
		c = l
	}
	start := len(dst)
	dst = t.Resolution(dst, c)
	if len(excl) == 0 {
		return dst
	}
	out := dst[:start]
	for _, y := range dst[start:] {
		if li, ok := y.Leaf(); ok && slices.Contains(excl, li) {
			continue
		}
		out = append(out, y)
	}
	return out
}

// setPath writes new parent nodes with keys pubs on the filtered direct path
// fdp of leaf (the direct path already blank), computing their parent hashes
// from the root down (RFC 9420 §7.9), and returns the parent hash the leaf
// must carry.
func (t *Tree) setPath(leaf tm.LeafIndex, fdp []tm.NodeIndex, pubs [][]byte) []byte {
	var w codec.Writer
	ph := []byte{}
	for i := len(fdp) - 1; i >= 0; i-- {
		p := &ParentNode{EncryptionKey: pubs[i], ParentHash: ph}
		t.setParent(fdp[i], p)
		// The child of fdp[i] towards the leaf; its sibling is the co-path
		// child S of ParentHash(P, S).
		below := leaf.Node()
		if i > 0 {
			below = fdp[i-1]
		}
		l, _ := tm.Left(fdp[i])
		r, _ := tm.Right(fdp[i])
		s := l
		if tm.IsInSubtree(l, below) {
			s = r
		}
		ph = t.parentHash(&w, p, s)
	}
	return ph
}

// ApplyOptions are the inputs of [Tree.ApplyUpdatePath].
type ApplyOptions struct {
	// Sender is the committer's leaf. For an external commit the caller
	// first adds path.LeafNode with [Tree.AddLeaf] and passes its index.
	Sender tm.LeafIndex
	// Leaf, if set, validates the path's leaf node with [Tree.ValidateLeaf]
	// (its Leaf and Source fields are filled in here).
	Leaf         *LeafContext
	Excluded     []tm.LeafIndex
	GroupContext GroupContextFunc
	// Private is the receiver's state, updated in place; nil merges the
	// path without decrypting (an observer).
	Private *PrivateState
}

// ApplyResult is what a receiver learns from an UpdatePath.
type ApplyResult struct {
	// Node and PathSecret: the lowest path node above the receiver and the
	// path secret decrypted for it.
	Node         tm.NodeIndex
	PathSecret   []byte
	CommitSecret []byte
}

// ApplyUpdatePath runs the receiver's side of TreeKEM (RFC 9420 §7.5,
// §12.4.2) on t, the tree with the commit's proposals applied: it checks the
// path's shape and leaf, merges the new public keys, verifies the leaf's
// parent hash, decrypts the path secret meant for o.Private, derives the
// rest of the path, checks every derived public key, and returns the commit
// secret. On error t and o.Private are unchanged.
func (t *Tree) ApplyUpdatePath(path *UpdatePath, o *ApplyOptions) (*ApplyResult, error) {
	s := t.suite
	sender := o.Sender
	old := t.Leaf(sender)
	if old == nil {
		return nil, fmt.Errorf("%w: committer leaf %d", ErrLeafIndex, sender)
	}
	if o.Private != nil && o.Private.Leaf == sender {
		return nil, fmt.Errorf("%w: a member cannot process its own update path", ErrLeafIndex)
	}
	fdp := t.FilteredDirectPath(nil, sender)
	if len(path.Nodes) != len(fdp) {
		return nil, fmt.Errorf("%w: %d nodes, filtered direct path has %d", ErrPathLength, len(path.Nodes), len(fdp))
	}
	ln := &path.LeafNode
	if ln.Source != SourceCommit {
		return nil, fmt.Errorf("%w: update path leaf", ErrLeafSource)
	}
	if o.Leaf != nil {
		c := *o.Leaf
		c.Leaf, c.Source = sender, SourceCommit
		if err := t.ValidateLeaf(ln, sender, &c); err != nil {
			return nil, fmt.Errorf("update path leaf: %w", err)
		}
	}
	if old != ln && bytes.Equal(old.EncryptionKey, ln.EncryptionKey) {
		return nil, fmt.Errorf("%w: the committer's leaf encryption key is unchanged", ErrDuplicateKey)
	}
	if err := t.checkPathKeysFresh(path, sender); err != nil {
		return nil, err
	}
	var res []tm.NodeIndex
	for i, x := range fdp {
		res = t.copathResolution(res[:0], sender, x, o.Excluded)
		if len(path.Nodes[i].EncryptedPathSecret) != len(res) {
			return nil, fmt.Errorf("%w: node %d has %d ciphertexts for a resolution of %d", ErrPathLength, x, len(path.Nodes[i].EncryptedPathSecret), len(res))
		}
	}

	// Merge in place, remembering the replaced nodes so that a failure can
	// put t back as it was.
	saved := t.saveDirectPath(sender)
	merged := false
	defer func() {
		if merged {
			return
		}
		saved.restore(t)
	}()
	work := t
	work.blankDirectPath(sender)
	pubs := make([][]byte, len(fdp))
	for i := range path.Nodes {
		pubs[i] = path.Nodes[i].EncryptionKey
	}
	if ph := work.setPath(sender, fdp, pubs); !bytes.Equal(ph, ln.ParentHash) {
		return nil, fmt.Errorf("%w: the committer's leaf", ErrParentHash)
	}
	leafCopy := *ln
	work.setLeaf(sender, &leafCopy)
	result := &ApplyResult{}
	var newKeys []nodeKey
	var newNodes []tm.NodeIndex
	if o.Private != nil {
		gc, err := o.GroupContext(work.TreeHash())
		if err != nil {
			return nil, err
		}
		me := o.Private.Leaf.Node()
		k := -1
		for i, x := range fdp {
			if tm.IsInSubtree(x, me) {
				k = i
				break
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("%w: leaf %d is not below the path", ErrNoPathSecret, o.Private.Leaf)
		}
		// Find a node of the copath resolution whose private key we hold:
		// our leaf or one of its ancestors below fdp[k].
		res = t.copathResolution(res[:0], sender, fdp[k], o.Excluded)
		var secret []byte
		for j, y := range res {
			if !tm.IsInSubtree(y, me) {
				continue
			}
			// The copath child is off the sender's path, so the merge did
			// not change its keys.
			priv, ok := o.Private.keyFor(t, y)
			if !ok {
				continue
			}
			ct := path.Nodes[k].EncryptedPathSecret[j]
			pt, err := s.DecryptWithLabel(priv, "UpdatePathNode", gc, ct.KEMOutput, ct.Ciphertext)
			if err != nil {
				return nil, fmt.Errorf("%w: decrypting at node %d: %w", ErrNoPathSecret, y, err)
			}
			secret = pt
			break
		}
		if secret == nil {
			return nil, fmt.Errorf("%w: no key for the resolution of node %d", ErrNoPathSecret, fdp[k])
		}
		result.Node, result.PathSecret = fdp[k], secret
		for i := k; i < len(fdp); i++ {
			priv, pub, err := nodeKeyPair(s, secret)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(pub, pubs[i]) {
				return nil, fmt.Errorf("%w: node %d", ErrPathKey, fdp[i])
			}
			newKeys = append(newKeys, nodeKey{priv: priv, pub: pub})
			newNodes = append(newNodes, fdp[i])
			if secret, err = s.DeriveSecret(secret, "path"); err != nil {
				return nil, err
			}
		}
		result.CommitSecret = secret
	}
	merged = true
	if o.Private != nil {
		for i, x := range newNodes {
			o.Private.SetNodeKey(x, newKeys[i].priv, newKeys[i].pub)
		}
		o.Private.Prune(t)
	}
	return result, nil
}

// checkPathKeysFresh rejects an update path whose public keys repeat or
// already appear in the tree outside the nodes the path replaces (RFC 9420
// §12.4.2: none of the UpdatePath's keys may appear in the new tree).
func (t *Tree) checkPathKeysFresh(path *UpdatePath, sender tm.LeafIndex) error {
	var keys prefixSet
	keys.add(path.LeafNode.EncryptionKey)
	for _, n := range path.Nodes {
		if keys.holds(n.EncryptionKey) {
			return fmt.Errorf("%w: update path repeats a key", ErrDuplicateKey)
		}
		keys.add(n.EncryptionKey)
	}
	sn := sender.Node()
	for x := 0; x < t.keys.enc.len(); x++ {
		v := t.keys.enc.at(x)
		if !keys.mayHold(v) {
			continue
		}
		nx := tm.NodeIndex(x)
		if nx == sn || (!nx.IsLeaf() && tm.IsInSubtree(nx, sn)) || t.IsBlank(nx) {
			continue // replaced by the path, or blank
		}
		if keys.holds(t.EncryptionKey(nx)) {
			return fmt.Errorf("%w: update path key is node %d's", ErrDuplicateKey, x)
		}
	}
	return nil
}

// savedPath is leaf i and the parent nodes of its direct path, as they were.
type savedPath struct {
	leaf    tm.LeafIndex
	old     *LeafNode
	nodes   []tm.NodeIndex
	parents []*ParentNode
}

func (t *Tree) saveDirectPath(i tm.LeafIndex) *savedPath {
	sp := &savedPath{leaf: i, old: t.leafAt(int(i))}
	sp.nodes = tm.DirectPath(nil, i.Node(), t.NumLeaves())
	for _, x := range sp.nodes {
		sp.parents = append(sp.parents, t.parentAtK(int(x>>1)))
	}
	return sp
}

// restore puts the saved nodes back (their hashes are recomputed lazily).
func (sp *savedPath) restore(t *Tree) {
	t.setLeaf(sp.leaf, sp.old)
	for k, x := range sp.nodes {
		t.setParent(x, sp.parents[k])
	}
}

// encryptJob is one EncryptWithLabel of a path secret to a node's key.
type encryptJob struct {
	node   tm.NodeIndex
	pub    []byte
	secret []byte
	out    *HPKECiphertext
}

// parallelMinJobs is the smallest batch worth spreading over goroutines.
const parallelMinJobs = 8

// runEncryptJobs encrypts each job's path secret under the provisional
// GroupContext gc, in order, or over up to par goroutines.
func runEncryptJobs(s Suite, gc []byte, jobs []encryptJob, par int) error {
	do := func(j *encryptJob) error {
		kem, ct, err := s.EncryptWithLabel(j.pub, "UpdatePathNode", gc, j.secret)
		if err != nil {
			return fmt.Errorf("update path: encrypt to node %d: %w", j.node, err)
		}
		*j.out = HPKECiphertext{KEMOutput: kem, Ciphertext: ct}
		return nil
	}
	if par <= 1 || len(jobs) < parallelMinJobs {
		for k := range jobs {
			if err := do(&jobs[k]); err != nil {
				return err
			}
		}
		return nil
	}
	par = min(par, len(jobs))
	errs := make([]error, par)
	var wg sync.WaitGroup
	chunk := (len(jobs) + par - 1) / par
	for w := 0; w < par; w++ {
		start, end := w*chunk, min((w+1)*chunk, len(jobs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := start; k < end; k++ {
				if err := do(&jobs[k]); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
