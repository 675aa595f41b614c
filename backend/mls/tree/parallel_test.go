package tree

import (
	"bytes"
	"crypto/rand"
	"testing"

	tm "weald/backend/mls/treemath"
)

// TestParallelEncryption: a commit on a sparse 40-member tree (about 39
// encryptions) made with Parallel=4 is processed by members on both sides.
func TestParallelEncryption(t *testing.T) {
	ft := buildFullTree(t, 1, 40)
	ft.s.rand = rand.Reader // concurrency-safe, as Parallel requires
	tr := ft.tree.Clone()
	for k := 0; k < tr.parents.len(); k++ {
		tr.setParent(tm.NodeIndex(2*k+1), nil)
	}
	base := tr.Clone()
	cp := ft.private(t, 0)
	cp = NewPrivateState(0, cp.EncryptionKey, cp.SignatureKey) // no parent keys: all blank
	tmpl := *tr.Leaf(0)
	up, ps, err := tr.CreateUpdatePath(&PathOptions{Rand: ft.s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: cp.SignatureKey,
		GroupContext: simGC(ft.s, 5), PrivateBefore: cp, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range up.Nodes {
		total += len(n.EncryptedPathSecret)
	}
	if total != 39 {
		t.Fatalf("%d ciphertexts, want one per other member (39)", total)
	}
	for _, r := range []tm.LeafIndex{1, 2, 17, 33, 39} {
		encPriv, _, err := ft.s.DeriveKeyPair(nodeSeed(ft.s, r.Node(), 'l'))
		if err != nil {
			t.Fatal(err)
		}
		rt := base.Clone()
		res, err := rt.ApplyUpdatePath(up, &ApplyOptions{Sender: 0, Leaf: &LeafContext{Suite: ft.s, GroupID: simGroupID},
			GroupContext: simGC(ft.s, 5), Private: NewPrivateState(r, encPriv, nil)})
		if err != nil {
			t.Fatalf("leaf %d: %v", r, err)
		}
		if !bytes.Equal(res.CommitSecret, ps.CommitSecret) || !bytes.Equal(rt.TreeHash(), tr.TreeHash()) {
			t.Fatalf("leaf %d disagrees", r)
		}
	}
}
