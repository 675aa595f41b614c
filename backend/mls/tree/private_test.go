package tree

import (
	"bytes"
	"errors"
	"testing"

	"weald/backend/internal/codec"
	tm "weald/backend/mls/treemath"
)

func TestPrivateStateRoundTrip(t *testing.T) {
	p := NewPrivateState(5, []byte{1, 2}, []byte{3})
	p.SetNodeKey(11, []byte{4}, []byte{5, 6})
	p.SetNodeKey(7, []byte{7}, []byte{8})
	w := codec.NewWriter(nil)
	p.Encode(w)
	r := codec.NewReader(w.Bytes())
	q := DecodePrivateState(r)
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	w2 := codec.NewWriter(nil)
	q.Encode(w2)
	if !bytes.Equal(w.Bytes(), w2.Bytes()) || q.Leaf != 5 || len(q.path) != 2 {
		t.Fatal("private state does not round-trip")
	}
	// A private key for a leaf node is malformed.
	bad := codec.NewWriter(nil)
	bad.U32(1)
	bad.Opaque(nil)
	bad.Opaque(nil)
	bad.Vector(func(w *codec.Writer) { w.U32(4); w.Opaque([]byte{1}); w.Opaque([]byte{2}) })
	r = codec.NewReader(bad.Bytes())
	DecodePrivateState(r)
	if err := r.Done(); !errors.Is(err, ErrDecode) {
		t.Fatalf("leaf node key accepted: %v", err)
	}
	// Clones are independent.
	c := p.Clone()
	c.SetNodeKey(3, []byte{9}, []byte{9})
	if _, ok := p.path[3]; ok {
		t.Fatal("clone shares its map")
	}
}

// TestCreateUpdatePathErrorLeavesTree: a failing randomness source or group
// context leaves the tree and private state as they were.
func TestCreateUpdatePathErrorLeavesTree(t *testing.T) {
	_, tr := simTree(t)
	s := tr.suite.(*testSuite)
	before := tr.RatchetTreeBytes()
	hash := tr.TreeHash()
	for name, o := range map[string]*PathOptions{
		"short randomness": {Rand: bytes.NewReader(make([]byte, 40))},
		"group context": {Rand: s.rand, GroupContext: func([]byte) ([]byte, error) {
			return nil, errors.New("no context")
		}},
	} {
		priv := NewPrivateState(2, []byte{1}, nil)
		sk := make([]byte, 32)
		tmpl := *tr.Leaf(2)
		o.GroupID, o.Leaf, o.SignatureKey, o.PrivateBefore = simGroupID, &tmpl, sk, priv
		if _, _, err := tr.CreateUpdatePath(o); err == nil {
			t.Fatalf("%s: no error", name)
		}
		if !bytes.Equal(tr.RatchetTreeBytes(), before) || !bytes.Equal(tr.TreeHash(), hash) {
			t.Fatalf("%s: tree changed", name)
		}
		if !bytes.Equal(priv.EncryptionKey, []byte{1}) || len(priv.path) != 0 {
			t.Fatalf("%s: private state changed", name)
		}
		checkKeyIndex(t, tr)
	}
	if _, _, err := tr.CreateUpdatePath(&PathOptions{PrivateBefore: NewPrivateState(tm.LeafIndex(7), nil, nil)}); !errors.Is(err, ErrLeafIndex) {
		t.Fatalf("blank committer: %v", err)
	}
}
