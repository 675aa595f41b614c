package tree

import (
	"errors"
	"testing"

	tm "weald/backend/mls/treemath"
)

// checkKeyIndex recomputes the side index from the nodes.
func checkKeyIndex(t *testing.T, tr *Tree) {
	t.Helper()
	want := newKeyIndex(tr.NumLeaves())
	for i := 0; i < tr.leaves.len(); i++ {
		want.setLeaf(tm.LeafIndex(i), nil, tr.leafAt(i))
	}
	for k := 0; k < tr.parents.len(); k++ {
		want.setParent(tm.NodeIndex(2*k+1), tr.parentAtK(k))
	}
	if want.enc.len() != tr.keys.enc.len() || want.sig.len() != tr.keys.sig.len() {
		t.Fatalf("key index sizes %d/%d, want %d/%d", tr.keys.enc.len(), tr.keys.sig.len(), want.enc.len(), want.sig.len())
	}
	for x := 0; x < want.enc.len(); x++ {
		if want.enc.at(x) != tr.keys.enc.at(x) {
			t.Fatalf("key index: node %d", x)
		}
	}
	for i := 0; i < want.sig.len(); i++ {
		if want.sig.at(i) != tr.keys.sig.at(i) {
			t.Fatalf("key index: leaf %d", i)
		}
	}
	for _, c := range want.creds {
		if tr.keys.credentialUsers(c.typ) != c.n {
			t.Fatalf("credential count of type %d", c.typ)
		}
	}
	if len(want.creds) != len(tr.keys.creds) {
		t.Fatalf("credential types %v, want %v", tr.keys.creds, want.creds)
	}
}

func TestValidateLeafTreeRules(t *testing.T) {
	s, tr := simTree(t)
	checkKeyIndex(t, tr)
	ctx := &LeafContext{Suite: s, Source: SourceKeyPackage}
	fresh, _, sig := newLeaf(t, s, "fresh")
	if err := tr.ValidateLeaf(fresh, tm.LeafIndex(tr.NumLeaves()), ctx); err != nil {
		t.Fatalf("fresh leaf: %v", err)
	}
	resign := func(l *LeafNode) *LeafNode {
		if err := l.Sign(s, sig, nil, 0); err != nil {
			t.Fatal(err)
		}
		return l
	}
	dupLeafEnc := *fresh
	dupLeafEnc.EncryptionKey = tr.Leaf(2).EncryptionKey
	dupParentEnc := *fresh
	dupParentEnc.EncryptionKey = tr.ParentAt(tr.Root()).EncryptionKey
	dupSig := *fresh
	dupSig.SignatureKey = tr.Leaf(4).SignatureKey
	for name, l := range map[string]*LeafNode{
		"leaf encryption key":   resign(&dupLeafEnc),
		"parent encryption key": resign(&dupParentEnc),
	} {
		if err := tr.ValidateLeaf(l, 7, ctx); !errors.Is(err, ErrDuplicateKey) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// dupSig's signature does not verify under the other key; skip it.
	c2 := *ctx
	c2.SkipSignature = true
	if err := tr.ValidateLeaf(&dupSig, 7, &c2); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("signature key: %v", err)
	}
	// Replacing leaf 2 with a leaf carrying leaf 2's own keys is fine.
	if err := tr.ValidateLeaf(tr.Leaf(2), 2, &c2); err != nil {
		t.Errorf("own keys: %v", err)
	}
	// A leaf that does not support basic credentials (in use) is refused.
	noBasic := *fresh
	noBasic.Credential = Credential{Type: CredentialX509, Certificates: [][]byte{{1}}}
	noBasic.Capabilities.Credentials = []CredentialType{CredentialX509}
	if err := tr.ValidateLeaf(resign(&noBasic), 7, ctx); !errors.Is(err, ErrCapabilities) {
		t.Errorf("in-use type unsupported: %v", err)
	}
	// An x509 leaf that supports both, in a group whose members list only
	// basic, is refused too (the members cannot handle its type).
	both := noBasic
	both.Capabilities.Credentials = []CredentialType{CredentialBasic, CredentialX509}
	if err := tr.ValidateLeaf(resign(&both), 7, ctx); !errors.Is(err, ErrCapabilities) {
		t.Errorf("new type unsupported by members: %v", err)
	}
	// After removals and adds the index still matches the nodes.
	if err := tr.RemoveLeaf(4); err != nil {
		t.Fatal(err)
	}
	tr.AddLeaf(fresh)
	checkKeyIndex(t, tr)
	c := tr.Clone()
	if err := c.RemoveLeaf(1); err != nil {
		t.Fatal(err)
	}
	checkKeyIndex(t, c)
	checkKeyIndex(t, tr)
}
