package mls

import (
	"bytes"
	"errors"
	"testing"

	"weald/backend/mls/tree"
)

func testConfig() *Config { return &Config{} }

func basic(id string) tree.Credential { return tree.BasicCredential([]byte(id)) }

// agreeAll checks that every group is at the same epoch with the same
// epoch authenticator and exporter output.
func agreeAll(t *testing.T, gs ...*Group) {
	t.Helper()
	a0 := gs[0].EpochAuthenticator()
	e0, err := gs[0].Export("test", []byte("ctx"), 32)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gs[1:] {
		if g.Epoch() != gs[0].Epoch() {
			t.Fatalf("member %d at epoch %d, member 0 at %d", i+1, g.Epoch(), gs[0].Epoch())
		}
		if !bytes.Equal(g.EpochAuthenticator(), a0) {
			t.Fatalf("member %d: epoch authenticator differs at epoch %d", i+1, g.Epoch())
		}
		e, err := g.Export("test", []byte("ctx"), 32)
		if err != nil || !bytes.Equal(e, e0) {
			t.Fatalf("member %d: exporter differs (%v)", i+1, err)
		}
		if !bytes.Equal(g.tree.TreeHash(), gs[0].tree.TreeHash()) {
			t.Fatalf("member %d: tree hash differs", i+1)
		}
	}
}

func mustMerge(t *testing.T, g *Group, sc *StagedCommit) {
	t.Helper()
	if err := g.Merge(sc); err != nil {
		t.Fatal(err)
	}
}

func process(t *testing.T, g *Group, msg []byte) *Received {
	t.Helper()
	r, err := g.Process(msg)
	if err != nil {
		t.Fatalf("process: %v", err)
	}
	if r.Commit != nil {
		mustMerge(t, g, r.Commit)
	}
	return r
}

func addMember(t *testing.T, cfg *Config, by *Group, id string, others ...*Group) *Group {
	t.Helper()
	kp, err := GenerateKeyPackage(cfg, by.CipherSuite(), basic(id))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := by.Commit(CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, by, sc)
	for _, o := range others {
		process(t, o, sc.Message)
	}
	g, used, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		t.Fatalf("join %s: %v", id, err)
	}
	if used != 0 {
		t.Fatalf("used %d", used)
	}
	return g
}

