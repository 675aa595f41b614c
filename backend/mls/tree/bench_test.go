package tree

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"testing"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

// fullTree is a synthetic n-member tree in which every parent node that a
// real TreeKEM history could fill is non-blank and parent-hash valid (each
// parent chains to its left child), with every key derived from its node
// index so that any member's private state can be rebuilt.
type fullTree struct {
	s       *testSuite
	tree    *Tree
	sigPriv [][]byte
}

func nodeSeed(s *testSuite, x tm.NodeIndex, kind byte) []byte {
	seed := make([]byte, s.SecretSize())
	binary.BigEndian.PutUint32(seed, uint32(x))
	seed[5] = kind
	return seed
}

func buildFullTree(tb testing.TB, id uint16, n int) *fullTree {
	tb.Helper()
	s := newTestSuite(tb, id)
	s.rand = seeded(7)
	nl := uint32(1)
	for nl < uint32(n) {
		nl *= 2
	}
	ft := &fullTree{s: s, tree: newBlank(s, nl), sigPriv: make([][]byte, n)}
	tr := ft.tree
	for i := 0; i < n; i++ {
		l, _, sig := newLeaf(tb, s, fmt.Sprintf("member-%d", i))
		kp, err := s.DeriveKeyPairFor(tm.LeafIndex(i).Node())
		if err != nil {
			tb.Fatal(err)
		}
		l.EncryptionKey = kp
		tr.setLeaf(tm.LeafIndex(i), l)
		ft.sigPriv[i] = sig
	}
	var build func(x tm.NodeIndex, ph []byte)
	build = func(x tm.NodeIndex, ph []byte) {
		if x.IsLeaf() {
			i := tm.LeafIndex(x >> 1)
			l := tr.leafAt(int(i))
			if l == nil {
				return
			}
			c := *l
			if ph != nil {
				c.Source, c.Lifetime, c.ParentHash = SourceCommit, Lifetime{}, ph
			}
			if err := c.Sign(s, ft.sigPriv[i], simGroupID, i); err != nil {
				tb.Fatal(err)
			}
			tr.setLeaf(i, &c)
			return
		}
		l, _ := tm.Left(x)
		r, _ := tm.Right(x)
		if tr.resolutionEmpty(r) {
			build(l, ph) // x stays blank: its co-path child is empty
			return
		}
		_, pub, err := nodeKeyPair(s, nodeSeed(s, x, 'p'))
		if err != nil {
			tb.Fatal(err)
		}
		if ph == nil {
			ph = []byte{}
		}
		p := &ParentNode{EncryptionKey: pub, ParentHash: ph}
		tr.setParent(x, p)
		build(r, nil)
		var w = new(writerScratch)
		build(l, tr.parentHash(&w.w, p, r))
	}
	build(tr.Root(), nil)
	s.rand = crand.Reader // concurrency-safe from here on (Parallel encryption)
	return ft
}

// DeriveKeyPairFor derives the leaf key of node x in a fullTree.
func (c *testSuite) DeriveKeyPairFor(x tm.NodeIndex) ([]byte, error) {
	_, pub, err := c.DeriveKeyPair(nodeSeed(c, x, 'l'))
	return pub, err
}

// private rebuilds member i's private state.
func (ft *fullTree) private(tb testing.TB, i tm.LeafIndex) *PrivateState {
	s := ft.s
	encPriv, _, err := s.DeriveKeyPair(nodeSeed(s, i.Node(), 'l'))
	if err != nil {
		tb.Fatal(err)
	}
	p := NewPrivateState(i, encPriv, ft.sigPriv[i])
	for _, x := range tm.DirectPath(nil, i.Node(), ft.tree.NumLeaves()) {
		if ft.tree.ParentAt(x) == nil {
			continue
		}
		priv, pub, err := nodeKeyPair(s, nodeSeed(s, x, 'p'))
		if err != nil {
			tb.Fatal(err)
		}
		p.SetNodeKey(x, priv, pub)
	}
	return p
}

func TestFullTreeBuilderIsValid(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 16, 37} {
		ft := buildFullTree(t, 1, n)
		if err := ft.tree.Validate(&ImportOptions{GroupID: simGroupID, TreeHash: ft.tree.TreeHash()}); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if n < 2 {
			continue
		}
		// A commit from the last member is processed by the first.
		c := tm.LeafIndex(n - 1)
		tr := ft.tree.Clone()
		cp := ft.private(t, c)
		tmpl := *tr.Leaf(c)
		up, ps, err := tr.CreateUpdatePath(&PathOptions{Rand: ft.s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: cp.SignatureKey, GroupContext: simGC(ft.s, 5), PrivateBefore: cp})
		if err != nil {
			t.Fatal(err)
		}
		rt := ft.tree.Clone()
		res, err := rt.ApplyUpdatePath(up, &ApplyOptions{Sender: c, Leaf: &LeafContext{Suite: ft.s, GroupID: simGroupID}, GroupContext: simGC(ft.s, 5), Private: ft.private(t, 0)})
		if err != nil || string(res.CommitSecret) != string(ps.CommitSecret) {
			t.Fatalf("n=%d: process: %v", n, err)
		}
	}
}

var benchSizes = []int{10, 100, 1000, 10000}

