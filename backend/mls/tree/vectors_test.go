package tree

import (
	"bytes"
	"slices"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	tm "weald/backend/mls/treemath"
)

type treeValidationCase struct {
	CipherSuite uint16             `json:"cipher_suite"`
	Tree        mlstest.HexBytes   `json:"tree"`
	GroupID     mlstest.HexBytes   `json:"group_id"`
	TreeHashes  []mlstest.HexBytes `json:"tree_hashes"`
	Resolutions [][]uint32         `json:"resolutions"`
}

// TestTreeValidationVectors: per case, every node's tree hash and
// resolution, parent-hash validity, and full import validation (leaf
// signatures bound to group_id and leaf index, unique keys).
func TestTreeValidationVectors(t *testing.T) {
	var cases []treeValidationCase
	mlstest.Load(t, "tree-validation.json", &cases)
	var n mlstest.Counter
	for i, c := range cases {
		if !n.Suite(c.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, c.CipherSuite), func(t *testing.T) {
			s := newTestSuite(t, c.CipherSuite)
			tr, err := DecodeRatchetTree(s, c.Tree)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !bytes.Equal(tr.RatchetTreeBytes(), c.Tree) {
				t.Fatalf("case %d: tree does not re-encode", i)
			}
			if int(tr.Width()) != len(c.TreeHashes) {
				t.Fatalf("case %d: width %d, vector has %d nodes", i, tr.Width(), len(c.TreeHashes))
			}
			for x := range c.TreeHashes {
				if got := tr.NodeHash(tm.NodeIndex(x)); !bytes.Equal(got, c.TreeHashes[x]) {
					t.Fatalf("case %d: tree hash of node %d", i, x)
				}
				var want []tm.NodeIndex
				for _, y := range c.Resolutions[x] {
					want = append(want, tm.NodeIndex(y))
				}
				if got := tr.Resolution(nil, tm.NodeIndex(x)); !slices.Equal(got, want) {
					t.Fatalf("case %d: resolution of node %d = %v, want %v", i, x, got, want)
				}
			}
			if err := tr.Validate(&ImportOptions{GroupID: c.GroupID, TreeHash: c.TreeHashes[tr.Root()]}); err != nil {
				t.Fatalf("case %d: validate: %v", i, err)
			}
			if _, err := Import(s, c.Tree, &ImportOptions{GroupID: c.GroupID, TreeHash: c.TreeHashes[tr.Root()]}); err != nil {
				t.Fatalf("case %d: import: %v", i, err)
			}
			// A wrong group id breaks the signatures of update/commit leaves;
			// a wrong tree hash is always caught.
			if _, err := Import(s, c.Tree, &ImportOptions{GroupID: c.GroupID, TreeHash: make([]byte, len(c.TreeHashes[0]))}); err == nil {
				t.Fatalf("case %d: wrong tree hash accepted", i)
			}
		})
	}
	n.Report(t, "tree-validation.json")
}

type treekemCase struct {
	CipherSuite             uint16           `json:"cipher_suite"`
	GroupID                 mlstest.HexBytes `json:"group_id"`
	Epoch                   uint64           `json:"epoch"`
	ConfirmedTranscriptHash mlstest.HexBytes `json:"confirmed_transcript_hash"`
	RatchetTree             mlstest.HexBytes `json:"ratchet_tree"`
	LeavesPrivate           []struct {
		Index          uint32           `json:"index"`
		EncryptionPriv mlstest.HexBytes `json:"encryption_priv"`
		SignaturePriv  mlstest.HexBytes `json:"signature_priv"`
		PathSecrets    []struct {
			Node       uint32           `json:"node"`
			PathSecret mlstest.HexBytes `json:"path_secret"`
		} `json:"path_secrets"`
	} `json:"leaves_private"`
	UpdatePaths []struct {
		Sender        uint32             `json:"sender"`
		UpdatePath    mlstest.HexBytes   `json:"update_path"`
		PathSecrets   []mlstest.HexBytes `json:"path_secrets"`
		CommitSecret  mlstest.HexBytes   `json:"commit_secret"`
		TreeHashAfter mlstest.HexBytes   `json:"tree_hash_after"`
	} `json:"update_paths"`
}

// groupContext encodes the GroupContext (RFC 9420 §8.1) with no extensions,
// as the treekem vectors use it. (The group package owns GroupContext; this
// is a test-only copy of its encoding.)
func groupContext(suite uint16, groupID []byte, epoch uint64, treeHash, cth []byte) []byte {
	w := codec.NewWriter(nil)
	w.U16(1)
	w.U16(suite)
	w.Opaque(groupID)
	w.U64(epoch)
	w.Opaque(treeHash)
	w.Opaque(cth)
	Extensions{}.Encode(w)
	return w.Bytes()
}

// vectorPrivate builds the private state of a vector leaf.
func vectorPrivate(t *testing.T, tr *Tree, lp int, c *treekemCase) *PrivateState {
	l := c.LeavesPrivate[lp]
	ps := NewPrivateState(tm.LeafIndex(l.Index), l.EncryptionPriv, l.SignaturePriv)
	for _, p := range l.PathSecrets {
		priv, pub, err := nodeKeyPair(tr.suite, p.PathSecret)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pub, tr.EncryptionKey(tm.NodeIndex(p.Node))) {
			t.Fatalf("leaf %d: path secret of node %d does not match the tree", l.Index, p.Node)
		}
		ps.SetNodeKey(tm.NodeIndex(p.Node), priv, pub)
	}
	return ps
}

