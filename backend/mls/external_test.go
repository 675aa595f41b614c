package mls

import (
	"bytes"
	"errors"
	"testing"
)

// TestExternalJoinSignatureKey: with ExternalJoinOptions.SignatureKey the
// joiner's new leaf carries exactly that key, data signed under it before
// the commit can travel in the commit's authenticated_data, and every
// member accepts the join.
func TestExternalJoinSignatureKey(t *testing.T) {
	for _, suiteID := range []uint16{1, 2} { // Ed25519, P-256
		cfg := testConfig()
		alice, err := NewGroup(cfg, suiteID, []byte("sigkey"), basic("alice"))
		if err != nil {
			t.Fatal(err)
		}
		bob := addMember(t, cfg, alice, "bob")
		gi, err := alice.GroupInfo(true)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub, err := GenerateSignatureKey(cfg, suiteID)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := SignaturePublicKey(suiteID, priv); err != nil || !bytes.Equal(got, pub) {
			t.Fatalf("suite %d: SignaturePublicKey = %x, %v; want %x", suiteID, got, err, pub)
		}
		ad := append([]byte("binds "), pub...)
		dave, msg, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{SignatureKey: priv, AuthenticatedData: ad})
		if err != nil {
			t.Fatalf("suite %d: external join: %v", suiteID, err)
		}
		if got := leafKey(dave, dave.OwnLeaf()); !bytes.Equal(got, pub) {
			t.Fatalf("suite %d: joiner's leaf key %x, want %x", suiteID, got, pub)
		}
		for _, g := range []*Group{alice, bob} {
			r := process(t, g, msg)
			if !bytes.Equal(r.AuthenticatedData, ad) {
				t.Fatalf("suite %d: authenticated data %q", suiteID, r.AuthenticatedData)
			}
			if got := leafKey(g, dave.OwnLeaf()); !bytes.Equal(got, pub) {
				t.Fatalf("suite %d: receiver sees leaf key %x, want %x", suiteID, got, pub)
			}
		}
		agreeAll(t, alice, bob, dave)
		// The joined member signs with the supplied key: its messages verify.
		m, err := dave.Protect([]byte("hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := process(t, alice, m); string(r.Application) != "hi" {
			t.Fatalf("suite %d: application %q", suiteID, r.Application)
		}
	}
}

func leafKey(g *Group, leaf uint32) []byte {
	for _, m := range g.Members() {
		if m.Index == leaf {
			return m.SignatureKey
		}
	}
	return nil
}

// TestExternalJoinBadSignatureKey: a key of the wrong length (or an
// unpadded short ECDSA scalar) is ErrSignatureKey, and nothing is joined.
func TestExternalJoinBadSignatureKey(t *testing.T) {
	for _, c := range []struct {
		suite uint16
		key   []byte
	}{
		{1, make([]byte, 31)},
		{1, make([]byte, 64)},
		{1, []byte{}},
		{2, bytes.Repeat([]byte{1}, 31)},
		{2, make([]byte, 32)}, // zero scalar
	} {
		cfg := testConfig()
		alice, err := NewGroup(cfg, c.suite, []byte("bad"), basic("alice"))
		if err != nil {
			t.Fatal(err)
		}
		gi, err := alice.GroupInfo(true)
		if err != nil {
			t.Fatal(err)
		}
		g, msg, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{SignatureKey: c.key})
		if !errors.Is(err, ErrSignatureKey) || g != nil || msg != nil {
			t.Fatalf("suite %d, %d-byte key: %v", c.suite, len(c.key), err)
		}
		if _, err := SignaturePublicKey(c.suite, c.key); !errors.Is(err, ErrSignatureKey) {
			t.Fatalf("suite %d, %d-byte key: SignaturePublicKey: %v", c.suite, len(c.key), err)
		}
	}
}

// TestExternalJoinDefaultKeyUnchanged: without SignatureKey the join is
// still a function of the Config's Rand alone (the engine's workaround
// relies on it), and differs from a join with a supplied key.
func TestExternalJoinDefaultKeyUnchanged(t *testing.T) {
	cfg := testConfig()
	alice, err := NewGroup(cfg, 1, []byte("det"), basic("alice"))
	if err != nil {
		t.Fatal(err)
	}
	gi, err := alice.GroupInfo(true)
	if err != nil {
		t.Fatal(err)
	}
	join := func(key []byte) ([]byte, []byte) {
		g, msg, err := ExternalJoin(&Config{Rand: seeded(3)}, gi, nil, basic("dave"), ExternalJoinOptions{SignatureKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return msg, leafKey(g, g.OwnLeaf())
	}
	m1, k1 := join(nil)
	m2, k2 := join(nil)
	if !bytes.Equal(m1, m2) || !bytes.Equal(k1, k2) {
		t.Fatal("same randomness gave different joins")
	}
	priv, pub, err := GenerateSignatureKey(&Config{Rand: seeded(4)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, k3 := join(priv)
	if !bytes.Equal(k3, pub) || bytes.Equal(k3, k1) {
		t.Fatalf("supplied key %x, got %x (default %x)", pub, k3, k1)
	}
}

// TestStagedCommitJoiner: a receiver of an external commit learns the
// joiner (leaf, credential, signature key) before merging; a member's
// commit has no joiner.
func TestStagedCommitJoiner(t *testing.T) {
	for _, resync := range []bool{false, true} {
		cfg, alice, bob, _ := threeMembers(t)
		if resync {
			// dave joins first, then resyncs (his old leaf is removed).
			gi, err := alice.GroupInfo(true)
			if err != nil {
				t.Fatal(err)
			}
			_, msg, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{})
			if err != nil {
				t.Fatal(err)
			}
			process(t, alice, msg) // process merges
			process(t, bob, msg)
		}
		gi, err := alice.GroupInfo(true)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub, err := GenerateSignatureKey(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		dave, msg, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{SignatureKey: priv, Resync: resync})
		if err != nil {
			t.Fatal(err)
		}
		before := len(bob.Members())
		r, err := bob.Process(msg)
		if err != nil {
			t.Fatal(err)
		}
		j, ok := r.Commit.Joiner()
		if !ok || j.Index != dave.OwnLeaf() || !bytes.Equal(j.SignatureKey, pub) || string(j.Credential.Identity) != "dave" {
			t.Fatalf("resync %v: Joiner = %+v, %v; want leaf %d key %x", resync, j, ok, dave.OwnLeaf(), pub)
		}
		if len(bob.Members()) != before {
			t.Fatal("Joiner changed the group before merge")
		}
		j.SignatureKey[0] ^= 1 // the caller's copy is its own
		if j2, _ := r.Commit.Joiner(); !bytes.Equal(j2.SignatureKey, pub) {
			t.Fatal("Joiner returned shared bytes")
		}
		mustMerge(t, bob, r.Commit)
		if got := leafKey(bob, j.Index); !bytes.Equal(got, pub) {
			t.Fatalf("after merge leaf %d has key %x", j.Index, got)
		}
	}

	// A member's commit, received and created: no joiner.
	_, alice, bob, _ := threeMembers(t)
	sc, err := alice.Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sc.Joiner(); ok {
		t.Fatal("a created member commit reports a joiner")
	}
	r, err := bob.Process(sc.Message)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Commit.Joiner(); ok {
		t.Fatal("a received member commit reports a joiner")
	}
	var none *StagedCommit
	if _, ok := none.Joiner(); ok {
		t.Fatal("nil staged commit reports a joiner")
	}
}
