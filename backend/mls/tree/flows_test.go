package tree

import (
	"bytes"
	"fmt"
	"testing"

	tm "weald/backend/mls/treemath"
)

// TestExternalJoinFlow: a joiner imports the tree, adds its own leaf (and,
// for a resync, removes its old one), and commits a path; every member adds
// the path's leaf at the same index and processes the path.
func TestExternalJoinFlow(t *testing.T) {
	for _, resync := range []bool{false, true} {
		t.Run(fmt.Sprintf("resync=%v", resync), func(t *testing.T) {
			s := newTestSuite(t, 1)
			s.rand = seeded(11)
			next := 0
			name := func() string { next++; return fmt.Sprintf("e%d", next) }
			l0, enc, sig := newLeaf(t, s, name())
			members := map[tm.LeafIndex]*member{0: {priv: NewPrivateState(0, enc, sig), tree: New(s, l0), tmpl: *l0}}
			commit(t, s, members, 0, nil, 5, 1, name)

			jt, err := Import(s, members[0].tree.RatchetTreeBytes(), &ImportOptions{GroupID: simGroupID, TreeHash: members[0].tree.TreeHash()})
			if err != nil {
				t.Fatal(err)
			}
			var removed []tm.LeafIndex
			if resync {
				removed = []tm.LeafIndex{3}
				if err := jt.RemoveLeaf(3); err != nil {
					t.Fatal(err)
				}
			}
			jl, jenc, jsig := newLeaf(t, s, name())
			ji := jt.AddLeaf(jl)
			jp := NewPrivateState(ji, jenc, jsig)
			tmpl := *jl
			up, ps, err := jt.CreateUpdatePath(&PathOptions{Rand: s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: jsig, GroupContext: simGC(s, 2), PrivateBefore: jp})
			if err != nil {
				t.Fatal(err)
			}
			wire, err := DecodeUpdatePath(up.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for idx, m := range members {
				if resync && idx == 3 {
					continue
				}
				rt := m.tree.Clone()
				for _, r := range removed {
					if err := rt.RemoveLeaf(r); err != nil {
						t.Fatal(err)
					}
				}
				if got := rt.AddLeaf(&wire.LeafNode); got != ji {
					t.Fatalf("member %d placed the joiner at %d, joiner says %d", idx, got, ji)
				}
				res, err := rt.ApplyUpdatePath(wire, &ApplyOptions{Sender: ji, Leaf: &LeafContext{Suite: s, GroupID: simGroupID}, GroupContext: simGC(s, 2), Private: m.priv.Clone()})
				if err != nil {
					t.Fatalf("member %d: %v", idx, err)
				}
				if !bytes.Equal(res.CommitSecret, ps.CommitSecret) || !bytes.Equal(rt.TreeHash(), jt.TreeHash()) {
					t.Fatalf("member %d disagrees with the joiner", idx)
				}
			}
			if resync && ji != 3 {
				t.Fatalf("resync should reuse the old leaf 3, got %d", ji)
			}
		})
	}
}

// TestUpdateThenCommit: an Update proposal replaces a member's leaf and
// blanks its path; the member adopts its new key, and a later commit from
// someone else reaches it.
func TestUpdateThenCommit(t *testing.T) {
	s := newTestSuite(t, 1)
	s.rand = seeded(12)
	next := 0
	name := func() string { next++; return fmt.Sprintf("u%d", next) }
	l0, enc, sig := newLeaf(t, s, name())
	members := map[tm.LeafIndex]*member{0: {priv: NewPrivateState(0, enc, sig), tree: New(s, l0), tmpl: *l0}}
	commit(t, s, members, 0, nil, 4, 1, name)

	// Member 2 proposes an Update with a fresh encryption key.
	m2 := members[2]
	kp, err := s.s.GenerateKeyPair(s.rand)
	if err != nil {
		t.Fatal(err)
	}
	ul := *m2.tree.Leaf(2)
	ul.EncryptionKey, ul.Source, ul.Lifetime = kp.Public, SourceUpdate, Lifetime{}
	if err := ul.Sign(s, m2.priv.SignatureKey, simGroupID, 2); err != nil {
		t.Fatal(err)
	}
	if err := m2.tree.ValidateLeaf(&ul, 2, &LeafContext{Suite: s, GroupID: simGroupID, Source: SourceUpdate}); err != nil {
		t.Fatalf("update leaf: %v", err)
	}
	// Member 0 commits the update with a path; everyone applies the
	// proposal first (member 2 adopting its new private key).
	for idx, m := range members {
		if err := m.tree.UpdateLeaf(2, &ul); err != nil {
			t.Fatal(err)
		}
		if idx == 2 {
			m.priv.EncryptionKey = kp.Private
		}
		if m.tree.ParentAt(5) != nil || m.tree.ParentAt(3) != nil || m.tree.ParentAt(7) != nil {
			t.Fatal("update did not blank the direct path")
		}
	}
	m2.tmpl = ul
	commit(t, s, members, 0, nil, 0, 2, name)
	// And member 2 can commit next; everyone processes it.
	commit(t, s, members, 2, nil, 0, 3, name)
}