// TestTreeKEMVectors: for each update path, every other member merges and
// decrypts it, getting the vector's path secret and commit secret and the
// tree hash after; then the sender makes a fresh path that every member
// decrypts to the same commit secret.
func TestTreeKEMVectors(t *testing.T) {
	var cases []treekemCase
	mlstest.Load(t, "treekem.json", &cases)
	var n mlstest.Counter
	for i := range cases {
		c := &cases[i]
		if !n.Suite(c.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, c.CipherSuite), func(t *testing.T) {
			s := newTestSuite(t, c.CipherSuite)
			base, err := DecodeRatchetTree(s, c.RatchetTree)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if err := base.Validate(&ImportOptions{GroupID: c.GroupID}); err != nil {
				t.Fatalf("case %d: tree: %v", i, err)
			}
			gcFor := func(th []byte) ([]byte, error) {
				return groupContext(c.CipherSuite, c.GroupID, c.Epoch, th, c.ConfirmedTranscriptHash), nil
			}
			privs := make([]*PrivateState, len(c.LeavesPrivate))
			for lp := range c.LeavesPrivate {
				privs[lp] = vectorPrivate(t, base, lp, c)
			}
			for j, up := range c.UpdatePaths {
				path, err := DecodeUpdatePath(up.UpdatePath)
				if err != nil {
					t.Fatalf("case %d path %d: %v", i, j, err)
				}
				lc := &LeafContext{Suite: s, GroupID: c.GroupID}
				for lp, l := range c.LeavesPrivate {
					if l.Index == up.Sender {
						continue
					}
					// The first receiver validates the new leaf (signature
					// included); it is the same for all.
					if lp > 1 {
						lc = nil
					}
					tr := base.Clone()
					priv := privs[lp].Clone()
					res, err := tr.ApplyUpdatePath(path, &ApplyOptions{Sender: tm.LeafIndex(up.Sender), Leaf: lc, GroupContext: gcFor, Private: priv})
					if err != nil {
						t.Fatalf("case %d path %d leaf %d: %v", i, j, l.Index, err)
					}
					if !bytes.Equal(res.PathSecret, up.PathSecrets[l.Index]) {
						t.Fatalf("case %d path %d leaf %d: path secret", i, j, l.Index)
					}
					if !bytes.Equal(res.CommitSecret, up.CommitSecret) {
						t.Fatalf("case %d path %d leaf %d: commit secret", i, j, l.Index)
					}
					if !bytes.Equal(tr.TreeHash(), up.TreeHashAfter) {
						t.Fatalf("case %d path %d leaf %d: tree hash after", i, j, l.Index)
					}
					if err := tr.VerifyParentHashes(); err != nil {
						t.Fatalf("case %d path %d: parent hashes after merge: %v", i, j, err)
					}
				}
				// Merging with no private state (an observer) gives the same tree.
				tr := base.Clone()
				if _, err := tr.ApplyUpdatePath(path, &ApplyOptions{Sender: tm.LeafIndex(up.Sender), GroupContext: gcFor}); err != nil || !bytes.Equal(tr.TreeHash(), up.TreeHashAfter) {
					t.Fatalf("case %d path %d: observer merge: %v", i, j, err)
				}
				// A fresh path from this sender (for every sender in suite 1,
				// the first one in the slower suites to bound the test time).
				if j == 0 || c.CipherSuite == 1 {
					checkFreshPath(t, i, j, base, c, privs, up.Sender, gcFor)
				}
			}
		})
	}
	n.Report(t, "treekem.json")
}

// checkFreshPath has sender create a new UpdatePath and every other vector
// member decrypt it to the sender's commit secret.
func checkFreshPath(t *testing.T, i, j int, base *Tree, c *treekemCase, privs []*PrivateState, sender uint32, gcFor GroupContextFunc) {
	t.Helper()
	var sp int = -1
	for lp, l := range c.LeavesPrivate {
		if l.Index == sender {
			sp = lp
		}
	}
	if sp < 0 {
		t.Fatalf("case %d path %d: no private keys for sender %d", i, j, sender)
	}
	tr := base.Clone()
	priv := privs[sp].Clone()
	tmpl := *tr.Leaf(tm.LeafIndex(sender))
	up, secrets, err := tr.CreateUpdatePath(&PathOptions{
		Rand: tr.suite.(*testSuite).rand, GroupID: c.GroupID, Leaf: &tmpl,
		SignatureKey: c.LeavesPrivate[sp].SignaturePriv, GroupContext: gcFor, PrivateBefore: priv,
	})
	if err != nil {
		t.Fatalf("case %d path %d: create: %v", i, j, err)
	}
	if err := tr.VerifyParentHashes(); err != nil {
		t.Fatalf("case %d path %d: created path: %v", i, j, err)
	}
	// Round trip the wire form, as a receiver sees it.
	path, err := DecodeUpdatePath(up.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for lp, l := range c.LeavesPrivate {
		if l.Index == sender {
			continue
		}
		rt := base.Clone()
		rp := privs[lp].Clone()
		res, err := rt.ApplyUpdatePath(path, &ApplyOptions{Sender: tm.LeafIndex(sender), Leaf: &LeafContext{Suite: tr.suite, GroupID: c.GroupID}, GroupContext: gcFor, Private: rp})
		if err != nil {
			t.Fatalf("case %d path %d: fresh path at leaf %d: %v", i, j, l.Index, err)
		}
		if !bytes.Equal(res.CommitSecret, secrets.CommitSecret) || !bytes.Equal(rt.TreeHash(), tr.TreeHash()) {
			t.Fatalf("case %d path %d: fresh path at leaf %d disagrees", i, j, l.Index)
		}
		if x, ps, ok := secrets.For(tm.LeafIndex(l.Index)); !ok || x != res.Node || !bytes.Equal(ps, res.PathSecret) {
			t.Fatalf("case %d path %d: PathSecrets.For(%d)", i, j, l.Index)
		}
	}
}
