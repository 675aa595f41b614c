package tree

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"weald/backend/mls/internal/mlstest"
	tm "weald/backend/mls/treemath"
)

// simTree returns a 5-member suite-1 group's tree after a commit with path
// from leaf 0 and one from leaf 3, with one unmerged leaf added after.
func simTree(t *testing.T) (*testSuite, *Tree) {
	t.Helper()
	s := newTestSuite(t, 1)
	s.rand = seeded(3)
	next := 0
	name := func() string { next++; return fmt.Sprintf("v%d", next) }
	l0, enc, sig := newLeaf(t, s, name())
	members := map[tm.LeafIndex]*member{0: {priv: NewPrivateState(0, enc, sig), tree: New(s, l0), tmpl: *l0}}
	commit(t, s, members, 0, nil, 4, 1, name)
	commit(t, s, members, 3, nil, 0, 2, name)
	tr := members[3].tree.Clone()
	l, _, _ := newLeaf(t, s, name())
	tr.AddLeaf(l) // unmerged at the parents above leaf 5
	return s, tr
}

func TestImportRejects(t *testing.T) {
	s, good := simTree(t)
	opts := func() *ImportOptions { return &ImportOptions{GroupID: simGroupID, TreeHash: nil} }
	if err := good.Validate(opts()); err != nil {
		t.Fatalf("good tree: %v", err)
	}
	// Each mutation gets a fresh clone; nodes are replaced, never edited.
	cases := []struct {
		name string
		want error
		mut  func(tr *Tree)
	}{
		{"leaf signature", ErrBadSignature, func(tr *Tree) {
			l := *tr.leafAt(int(1))
			l.Signature = bytes.Clone(l.Signature)
			l.Signature[0] ^= 1
			tr.setLeaf(1, &l)
		}},
		{"duplicate encryption key", ErrDuplicateKey, func(tr *Tree) {
			l := *tr.leafAt(int(1))
			l.EncryptionKey = tr.leafAt(int(2)).EncryptionKey
			tr.setLeaf(1, &l)
		}},
		{"duplicate signature key", ErrDuplicateKey, func(tr *Tree) {
			l := *tr.leafAt(int(4))
			l.SignatureKey = tr.leafAt(int(2)).SignatureKey
			tr.setLeaf(4, &l)
		}},
		{"parent key", ErrParentHash, func(tr *Tree) {
			p := *tr.parentAtK(int(tr.Root() >> 1))
			p.EncryptionKey = bytes.Clone(p.EncryptionKey)
			p.EncryptionKey[0] ^= 1
			tr.setParent(tr.Root(), &p)
		}},
		{"unmerged unsorted", ErrUnmergedLeaves, func(tr *Tree) {
			p := *tr.parentAtK(int(tr.Root() >> 1))
			p.UnmergedLeaves = []tm.LeafIndex{5, 1}
			tr.setParent(tr.Root(), &p)
		}},
		{"unmerged blank", ErrUnmergedLeaves, func(tr *Tree) {
			p := *tr.parentAtK(int(tr.Root() >> 1))
			p.UnmergedLeaves = append(p.UnmergedLeaves, 7)
			tr.setParent(tr.Root(), &p)
		}},
		{"unmerged dropped", ErrParentHash, func(tr *Tree) {
			p := *tr.parentAtK(int(tr.Root() >> 1))
			p.UnmergedLeaves = nil
			tr.setParent(tr.Root(), &p)
		}},
		{"blank parent", ErrParentHash, func(tr *Tree) {
			// Blanking leaf 3's parent breaks the chain of its path (a
			// blank root would not: nothing above it needs a chain).
			tr.setParent(5, nil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := good.Clone()
			c.mut(tr)
			if err := tr.Validate(opts()); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
			// The import path agrees.
			if _, err := Import(s, tr.RatchetTreeBytes(), opts()); err == nil {
				t.Errorf("%s: import accepted", c.name)
			}
		})
	}
	reject := errors.New("not on the roster")
	o := opts()
	o.Credential = func(_ []byte, l *LeafNode, existing bool) error {
		if !existing {
			t.Error("a leaf of an imported tree is judged as entering")
		}
		if string(l.Credential.Identity) == "v3" {
			return reject
		}
		return nil
	}
	if err := good.Validate(o); !errors.Is(err, ErrCredential) || !errors.Is(err, reject) {
		t.Errorf("credential callback: %v", err)
	}
	o = opts()
	o.Required = &RequiredCapabilities{Extensions: []ExtensionType{0x0f0f}}
	if err := good.Validate(o); !errors.Is(err, ErrCapabilities) {
		t.Errorf("required capabilities: %v", err)
	}
	o = opts()
	o.TreeHash = bytes.Repeat([]byte{1}, 32)
	if err := good.Validate(o); !errors.Is(err, ErrTreeHash) {
		t.Errorf("tree hash: %v", err)
	}
	// Shape errors in the encoding.
	for name, b := range map[string][]byte{
		"empty":          {0x00},
		"only blank":     {0x01, 0x00},
		"leaf as parent": {0x02, 0x01, 0x02},
	} {
		if _, err := Import(s, b, opts()); err == nil {
			t.Errorf("shape %s: accepted", name)
		}
	}
	enc := good.RatchetTreeBytes()
	withBlank := append([]byte{}, enc...)
	if _, err := Import(s, withBlank[:len(withBlank)-1], opts()); err == nil {
		t.Error("truncated tree accepted")
	}
}

func TestKeyPackage(t *testing.T) {
	s := newTestSuite(t, 1)
	l, _, sig := newLeaf(t, s, "alice")
	initKP, err := s.s.GenerateKeyPair(s.rand)
	if err != nil {
		t.Fatal(err)
	}
	kp := &KeyPackage{Version: 1, CipherSuite: 1, InitKey: initKP.Public, LeafNode: *l,
		Extensions: Extensions{{Type: ExtLastResort, Data: []byte{}}}}
	if err := kp.Sign(s, sig); err != nil {
		t.Fatal(err)
	}
	ctx := &LeafContext{Suite: s, Now: 1000}
	if err := kp.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if !kp.IsLastResort() {
		t.Fatal("last_resort not seen")
	}
	d, err := DecodeKeyPackage(kp.Bytes())
	if err != nil || !bytes.Equal(d.Ref(s), kp.Ref(s)) || len(kp.Ref(s)) != 32 {
		t.Fatalf("round trip / ref: %v", err)
	}
	if err := d.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	bad := *kp
	bad.CipherSuite = 2
	if err := bad.Validate(ctx); !errors.Is(err, ErrVersionOrSuite) {
		t.Errorf("suite mismatch: %v", err)
	}
	bad = *kp
	bad.Signature = bytes.Clone(kp.Signature)
	bad.Signature[1] ^= 1
	if err := bad.Validate(ctx); !errors.Is(err, ErrBadSignature) {
		t.Errorf("bad signature: %v", err)
	}
	bad = *kp
	bad.InitKey = kp.LeafNode.EncryptionKey
	if err := bad.Sign(s, sig); err != nil {
		t.Fatal(err)
	}
	if err := bad.Validate(ctx); !errors.Is(err, ErrKeyPackage) {
		t.Errorf("init key = encryption key: %v", err)
	}
	if err := kp.Validate(&LeafContext{Suite: s, Now: 1 << 41}); !errors.Is(err, ErrLifetime) {
		t.Errorf("expired: %v", err)
	}
	// A leaf extension not listed in the capabilities is refused.
	l2 := *l
	l2.Extensions = Extensions{{Type: 0x0f0f, Data: []byte{1}}}
	if err := l2.Sign(s, sig, nil, 0); err != nil {
		t.Fatal(err)
	}
	if err := l2.Validate(&LeafContext{Suite: s}); !errors.Is(err, ErrExtensionSupported) {
		t.Errorf("unlisted extension: %v", err)
	}
}

// TestMessagesVectors decodes the key packages and ratchet trees of
// messages.json and re-encodes them byte for byte; key package signatures
// verify.
func TestMessagesVectors(t *testing.T) {
	var cases []struct {
		KeyPackage  mlstest.HexBytes `json:"mls_key_package"`
		RatchetTree mlstest.HexBytes `json:"ratchet_tree"`
	}
	mlstest.Load(t, "messages.json", &cases)
	ran := 0
	for i, c := range cases {
		t.Run(mlstest.Case(i), func(t *testing.T) {
			// MLSMessage: version, wire_format = mls_key_package (5), KeyPackage.
			b := c.KeyPackage
			if len(b) < 4 || b[0] != 0 || b[1] != 1 || b[2] != 0 || b[3] != 5 {
				t.Fatalf("case %d: not an mls_key_package message", i)
			}
			kp, err := DecodeKeyPackage(b[4:])
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !bytes.Equal(kp.Bytes(), b[4:]) {
				t.Fatalf("case %d: key package does not re-encode", i)
			}
			if mlstest.SuiteSupported(kp.CipherSuite) {
				s := newTestSuite(t, kp.CipherSuite)
				if err := kp.Validate(&LeafContext{Suite: s}); err != nil {
					t.Fatalf("case %d: key package: %v", i, err)
				}
			}
			tr, err := DecodeRatchetTree(newTestSuite(t, 1), c.RatchetTree)
			if err != nil {
				t.Fatalf("case %d: ratchet tree: %v", i, err)
			}
			if !bytes.Equal(tr.RatchetTreeBytes(), c.RatchetTree) {
				t.Fatalf("case %d: ratchet tree does not re-encode", i)
			}
			ran++
		})
	}
	t.Logf("messages.json (key packages, ratchet trees): %d cases ran, 0 n/a", ran)
}

// TestOutOfRangeIndices: public accessors answer for indices outside the
// tree instead of panicking.
func TestOutOfRangeIndices(t *testing.T) {
	_, tr := simTree(t)
	far := tm.NodeIndex(tr.Width() + 10)
	if tr.Resolution(nil, far) != nil || tr.NodeHash(far) != nil || tr.EncryptionKey(far) != nil ||
		!tr.IsBlank(far) || tr.ParentAt(far) != nil || tr.Leaf(tm.LeafIndex(tr.NumLeaves())) != nil {
		t.Fatal("out-of-range node reported as present")
	}
	if len(tr.FilteredDirectPath(nil, tm.LeafIndex(tr.NumLeaves()+3))) != 0 {
		t.Fatal("filtered direct path of a leaf outside the tree")
	}
	if err := tr.UpdateLeaf(tm.LeafIndex(tr.NumLeaves()), tr.Leaf(0)); !errors.Is(err, ErrLeafIndex) {
		t.Fatalf("update outside: %v", err)
	}
	if err := tr.RemoveLeaf(tm.LeafIndex(tr.NumLeaves() + 1)); !errors.Is(err, ErrLeafIndex) {
		t.Fatalf("remove outside: %v", err)
	}
	if _, err := tr.ApplyUpdatePath(&UpdatePath{}, &ApplyOptions{Sender: tm.LeafIndex(tr.NumLeaves())}); !errors.Is(err, ErrLeafIndex) {
		t.Fatalf("apply from outside: %v", err)
	}
}
