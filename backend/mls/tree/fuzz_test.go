package tree

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
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
