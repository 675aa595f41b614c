package tree

import (
	"bytes"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"testing"

	tm "weald/backend/mls/treemath"
)

// member is a simulated group member: its private state and its own copy of
// the public tree.
type member struct {
	priv *PrivateState
	tree *Tree
	tmpl LeafNode
}

// newLeaf makes a key_package leaf node for identity with fresh keys from
// rnd, returning it with its private keys.
func newLeaf(tb testing.TB, s *testSuite, identity string) (*LeafNode, []byte, []byte) {
	tb.Helper()
	kp, err := s.s.GenerateKeyPair(s.rand)
	if err != nil {
		tb.Fatal(err)
	}
	sk, err := s.s.GenerateSigningKey(s.rand)
	if err != nil {
		tb.Fatal(err)
	}
	l := &LeafNode{
		EncryptionKey: kp.Public,
		SignatureKey:  sk.Public(),
		Credential:    BasicCredential([]byte(identity)),
		Capabilities: Capabilities{
			Versions: []uint16{1}, CipherSuites: []uint16{s.ID()},
			Extensions: []ExtensionType{}, Proposals: []uint16{}, Credentials: []CredentialType{CredentialBasic},
		},
		Source:     SourceKeyPackage,
		Lifetime:   Lifetime{NotBefore: 0, NotAfter: 1 << 40},
		Extensions: Extensions{},
	}
	if err := l.Sign(s, sk.Bytes(), nil, 0); err != nil {
		tb.Fatal(err)
	}
	return l, kp.Private, sk.Bytes()
}

// chacha is a deterministic io.Reader for tests.
type chacha struct{ r *mrand.ChaCha8 }

func (c chacha) Read(p []byte) (int, error) { return c.r.Read(p) }

func seeded(seed byte) chacha {
	var s [32]byte
	s[0] = seed
	return chacha{mrand.NewChaCha8(s)}
}

var simGroupID = []byte("simulated group")

func simGC(s Suite, epoch uint64) GroupContextFunc {
	return func(th []byte) ([]byte, error) {
		return groupContext(s.ID(), simGroupID, epoch, th, []byte("cth")), nil
	}
}

