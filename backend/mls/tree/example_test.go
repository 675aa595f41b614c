package tree_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"

	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// adapter binds backend/mls/suite to tree.Suite with a randomness source,
// as the group package does.
type adapter struct {
	s    *suite.Suite
	rand io.Reader
}

func (a adapter) ID() uint16                                      { return uint16(a.s.ID()) }
func (a adapter) SecretSize() int                                 { return a.s.Nh() }
func (a adapter) Hash(b []byte) []byte                            { return a.s.Hash(b) }
func (a adapter) RefHash(l string, v []byte) []byte               { return a.s.RefHash(l, v) }
func (a adapter) DeriveSecret(s []byte, l string) ([]byte, error) { return a.s.DeriveSecret(s, l), nil }
func (a adapter) DeriveKeyPair(ikm []byte) ([]byte, []byte, error) {
	kp, err := a.s.DeriveKeyPair(ikm)
	return kp.Private, kp.Public, err
}
func (a adapter) SignWithLabel(priv []byte, l string, c []byte) ([]byte, error) {
	k, err := a.s.ParseSigningKey(priv)
	if err != nil {
		return nil, err
	}
	return a.s.SignWithLabel(a.rand, k, l, c)
}
func (a adapter) VerifyWithLabel(pub []byte, l string, c, sig []byte) bool {
	return a.s.VerifyWithLabel(pub, l, c, sig) == nil
}
func (a adapter) EncryptWithLabel(pub []byte, l string, ctx, pt []byte) ([]byte, []byte, error) {
	return a.s.EncryptWithLabel(a.rand, pub, l, ctx, pt)
}
func (a adapter) DecryptWithLabel(priv []byte, l string, ctx, kem, ct []byte) ([]byte, error) {
	return a.s.DecryptWithLabel(priv, l, ctx, kem, ct)
}

// member makes a key_package leaf with fresh keys.
func member(s adapter, name string) (leaf *tree.LeafNode, encPriv, sigPriv []byte) {
	kp, _ := s.s.GenerateKeyPair(s.rand)
	sk, _ := s.s.GenerateSigningKey(s.rand)
	leaf = &tree.LeafNode{
		EncryptionKey: kp.Public, SignatureKey: sk.Public(),
		Credential: tree.BasicCredential([]byte(name)),
		Capabilities: tree.Capabilities{Versions: []uint16{1}, CipherSuites: []uint16{1},
			Credentials: []tree.CredentialType{tree.CredentialBasic}},
		Source: tree.SourceKeyPackage, Lifetime: tree.Lifetime{NotAfter: 1 << 40},
	}
	_ = leaf.Sign(s, sk.Bytes(), nil, 0)
	return leaf, kp.Private, sk.Bytes()
}

// Alice creates a tree, adds Bob and Carol and commits a path that
// excludes them; Bob and Carol take the tree and their path secret (as a
// Welcome carries them); then Bob commits and Alice processes his path.
func Example() {
	s0, _ := suite.ByID(1)
	s := adapter{s: s0, rand: rand.Reader}
	groupID := []byte("example group")
	gc := func(epoch uint64) tree.GroupContextFunc {
		return func(treeHash []byte) ([]byte, error) {
			w := codec.NewWriter(nil)
			w.U16(1)
			w.U16(1)
			w.Opaque(groupID)
			w.U64(epoch)
			w.Opaque(treeHash)
			w.Opaque(nil)
			tree.Extensions{}.Encode(w)
			return w.Bytes(), nil
		}
	}

	aLeaf, aEnc, aSig := member(s, "alice")
	alice := tree.New(s, aLeaf)
	aPriv := tree.NewPrivateState(0, aEnc, aSig)
	bLeaf, bEnc, bSig := member(s, "bob")
	cLeaf, _, _ := member(s, "carol")
	b := alice.AddLeaf(bLeaf)
	c := alice.AddLeaf(cLeaf)
	_, secrets, err := alice.CreateUpdatePath(&tree.PathOptions{
		Rand: s.rand, GroupID: groupID, Leaf: aLeaf, SignatureKey: aSig,
		Excluded: []tm.LeafIndex{b, c}, GroupContext: gc(1), PrivateBefore: aPriv,
	})
	if err != nil {
		panic(err)
	}

	// Bob joins: ratchet_tree extension plus path secret.
	bob, err := tree.Import(s, alice.RatchetTreeBytes(), &tree.ImportOptions{GroupID: groupID, TreeHash: alice.TreeHash()})
	if err != nil {
		panic(err)
	}
	bPriv := tree.NewPrivateState(b, bEnc, bSig)
	node, ps, _ := secrets.For(b)
	if err := bPriv.ImportPathSecret(bob, node, ps); err != nil {
		panic(err)
	}

	// Bob commits; Alice processes it.
	staged := bob.Clone()
	up, bobSecrets, err := staged.CreateUpdatePath(&tree.PathOptions{
		Rand: s.rand, GroupID: groupID, Leaf: bob.Leaf(b), SignatureKey: bSig, GroupContext: gc(2), PrivateBefore: bPriv,
	})
	if err != nil {
		panic(err)
	}
	res, err := alice.ApplyUpdatePath(up, &tree.ApplyOptions{
		Sender: b, Leaf: &tree.LeafContext{Suite: s, GroupID: groupID}, GroupContext: gc(2), Private: aPriv,
	})
	if err != nil {
		panic(err)
	}
	n := 0
	alice.Members(func(tm.LeafIndex, *tree.LeafNode) { n++ })
	fmt.Println("members:", n, "of", alice.NumLeaves(), "leaves")
	fmt.Println("same commit secret:", bytes.Equal(res.CommitSecret, bobSecrets.CommitSecret))
	fmt.Println("same tree:", bytes.Equal(alice.TreeHash(), staged.TreeHash()))
	// Output:
	// members: 3 of 4 leaves
	// same commit secret: true
	// same tree: true
}
