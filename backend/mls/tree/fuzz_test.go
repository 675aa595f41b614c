package tree

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
	tm "weald/backend/mls/treemath"
)

// seedTrees adds the suite-1 trees of tree-validation.json and treekem.json.
func seedTrees(f *testing.F) {
	var tv []treeValidationCase
	mlstest.Load(f, "tree-validation.json", &tv)
	for _, c := range tv {
		if c.CipherSuite == 1 {
			f.Add([]byte(c.Tree))
		}
	}
	var tk []treekemCase
	mlstest.Load(f, "treekem.json", &tk)
	for _, c := range tk {
		if c.CipherSuite == 1 {
			f.Add([]byte(c.RatchetTree))
		}
	}
}

// FuzzImport: importing arbitrary bytes as a ratchet tree never panics; a
// decoded tree re-encodes to the input, and the checks that run on a decoded
// but unvalidated tree (hashes, parent hashes, resolutions) do not panic.
func FuzzImport(f *testing.F) {
	seedTrees(f)
	s := newTestSuite(f, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := DecodeRatchetTree(s, b)
		if err != nil {
			return
		}
		if !bytes.Equal(tr.RatchetTreeBytes(), b) {
			t.Fatal("re-encoding differs")
		}
		_ = tr.VerifyParentHashes()
		_ = tr.FilteredDirectPath(nil, 0)
		if _, err := Import(s, b, &ImportOptions{GroupID: []byte("g"), TreeHash: tr.TreeHash()}); err == nil {
			// An accepted tree is internally consistent.
			if err := tr.VerifyParentHashes(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

type messagesKP struct {
	KeyPackage mlstest.HexBytes `json:"mls_key_package"`
	Update     mlstest.HexBytes `json:"update_proposal"`
}

// FuzzKeyPackage: decoding never panics; what decodes re-encodes; Validate
// never panics.
func FuzzKeyPackage(f *testing.F) {
	var cases []messagesKP
	mlstest.Load(f, "messages.json", &cases)
	for i, c := range cases {
		if i < 20 && len(c.KeyPackage) > 4 {
			f.Add([]byte(c.KeyPackage[4:]))
		}
	}
	s := newTestSuite(f, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		kp, err := DecodeKeyPackage(b)
		if err != nil {
			return
		}
		if !bytes.Equal(kp.Bytes(), b) {
			t.Fatal("re-encoding differs")
		}
		_ = kp.Validate(&LeafContext{Suite: s, Now: 1})
	})
}

// FuzzLeafNode: decoding never panics; what decodes re-encodes; Validate
// never panics.
func FuzzLeafNode(f *testing.F) {
	var cases []messagesKP
	mlstest.Load(f, "messages.json", &cases)
	for i, c := range cases {
		if i < 20 {
			f.Add([]byte(c.Update)) // an Update proposal body is a LeafNode
		}
	}
	s := newTestSuite(f, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := DecodeLeafNode(b)
		if err != nil {
			return
		}
		if !bytes.Equal(l.Bytes(), b) {
			t.Fatal("re-encoding differs")
		}
		_ = l.Validate(&LeafContext{Suite: s, GroupID: []byte("g"), Leaf: 1})
	})
}

// FuzzUpdatePath: decoding never panics and what decodes re-encodes.
func FuzzUpdatePath(f *testing.F) {
	var tk []treekemCase
	mlstest.Load(f, "treekem.json", &tk)
	for _, c := range tk {
		if c.CipherSuite == 1 {
			for _, u := range c.UpdatePaths {
				f.Add([]byte(u.UpdatePath))
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := DecodeUpdatePath(b)
		if err != nil {
			return
		}
		if !bytes.Equal(u.Bytes(), b) {
			t.Fatal("re-encoding differs")
		}
	})
}

// FuzzApplyUpdatePath: arbitrary update paths (and senders) applied to a
// live 6-member tree never panic; a rejected one leaves the tree and the
// receiver's keys unchanged, an accepted one leaves a parent-hash-valid tree.
func FuzzApplyUpdatePath(f *testing.F) {
	var tt testing.T
	s, base := simTree(&tt)
	// A valid path from leaf 1 as the main seed.
	l1 := base.Leaf(1)
	work := base.Clone()
	sk, err := s.s.GenerateSigningKey(s.rand)
	if err != nil {
		f.Fatal(err)
	}
	tmpl := *l1
	tmpl.SignatureKey = sk.Public()
	up, _, err := work.CreateUpdatePath(&PathOptions{Rand: s.rand, GroupID: simGroupID, Leaf: &tmpl, SignatureKey: sk.Bytes(),
		GroupContext: simGC(s, 9), PrivateBefore: NewPrivateState(1, []byte{1}, sk.Bytes())})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(byte(1), up.Bytes())
	f.Add(byte(3), up.Bytes())
	f.Add(byte(0), []byte{})
	before := base.RatchetTreeBytes()
	f.Fuzz(func(t *testing.T, sender byte, b []byte) {
		p, err := DecodeUpdatePath(b)
		if err != nil {
			return
		}
		tr := base.Clone()
		// Leaf 4's private key is not known here: decrypting fails late,
		// after the merge, which exercises the restore path.
		priv := NewPrivateState(4, []byte{1, 2, 3}, nil)
		// No leaf context: signature checks would stop most mutations
		// early; without them the merge and parent-hash code is reached.
		_, err = tr.ApplyUpdatePath(p, &ApplyOptions{Sender: tm.LeafIndex(sender % 8),
			GroupContext: simGC(s, 9), Private: priv})
		if err != nil {
			if !bytes.Equal(tr.RatchetTreeBytes(), before) {
				t.Fatalf("rejected path changed the tree: %v", err)
			}
			return
		}
		if err := tr.VerifyParentHashes(); err != nil {
			t.Fatalf("accepted path broke parent hashes: %v", err)
		}
	})
}