func TestGroupLifecycle(t *testing.T) {
	for _, suiteID := range []uint16{1, 2, 3, 5, 7} {
		cfg := testConfig()
		alice, err := NewGroup(cfg, suiteID, []byte("group"), basic("alice"))
		if err != nil {
			t.Fatal(err)
		}
		bob := addMember(t, cfg, alice, "bob")
		agreeAll(t, alice, bob)
		carol := addMember(t, cfg, bob, "carol", alice)
		agreeAll(t, alice, bob, carol)

		// Application message with authenticated data.
		m, err := alice.Protect([]byte("hello"), []byte("ad"))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*Group{bob, carol} {
			r := process(t, g, m)
			if r.Type != ContentApplication || string(r.Application) != "hello" || string(r.AuthenticatedData) != "ad" {
				t.Fatalf("got %+v", r)
			}
		}
		// A replay is rejected and changes nothing.
		if _, err := bob.Process(m); err == nil {
			t.Fatal("replayed message accepted")
		}

		// Self-update commit, private handshake.
		sc, err := carol.Commit(CommitOptions{ForcePath: true, Private: true})
		if err != nil {
			t.Fatal(err)
		}
		mustMerge(t, carol, sc)
		process(t, alice, sc.Message)
		process(t, bob, sc.Message)
		agreeAll(t, alice, bob, carol)

		// Update proposal by bob, committed by alice.
		up, err := bob.ProposeUpdate(false)
		if err != nil {
			t.Fatal(err)
		}
		process(t, alice, up)
		process(t, carol, up)
		sc, err = alice.Commit(CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mustMerge(t, alice, sc)
		process(t, bob, sc.Message)
		process(t, carol, sc.Message)
		agreeAll(t, alice, bob, carol)

		// External join by dave, then resync.
		gi, err := alice.GroupInfo(true)
		if err != nil {
			t.Fatal(err)
		}
		dave, ext, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{})
		if err != nil {
			t.Fatalf("external join: %v", err)
		}
		for _, g := range []*Group{alice, bob, carol} {
			process(t, g, ext)
		}
		agreeAll(t, alice, bob, carol, dave)
		gi, err = bob.GroupInfo(false)
		if err != nil {
			t.Fatal(err)
		}
		dave2, ext, err := ExternalJoin(cfg, gi, bob.RatchetTree(), basic("dave"), ExternalJoinOptions{Resync: true})
		if err != nil {
			t.Fatalf("resync: %v", err)
		}
		for _, g := range []*Group{alice, bob, carol} {
			process(t, g, ext)
		}
		if _, err := dave.Process(ext); err == nil {
			// dave's old state sees its own removal.
			t.Log("old dave processed its resync")
		}
		agreeAll(t, alice, bob, carol, dave2)

		// Remove bob.
		sc, err = alice.Commit(CommitOptions{Remove: []uint32{bob.OwnLeaf()}})
		if err != nil {
			t.Fatal(err)
		}
		mustMerge(t, alice, sc)
		process(t, carol, sc.Message)
		process(t, dave2, sc.Message)
		r := process(t, bob, sc.Message)
		if !r.Commit.SelfRemoved || bob.Active() {
			t.Fatal("bob does not know he was removed")
		}
		agreeAll(t, alice, carol, dave2)
		if len(alice.Members()) != 3 {
			t.Fatalf("members: %+v", alice.Members())
		}

		// Serialisation round trip.
		b, err := alice.Encode()
		if err != nil {
			t.Fatal(err)
		}
		re, err := LoadGroup(cfg, b)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := re.Encode()
		if !bytes.Equal(b, b2) {
			t.Fatal("reloaded state serialises differently")
		}
		m, _ = carol.Protect([]byte("after reload"), nil)
		if r := process(t, re, m); string(r.Application) != "after reload" {
			t.Fatal("reloaded group cannot read")
		}
		t.Logf("suite %d: epoch %d, state %d bytes for %d members", suiteID, alice.Epoch(), len(b), len(alice.Members()))
	}
}

func TestRejectedCommitLeavesGroupUnchanged(t *testing.T) {
	cfg := testConfig()
	alice, _ := NewGroup(cfg, 1, []byte("g"), basic("alice"))
	bob := addMember(t, cfg, alice, "bob")
	sc, err := alice.Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := bob.Encode()
	for i := range sc.Message {
		bad := append([]byte{}, sc.Message...)
		bad[i] ^= 0x01
		if r, err := bob.Process(bad); err == nil && r.Commit != nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
		if i > 400 {
			break
		}
	}
	after, _ := bob.Encode()
	if !bytes.Equal(before, after) {
		t.Fatal("rejected messages changed the state")
	}
	if _, err := bob.Process(sc.Message); err != nil {
		t.Fatal(err)
	}
	if err := bob.Merge(sc); !errors.Is(err, ErrStaleCommit) {
		t.Fatalf("merging another group's staged commit: %v", err)
	}
}

// A committer that lost its staged commit (a crash after sending it) takes
// the state EncodeNext saved and agrees with the members who processed it.
func TestEncodeNextIsTheMergedState(t *testing.T) {
	cfg := testConfig()
	alice, _ := NewGroup(cfg, 1, []byte("g"), basic("alice"))
	bob := addMember(t, cfg, alice, "bob")
	carol := addMember(t, cfg, alice, "carol", bob)
	sc, err := alice.Commit(CommitOptions{Remove: []uint32{2}})
	if err != nil {
		t.Fatal(err)
	}
	next, err := sc.EncodeNext()
	if err != nil {
		t.Fatal(err)
	}
	process(t, bob, sc.Message)
	process(t, carol, sc.Message)
	re, err := LoadGroup(cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	agreeAll(t, re, bob)
	m, _ := bob.Protect([]byte("after the crash"), nil)
	if r := process(t, re, m); string(r.Application) != "after the crash" {
		t.Fatal("the restored committer cannot read")
	}
}