var fullTrees = map[int]*fullTree{}

func cachedFullTree(b *testing.B, n int) *fullTree {
	if ft, ok := fullTrees[n]; ok {
		return ft
	}
	ft := buildFullTree(b, 1, n)
	ft.tree.TreeHash()
	fullTrees[n] = ft
	return ft
}

// BenchmarkCommitFullTree: the committer's TreeKEM work for a commit with a
// full path (stage clone, blank, new keys, parent hashes, leaf signature,
// tree hash, HPKE to each copath node), suite 1.
func BenchmarkCommitFullTree(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ft := cachedFullTree(b, n)
			c := tm.LeafIndex(n / 2)
			cp := ft.private(b, c)
			tmpl := *ft.tree.Leaf(c)
			b.ResetTimer()
			loopCPU(b, func() {
				tr := ft.tree.Clone()
				if _, _, err := tr.CreateUpdatePath(&PathOptions{Rand: ft.s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: cp.SignatureKey, GroupContext: simGC(ft.s, 5), PrivateBefore: cp.Clone()}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkProcessFullTree: a receiver's TreeKEM work for that commit
// (validation of the new leaf incl. signature and key uniqueness, merge,
// parent hash check, tree hash, one HPKE decryption, key derivation).
func BenchmarkProcessFullTree(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ft := cachedFullTree(b, n)
			c := tm.LeafIndex(n / 2)
			tr := ft.tree.Clone()
			cp := ft.private(b, c)
			tmpl := *tr.Leaf(c)
			up, _, err := tr.CreateUpdatePath(&PathOptions{Rand: ft.s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: cp.SignatureKey, GroupContext: simGC(ft.s, 5), PrivateBefore: cp})
			if err != nil {
				b.Fatal(err)
			}
			rp := ft.private(b, 0)
			b.ResetTimer()
			loopCPU(b, func() {
				rt := ft.tree.Clone()
				if _, err := rt.ApplyUpdatePath(up, &ApplyOptions{Sender: c, Leaf: &LeafContext{Suite: ft.s, GroupID: simGroupID}, GroupContext: simGC(ft.s, 5), Private: rp.Clone()}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkCommitSparse: the first commit with path after a batch add of
// n-1 members, where the copath resolutions are the added leaves (about n-1
// encryptions), serially and with Parallel=2.
func BenchmarkCommitSparse(b *testing.B) {
	for _, n := range benchSizes {
		for _, par := range []int{1, 2} {
			b.Run(fmt.Sprintf("N=%d/par=%d", n, par), func(b *testing.B) {
				ft := cachedFullTree(b, n)
				tr := ft.tree.Clone()
				for k := 0; k < tr.parents.len(); k++ {
					tr.setParent(tm.NodeIndex(2*k+1), nil)
				}
				cp := ft.private(b, 0)
				tmpl := *tr.Leaf(0)
				b.ResetTimer()
				loopCPU(b, func() {
					st := tr.Clone()
					if _, _, err := st.CreateUpdatePath(&PathOptions{Rand: ft.s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: cp.SignatureKey, GroupContext: simGC(ft.s, 5), PrivateBefore: cp.Clone(), Parallel: par}); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkImport: decoding and fully validating a received tree (tree
// hash, parent hashes, every leaf, signatures in parallel), as on an
// external join; reports the encoded bytes per member.
func BenchmarkImport(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			ft := cachedFullTree(b, n)
			enc := ft.tree.RatchetTreeBytes()
			th := ft.tree.TreeHash()
			b.ResetTimer()
			loopCPU(b, func() {
				if _, err := Import(ft.s, enc, &ImportOptions{GroupID: simGroupID, TreeHash: th}); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(len(enc))/float64(n), "tree-B/member")
		})
	}
}

// BenchmarkCryptoFloor: the primitives a commit is made of, for ratios.
func BenchmarkCryptoFloor(b *testing.B) {
	s := newTestSuite(b, 1)
	kp, _ := s.s.GenerateKeyPair(s.rand)
	l, _, sig := newLeaf(b, s, "x")
	msg := make([]byte, 200)
	b.Run("HPKEEncrypt", func(b *testing.B) {
		loopCPU(b, func() { s.EncryptWithLabel(kp.Public, "UpdatePathNode", msg, msg[:32]) })
	})
	kem, ct, _ := s.EncryptWithLabel(kp.Public, "UpdatePathNode", msg, msg[:32])
	b.Run("HPKEDecrypt", func(b *testing.B) {
		loopCPU(b, func() { s.DecryptWithLabel(kp.Private, "UpdatePathNode", msg, kem, ct) })
	})
	b.Run("DeriveKeyPair", func(b *testing.B) {
		loopCPU(b, func() { s.DeriveKeyPair(msg[:32]) })
	})
	b.Run("Sign", func(b *testing.B) {
		loopCPU(b, func() { s.SignWithLabel(sig, "LeafNodeTBS", msg) })
	})
	sg, _ := s.SignWithLabel(sig, "LeafNodeTBS", msg)
	b.Run("Verify", func(b *testing.B) {
		loopCPU(b, func() { s.VerifyWithLabel(l.SignatureKey, "LeafNodeTBS", msg, sg) })
	})
}

type writerScratch struct{ w codec.Writer }