// commit has committer c of members apply removes and adds, create a path,
// and every other member process it; it checks that all agree.
func commit(t *testing.T, s *testSuite, members map[tm.LeafIndex]*member, c tm.LeafIndex, removes []tm.LeafIndex, adds int, epoch uint64, name func() string) {
	t.Helper()
	cm := members[c]
	stage := cm.tree.Clone()
	for _, r := range removes {
		if err := stage.RemoveLeaf(r); err != nil {
			t.Fatal(err)
		}
	}
	type joiner struct {
		leaf          *LeafNode
		encPriv, sig  []byte
		index         tm.LeafIndex
		identityLabel string
	}
	var joiners []joiner
	var excluded []tm.LeafIndex
	for k := 0; k < adds; k++ {
		id := name()
		l, enc, sig := newLeaf(t, s, id)
		if err := stage.ValidateLeaf(l, tm.LeafIndex(stage.NumLeaves()), &LeafContext{Suite: s, Source: SourceKeyPackage}); err != nil {
			t.Fatalf("new leaf %s: %v", id, err)
		}
		j := joiner{leaf: l, encPriv: enc, sig: sig, index: stage.AddLeaf(l), identityLabel: id}
		joiners = append(joiners, j)
		excluded = append(excluded, j.index)
	}
	priv := cm.priv.Clone()
	up, secrets, err := stage.CreateUpdatePath(&PathOptions{
		Rand: s.rand, GroupID: simGroupID, Leaf: &cm.tmpl, SignatureKey: priv.SignatureKey,
		Excluded: excluded, GroupContext: simGC(s, epoch), PrivateBefore: priv,
	})
	if err != nil {
		t.Fatalf("epoch %d: create path: %v", epoch, err)
	}
	if err := stage.VerifyParentHashes(); err != nil {
		t.Fatalf("epoch %d: committer's tree: %v", epoch, err)
	}
	cm.tree, cm.priv = stage, priv
	wantHash := stage.TreeHash()
	wire, err := DecodeUpdatePath(up.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for idx, m := range members {
		if idx == c {
			continue
		}
		if contains(removes, idx) {
			delete(members, idx)
			continue
		}
		rt := m.tree.Clone()
		for _, r := range removes {
			if err := rt.RemoveLeaf(r); err != nil {
				t.Fatal(err)
			}
		}
		for _, j := range joiners {
			rt.AddLeaf(j.leaf)
		}
		mp := m.priv.Clone()
		res, err := rt.ApplyUpdatePath(wire, &ApplyOptions{
			Sender: c, Leaf: &LeafContext{Suite: s, GroupID: simGroupID}, Excluded: excluded,
			GroupContext: simGC(s, epoch), Private: mp,
		})
		if err != nil {
			t.Fatalf("epoch %d: leaf %d processing commit of %d: %v", epoch, idx, c, err)
		}
		if !bytes.Equal(res.CommitSecret, secrets.CommitSecret) || !bytes.Equal(rt.TreeHash(), wantHash) {
			t.Fatalf("epoch %d: leaf %d disagrees", epoch, idx)
		}
		m.tree, m.priv = rt, mp
	}
	// Joiners get the tree (as the ratchet_tree extension) and their path
	// secret, as a Welcome would carry them.
	for _, j := range joiners {
		jt, err := Import(s, stage.RatchetTreeBytes(), &ImportOptions{GroupID: simGroupID, TreeHash: wantHash})
		if err != nil {
			t.Fatalf("epoch %d: joiner import: %v", epoch, err)
		}
		jp := NewPrivateState(j.index, j.encPriv, j.sig)
		x, ps, ok := secrets.For(j.index)
		if !ok {
			t.Fatalf("no path secret for joiner %d", j.index)
		}
		if err := jp.ImportPathSecret(jt, x, ps); err != nil {
			t.Fatalf("joiner %d: %v", j.index, err)
		}
		tmpl := *j.leaf
		members[j.index] = &member{priv: jp, tree: jt, tmpl: tmpl}
	}
}

// TestSimulatedGroup runs a group through adds, removes (with truncation)
// and commits from random members; after every commit all members agree on
// the commit secret and tree hash, the tree is parent-hash valid, and it
// survives export and import.
func TestSimulatedGroup(t *testing.T) {
	for _, id := range []uint16{1, 2} {
		t.Run(fmt.Sprintf("suite%d", id), func(t *testing.T) {
			s := newTestSuite(t, id)
			s.rand = seeded(byte(id))
			rng := mrand.New(mrand.NewPCG(1, uint64(id)))
			next := 0
			name := func() string { next++; return fmt.Sprintf("member-%d", next) }
			l0, enc, sig := newLeaf(t, s, name())
			members := map[tm.LeafIndex]*member{0: {priv: NewPrivateState(0, enc, sig), tree: New(s, l0), tmpl: *l0}}
			commit(t, s, members, 0, nil, 6, 1, name)
			for epoch := uint64(2); epoch < 26; epoch++ {
				ids := slices.Sorted(maps.Keys(members))
				c := ids[rng.IntN(len(ids))]
				var removes []tm.LeafIndex
				if len(ids) > 3 && rng.IntN(3) == 0 {
					if r := ids[rng.IntN(len(ids))]; r != c {
						removes = append(removes, r)
					}
				}
				adds := 0
				if len(ids) < 12 && rng.IntN(2) == 0 {
					adds = 1 + rng.IntN(3)
				}
				commit(t, s, members, c, removes, adds, epoch, name)
				ref := members[c].tree
				checkKeyIndex(t, ref)
				if err := ref.Validate(&ImportOptions{GroupID: simGroupID, TreeHash: ref.TreeHash()}); err != nil {
					t.Fatalf("epoch %d: %v", epoch, err)
				}
				// Truncation: the rightmost leaf is never blank.
				if r, ok := tm.Right(ref.Root()); ok && ref.resolutionEmpty(r) {
					t.Fatalf("epoch %d: right half blank after truncation", epoch)
				}
			}
		})
	}
}

// TestApplyRejectsLeavesStateUnchanged tampers with an update path in
// several ways; each is rejected and the receiver's tree and keys are as
// before.
func TestApplyRejectsLeavesStateUnchanged(t *testing.T) {
	s := newTestSuite(t, 1)
	s.rand = seeded(9)
	next := 0
	name := func() string { next++; return fmt.Sprintf("m%d", next) }
	l0, enc, sig := newLeaf(t, s, name())
	members := map[tm.LeafIndex]*member{0: {priv: NewPrivateState(0, enc, sig), tree: New(s, l0), tmpl: *l0}}
	commit(t, s, members, 0, nil, 4, 1, name)

	sender := members[1]
	stage := sender.tree.Clone()
	sp := sender.priv.Clone()
	up, _, err := stage.CreateUpdatePath(&PathOptions{Rand: s.rand, GroupID: simGroupID, Leaf: &sender.tmpl, SignatureKey: sp.SignatureKey, GroupContext: simGC(s, 2), PrivateBefore: sp})
	if err != nil {
		t.Fatal(err)
	}
	good := up.Bytes()
	recv := members[3]
	before := recv.tree.RatchetTreeBytes()
	beforePriv := recv.priv.Clone()
	tamper := map[string]func(p *UpdatePath){
		"leaf signature": func(p *UpdatePath) { p.LeafNode.Signature[3] ^= 1 },
		"parent hash":    func(p *UpdatePath) { p.LeafNode.ParentHash[0] ^= 1 },
		"node key":       func(p *UpdatePath) { p.Nodes[len(p.Nodes)-1].EncryptionKey[5] ^= 1 },
		"ciphertext": func(p *UpdatePath) {
			for i := range p.Nodes {
				for j := range p.Nodes[i].EncryptedPathSecret {
					p.Nodes[i].EncryptedPathSecret[j].Ciphertext[0] ^= 1
				}
			}
		},
		"missing node": func(p *UpdatePath) { p.Nodes = p.Nodes[:len(p.Nodes)-1] },
		"extra ct": func(p *UpdatePath) {
			p.Nodes[0].EncryptedPathSecret = append(p.Nodes[0].EncryptedPathSecret, p.Nodes[0].EncryptedPathSecret[0])
		},
		"repeated key":     func(p *UpdatePath) { p.Nodes[0].EncryptionKey = p.LeafNode.EncryptionKey },
		"leaf source":      func(p *UpdatePath) { p.LeafNode.Source = SourceUpdate },
		"old leaf key":     func(p *UpdatePath) { p.LeafNode.EncryptionKey = recv.tree.Leaf(1).EncryptionKey },
		"other's key":      func(p *UpdatePath) { p.Nodes[0].EncryptionKey = recv.tree.Leaf(2).EncryptionKey },
		"group context":    nil,
		"wrong sender":     nil,
		"own path":         nil,
		"bad group id sig": nil,
	}
	for what, f := range tamper {
		p, err := DecodeUpdatePath(good)
		if err != nil {
			t.Fatal(err)
		}
		opts := &ApplyOptions{Sender: 1, Leaf: &LeafContext{Suite: s, GroupID: simGroupID}, GroupContext: simGC(s, 2), Private: recv.priv}
		switch what {
		case "group context":
			opts.GroupContext = simGC(s, 3)
		case "wrong sender":
			opts.Sender = 2
		case "own path":
			opts.Private = sender.priv
		case "bad group id sig":
			opts.Leaf = &LeafContext{Suite: s, GroupID: []byte("other")}
		default:
			f(p)
		}
		rt := recv.tree
		if what == "own path" {
			rt = sender.tree.Clone()
		}
		res, err := rt.ApplyUpdatePath(p, opts)
		if err == nil {
			t.Logf("%v", res.Node)
			t.Errorf("%s: accepted", what)
			continue
		}
		if !bytes.Equal(recv.tree.RatchetTreeBytes(), before) {
			t.Fatalf("%s: tree changed on error %v", what, err)
		}
		if len(recv.priv.path) != len(beforePriv.path) || !bytes.Equal(recv.priv.EncryptionKey, beforePriv.EncryptionKey) {
			t.Fatalf("%s: private state changed on error", what)
		}
	}
	// The untampered path still applies.
	p, _ := DecodeUpdatePath(good)
	if _, err := recv.tree.ApplyUpdatePath(p, &ApplyOptions{Sender: 1, Leaf: &LeafContext{Suite: s, GroupID: simGroupID}, GroupContext: simGC(s, 2), Private: recv.priv}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(recv.tree.TreeHash(), stage.TreeHash()) {
		t.Fatal("tree hash differs after the good path")
	}
}
