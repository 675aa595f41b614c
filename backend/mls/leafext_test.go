package mls

import (
	"bytes"
	"errors"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/tree"
)

const testExt tree.ExtensionType = 0xF0F0

// TestLeafExtensionsAndTheHook: leaf extensions given at key package
// generation and external join are carried in the leaf (listed in its
// capabilities), survive a commit's update path, and reach the
// authentication hook with the group id, marked existing only for leaves
// of a tree received on joining.
func TestLeafExtensionsAndTheHook(t *testing.T) {
	type call struct {
		group    string
		ident    string
		existing bool
	}
	var calls []call
	cfg := testConfig()
	cfg.Credential = func(groupID []byte, l *tree.LeafNode, existing bool) error {
		d, ok := l.Extensions.Find(testExt)
		if !ok || !bytes.Equal(d, append([]byte("bound:"), l.SignatureKey...)) {
			return errors.New("unbound leaf")
		}
		calls = append(calls, call{string(groupID), string(l.Credential.Identity), existing})
		return nil
	}
	bound := func(id string) *KeyPackageBundle {
		priv, pub, err := GenerateSignatureKey(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		kp, err := GenerateKeyPackageWith(cfg, 1, basic(id), KeyPackageOptions{SignatureKey: priv,
			LeafExtensions: tree.Extensions{{Type: testExt, Data: append([]byte("bound:"), pub...)}}})
		if err != nil {
			t.Fatal(err)
		}
		if !kp.KeyPackage.LeafNode.Capabilities.SupportsExtension(testExt) {
			t.Fatal("the leaf extension is not listed in the capabilities")
		}
		return kp
	}
	alice, err := NewGroupFromKeyPackage(cfg, []byte("g"), bound("alice"))
	if err != nil {
		t.Fatal(err)
	}
	// An unbound key package is refused by the committer's hook.
	plain, err := GenerateKeyPackage(cfg, 1, basic("mallory"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Commit(CommitOptions{Add: [][]byte{plain.Message()}}); !errors.Is(err, tree.ErrCredential) {
		t.Fatalf("unbound add: %v", err)
	}
	kp := bound("bob")
	sc, err := alice.Commit(CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	calls = nil
	bob, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || !calls[0].existing || !calls[1].existing || calls[0].group != "g" {
		t.Fatalf("welcome tree: hook calls %+v", calls)
	}
	// A path commit keeps the committer's extensions: the receiver's hook
	// sees the path leaf as entering.
	sc, err = bob.Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, bob, sc)
	calls = nil
	process(t, alice, sc.Message)
	if len(calls) != 1 || calls[0].existing || calls[0].ident != "bob" {
		t.Fatalf("path leaf: hook calls %+v", calls)
	}
	// A path leaf with a new signature key: refused while the extension
	// still binds the old key, accepted with a binding of the new one; the
	// rotated member then signs with the new key.
	npriv, npub, err := GenerateSignatureKey(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc, err = bob.Commit(CommitOptions{SignatureKey: npriv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Process(sc.Message); !errors.Is(err, tree.ErrCredential) {
		t.Fatalf("rotated key with the old binding: %v", err)
	}
	sc, err = bob.Commit(CommitOptions{SignatureKey: npriv,
		LeafExtensions: tree.Extensions{{Type: testExt, Data: append([]byte("bound:"), npub...)}}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, bob, sc)
	process(t, alice, sc.Message)
	if got := leafKey(alice, bob.OwnLeaf()); !bytes.Equal(got, npub) {
		t.Fatalf("bob's key after rotation %x, want %x", got, npub)
	}
	m, err := bob.Protect([]byte("rotated"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := process(t, alice, m); string(r.Application) != "rotated" {
		t.Fatalf("after rotation: %q", r.Application)
	}
	// An external joiner with the extension: the hook sees the tree as
	// existing on the joiner's side and the joiner as entering on the
	// members' side.
	gi, err := alice.GroupInfo(true)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub, err := GenerateSignatureKey(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, msg, err := ExternalJoin(cfg, gi, nil, basic("carol"), ExternalJoinOptions{SignatureKey: priv,
		LeafExtensions: tree.Extensions{{Type: testExt, Data: append([]byte("bound:"), pub...)}}})
	if err != nil {
		t.Fatal(err)
	}
	calls = nil
	process(t, bob, msg)
	if len(calls) != 1 || calls[0].existing || calls[0].ident != "carol" {
		t.Fatalf("external joiner: hook calls %+v", calls)
	}
	// Without the extension the joiner's own tree import passes, and the
	// members refuse the commit.
	_, msg, err = ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Process(msg); !errors.Is(err, tree.ErrCredential) {
		t.Fatalf("unbound external joiner: %v", err)
	}
}

// TestExternalJoinRefusesUnmetNeeds: a group whose required_capabilities
// this client's leaf does not meet is refused before any commit is made,
// with ErrGroupNeeds (issue 11 finding 7: an OpenMLS group requiring x509
// was joined and the commit then rejected by every member).
func TestExternalJoinRefusesUnmetNeeds(t *testing.T) {
	cfg := testConfig()
	ext := tree.Extensions{{Type: testExt, Data: []byte{1}}}
	kp, err := GenerateKeyPackageWith(cfg, 1, basic("alice"), KeyPackageOptions{LeafExtensions: ext})
	if err != nil {
		t.Fatal(err)
	}
	alice, err := NewGroupFromKeyPackage(cfg, []byte("needs"), kp)
	if err != nil {
		t.Fatal(err)
	}
	w := codec.NewWriter(nil)
	rc := tree.RequiredCapabilities{Extensions: []tree.ExtensionType{testExt}}
	rc.Encode(w)
	sc, err := alice.Commit(CommitOptions{Extensions: tree.Extensions{{Type: tree.ExtRequiredCapabilities, Data: w.Bytes()}}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	gi, err := alice.GroupInfo(true)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ExternalJoin(cfg, gi, nil, basic("bob"), ExternalJoinOptions{}); !errors.Is(err, ErrGroupNeeds) || !errors.Is(err, tree.ErrCapabilities) {
		t.Fatalf("joining without the required extension: %v", err)
	}
	// x509 required, as an OpenMLS group does.
	w = codec.NewWriter(nil)
	rc = tree.RequiredCapabilities{Credentials: []tree.CredentialType{tree.CredentialX509}}
	rc.Encode(w)
	if err := checkNeeds(alice, w.Bytes()); !errors.Is(err, ErrGroupNeeds) {
		t.Fatalf("x509 required: %v", err)
	}
	// With the extension the join goes through.
	bob, msg, err := ExternalJoin(cfg, gi, nil, basic("bob"), ExternalJoinOptions{LeafExtensions: ext})
	if err != nil {
		t.Fatal(err)
	}
	process(t, alice, msg)
	agreeAll(t, alice, bob)
}

// checkNeeds runs the joiner's check against g's context with its
// required_capabilities replaced by rc.
func checkNeeds(g *Group, rc []byte) error {
	c := &Group{cfg: g.cfg, cs: g.cs, ctx: g.ctx}
	c.ctx.Extensions = tree.Extensions{{Type: tree.ExtRequiredCapabilities, Data: rc}}
	leaf := *g.tree.Leaf(0)
	return c.meetsNeeds(&leaf)
}
