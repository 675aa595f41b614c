package mls

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
)

// threeMembers returns alice, bob and carol in one group.
func threeMembers(t *testing.T) (*Config, *Group, *Group, *Group) {
	t.Helper()
	cfg := testConfig()
	alice, err := NewGroup(cfg, 1, []byte("v"), basic("alice"))
	if err != nil {
		t.Fatal(err)
	}
	bob := addMember(t, cfg, alice, "bob")
	carol := addMember(t, cfg, alice, "carol", bob)
	return cfg, alice, bob, carol
}

func stateOf(t *testing.T, g *Group) []byte {
	t.Helper()
	b, err := g.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExternalCommitRules checks each rule of RFC 9420 §12.4.3.2 on the
// receiving side: the tampered commit is rejected and the group unchanged.
func TestExternalCommitRules(t *testing.T) {
	cfg, alice, bob, _ := threeMembers(t)
	gi, err := alice.GroupInfo(true)
	if err != nil {
		t.Fatal(err)
	}
	extInit := func(c *proposal.Commit) proposal.OrRef {
		for _, o := range c.Proposals {
			if o.Proposal != nil && o.Proposal.Type == proposal.TypeExternalInit {
				return o
			}
		}
		t.Fatal("no external init")
		return proposal.OrRef{}
	}
	remove := func(leaf uint32) proposal.OrRef {
		return proposal.OrRef{Type: proposal.OrRefProposal, Proposal: &proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: leaf}}}
	}
	kp, err := GenerateKeyPackage(cfg, 1, basic("erin"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		tamper func(*proposal.Commit)
		want   error
	}{
		{"two external inits", func(c *proposal.Commit) { c.Proposals = append(c.Proposals, extInit(c)) }, ErrExternalCommit},
		{"no external init", func(c *proposal.Commit) { c.Proposals = nil }, ErrExternalCommit},
		{"remove of another identity", func(c *proposal.Commit) { c.Proposals = append(c.Proposals, remove(bob.OwnLeaf())) }, ErrExternalCommit},
		{"add proposal", func(c *proposal.Commit) {
			c.Proposals = append(c.Proposals, proposal.OrRef{Type: proposal.OrRefProposal, Proposal: &proposal.Proposal{Type: proposal.TypeAdd, Add: &proposal.Add{KeyPackage: *kp.KeyPackage}}})
		}, ErrExternalCommit},
		{"proposal by reference", func(c *proposal.Commit) {
			c.Proposals = append(c.Proposals, proposal.OrRef{Type: proposal.OrRefReference, Reference: make([]byte, 32)})
		}, ErrExternalCommit},
		{"no path", func(c *proposal.Commit) { c.Path = nil }, ErrExternalCommit},
	}
	for _, tc := range cases {
		_, msg, err := externalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{}, tc.tamper)
		if err != nil {
			t.Fatalf("%s: building: %v", tc.name, err)
		}
		before := stateOf(t, alice)
		_, err = alice.Process(msg)
		if !errors.Is(err, tc.want) {
			t.Fatalf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		if !bytes.Equal(before, stateOf(t, alice)) {
			t.Fatalf("%s: the rejected commit changed the group", tc.name)
		}
	}
	// Resync with two removes of our own identity's leaves is also refused:
	// make dave a member twice is impossible (duplicate keys), so use one
	// remove of dave's real old leaf plus one of bob's.
	dave, msg, err := ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	process(t, alice, msg)
	process(t, bob, msg)
	gi, _ = alice.GroupInfo(true)
	_, msg, err = externalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{Resync: true}, func(c *proposal.Commit) {
		c.Proposals = append(c.Proposals, remove(bob.OwnLeaf()))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Process(msg); !errors.Is(err, ErrExternalCommit) {
		t.Fatalf("two removes: got %v", err)
	}
	// The honest resync goes through and dave's old leaf is gone.
	_, msg, err = ExternalJoin(cfg, gi, nil, basic("dave"), ExternalJoinOptions{Resync: true})
	if err != nil {
		t.Fatal(err)
	}
	r := process(t, alice, msg)
	if len(r.Commit.Removed) != 1 || r.Commit.Removed[0] != dave.OwnLeaf() {
		t.Fatalf("resync removed %v, want [%d]", r.Commit.Removed, dave.OwnLeaf())
	}
}

// TestProposalListRules checks §12.2 rules on commits a member creates
// (the same validation runs on receipt).
func TestProposalListRules(t *testing.T) {
	cfg, alice, bob, carol := threeMembers(t)
	kpBob := func() []byte {
		// A key package reusing bob's signature key is a duplicate.
		kp, err := GenerateKeyPackage(cfg, 1, basic("bob2"))
		if err != nil {
			t.Fatal(err)
		}
		kp.KeyPackage.LeafNode.SignatureKey = bob.tree.Leaf(bob.priv.Leaf).SignatureKey
		return kp.KeyPackage.Bytes()
	}
	cases := []struct {
		name string
		opts CommitOptions
	}{
		{"remove the committer", CommitOptions{Remove: []uint32{alice.OwnLeaf()}}},
		{"remove twice", CommitOptions{Remove: []uint32{bob.OwnLeaf(), bob.OwnLeaf()}}},
		{"remove a blank leaf", CommitOptions{Remove: []uint32{7}}},
		{"add with a bad signature", CommitOptions{Add: [][]byte{kpBob()}}},
		{"reinit with others", CommitOptions{Remove: []uint32{carol.OwnLeaf()}, Proposals: []*proposal.Proposal{{Type: proposal.TypeReInit, ReInit: &proposal.ReInit{GroupID: []byte("n"), Version: 1, CipherSuite: 1}}}}},
		{"external init in a member commit", CommitOptions{Proposals: []*proposal.Proposal{{Type: proposal.TypeExternalInit, ExternalInit: &proposal.ExternalInit{KEMOutput: make([]byte, 32)}}}}},
		{"unknown external psk", CommitOptions{PSKs: []proposal.PreSharedKeyID{{Type: proposal.PSKExternal, PSKID: []byte("x"), Nonce: make([]byte, 32)}}}},
	}
	for _, tc := range cases {
		before := stateOf(t, alice)
		if _, err := alice.Commit(tc.opts); err == nil {
			t.Fatalf("%s: accepted", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(before, stateOf(t, alice)) {
			t.Fatalf("%s: a refused commit changed the group", tc.name)
		}
	}
	// An Update from bob cannot be committed by bob himself by value.
	if _, err := bob.Commit(CommitOptions{Proposals: []*proposal.Proposal{{Type: proposal.TypeUpdate, Update: &proposal.Update{LeafNode: *bob.tree.Leaf(bob.priv.Leaf)}}}}); !errors.Is(err, ErrInvalidProposal) {
		t.Fatalf("committer's own update by value: %v", err)
	}
	// A resumption PSK of the current epoch (known to all three) is accepted.
	sc, err := alice.Commit(CommitOptions{PSKs: []proposal.PreSharedKeyID{{Type: proposal.PSKResumption, Usage: proposal.UsageApplication, PSKGroupID: alice.GroupID(), PSKEpoch: alice.Epoch(), Nonce: make([]byte, 32)}}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, bob, sc.Message)
	process(t, carol, sc.Message)
	agreeAll(t, alice, bob, carol)
}

// TestInvalidCachedProposalIsLeftOut: a cached proposal that conflicts with
// the committer's own is not committed (RFC 9420 §12.2), and the others
// still process the commit.
func TestInvalidCachedProposalIsLeftOut(t *testing.T) {
	_, alice, bob, carol := threeMembers(t)
	prop, err := bob.Propose(&proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: carol.OwnLeaf()}}, false)
	if err != nil {
		t.Fatal(err)
	}
	process(t, alice, prop)
	process(t, carol, prop)
	sc, err := alice.Commit(CommitOptions{Remove: []uint32{carol.OwnLeaf()}})
	if err != nil {
		t.Fatalf("commit with a conflicting cached proposal: %v", err)
	}
	mustMerge(t, alice, sc)
	if r := process(t, bob, sc.Message); len(r.Commit.Removed) != 1 {
		t.Fatalf("removed %v", r.Commit.Removed)
	}
	if r := process(t, carol, sc.Message); !r.Commit.SelfRemoved {
		t.Fatal("carol not removed")
	}
	agreeAll(t, alice, bob)
}

// TestReInitSuspendsGroup: after a ReInit commit (RFC 9420 §11.2) nobody
// sends in the old group any more, also after a reload.
func TestReInitSuspendsGroup(t *testing.T) {
	cfg, alice, bob, _ := threeMembers(t)
	ri := &proposal.ReInit{GroupID: []byte("next"), Version: 1, CipherSuite: 1}
	sc, err := alice.Commit(CommitOptions{Proposals: []*proposal.Proposal{{Type: proposal.TypeReInit, ReInit: ri}}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	r := process(t, bob, sc.Message)
	if r.Commit.ReInit == nil || bob.ReInit() == nil {
		t.Fatal("reinit not reported")
	}
	if _, err := bob.Protect([]byte("x"), nil); !errors.Is(err, ErrReInit) {
		t.Fatalf("send after reinit: %v", err)
	}
	st, _ := alice.Encode()
	re, err := LoadGroup(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := re.Commit(CommitOptions{}); !errors.Is(err, ErrReInit) {
		t.Fatalf("commit after reinit and reload: %v", err)
	}
}

// TestGroupContextExtensionsAndPSKs: a GroupContextExtensions proposal
// reaches every member's GroupContext; an extension a member does not
// support is refused; an external PSK injected with an Add reaches the
// joiner through GroupSecrets and cfg.PSKs.
func TestGroupContextExtensionsAndPSKs(t *testing.T) {
	psk := map[string][]byte{"team psk": []byte("secret psk value")}
	cfg := &Config{PSKs: func(id []byte) ([]byte, bool) { s, ok := psk[string(id)]; return s, ok }}
	alice, err := NewGroup(cfg, 1, []byte("gce"), basic("alice"))
	if err != nil {
		t.Fatal(err)
	}
	bob := addMember(t, cfg, alice, "bob")
	exts := tree.Extensions{{Type: tree.ExtApplicationID, Data: []byte{3, 'a', 'p', 'p'}}}
	sc, err := alice.Commit(CommitOptions{Extensions: exts})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, bob, sc.Message)
	if got := bob.GroupContext().Extensions; len(got) != 1 || got[0].Type != tree.ExtApplicationID {
		t.Fatalf("bob's extensions: %+v", got)
	}
	agreeAll(t, alice, bob)
	if _, err := alice.Commit(CommitOptions{Extensions: tree.Extensions{{Type: 0xff00, Data: []byte{}}}}); !errors.Is(err, ErrInvalidProposal) {
		t.Fatalf("unsupported extension: %v", err)
	}
	kp, err := GenerateKeyPackage(cfg, 1, basic("carol"))
	if err != nil {
		t.Fatal(err)
	}
	id := proposal.PreSharedKeyID{Type: proposal.PSKExternal, PSKID: []byte("team psk"), Nonce: bytes.Repeat([]byte{7}, 32)}
	sc, err = alice.Commit(CommitOptions{Add: [][]byte{kp.Message()}, PSKs: []proposal.PreSharedKeyID{id}, RatchetTreeInWelcome: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, bob, sc.Message)
	carol, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	agreeAll(t, alice, bob, carol)
	if _, _, err := JoinWelcome(&Config{}, sc.Welcome, []*KeyPackageBundle{kp}, nil); !errors.Is(err, ErrPSK) {
		t.Fatalf("joining without the psk: %v", err)
	}
}

// TestInjectedRandomness: with the same seeded reader, group creation and a
// commit come out byte for byte the same (suite 1: Ed25519 signatures are
// deterministic, every other random value comes from cfg.Rand).
func TestInjectedRandomness(t *testing.T) {
	run := func() ([]byte, []byte) {
		cfg := &Config{Rand: seeded(9)}
		g, err := NewGroup(cfg, 1, []byte("det"), basic("alice"))
		if err != nil {
			t.Fatal(err)
		}
		kp, err := GenerateKeyPackage(cfg, 1, basic("bob"))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := g.Commit(CommitOptions{Add: [][]byte{kp.Message()}, ForcePath: true})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Message, sc.Welcome
	}
	m1, w1 := run()
	m2, w2 := run()
	if !bytes.Equal(m1, m2) || !bytes.Equal(w1, w2) {
		t.Fatal("same randomness gave different messages")
	}
}

// TestKeyPackageLifetime: with a clock, an Add of an expired (or not yet
// valid) key package is refused (RFC 9420 §10.1, §7.3).
func TestKeyPackageLifetime(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cfg := &Config{Now: func() time.Time { return now }}
	alice, err := NewGroup(cfg, 1, []byte("life"), basic("alice"))
	if err != nil {
		t.Fatal(err)
	}
	old := &Config{Now: func() time.Time { return now.Add(-100 * 24 * time.Hour) }}
	expired, err := GenerateKeyPackage(old, 1, basic("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Commit(CommitOptions{Add: [][]byte{expired.Message()}}); !errors.Is(err, ErrInvalidProposal) || !errors.Is(err, tree.ErrLifetime) {
		t.Fatalf("expired key package: %v", err)
	}
	future := &Config{Now: func() time.Time { return now.Add(2 * time.Hour) }}
	early, err := GenerateKeyPackage(future, 1, basic("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Commit(CommitOptions{Add: [][]byte{early.Message()}}); !errors.Is(err, tree.ErrLifetime) {
		t.Fatalf("not yet valid key package: %v", err)
	}
	fresh, err := GenerateKeyPackage(cfg, 1, basic("bob"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Commit(CommitOptions{Add: [][]byte{fresh.Message()}}); err != nil {
		t.Fatalf("fresh key package: %v", err)
	}
}

// TestLateApplicationMessage: an application message of the previous epoch
// delivered after the commit is still read, once; two epochs back it is
// refused; handshake messages of the previous epoch are refused.
func TestLateApplicationMessage(t *testing.T) {
	cfg, alice, bob, carol := threeMembers(t)
	late, err := bob.Protect([]byte("sent before the commit"), []byte("ad"))
	if err != nil {
		t.Fatal(err)
	}
	oldProp, err := bob.ProposeUpdate(true)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := alice.Commit(CommitOptions{Remove: []uint32{bob.OwnLeaf()}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, carol, sc.Message)
	// Reload carol in between: the past epoch survives serialisation.
	st, _ := carol.Encode()
	carol, err = LoadGroup(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	r, err := carol.Process(late)
	if err != nil {
		t.Fatalf("late message: %v", err)
	}
	if !r.PastEpoch || string(r.Application) != "sent before the commit" || string(r.AuthenticatedData) != "ad" || r.Sender != bob.OwnLeaf() {
		t.Fatalf("late message: %+v", r)
	}
	if _, err := carol.Process(late); err == nil {
		t.Fatal("late message accepted twice")
	}
	if _, err := carol.Process(oldProp); !errors.Is(err, ErrWrongEpoch) {
		t.Fatalf("past-epoch proposal: %v", err)
	}
	// Two epochs later it is gone.
	late2, _ := alice.Protect([]byte("epoch before"), nil)
	sc, err = alice.Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, carol, sc.Message)
	sc, err = alice.Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, carol, sc.Message)
	if _, err := carol.Process(late2); !errors.Is(err, ErrWrongEpoch) {
		t.Fatalf("message two epochs old: %v", err)
	}
}

// TestParallelPathEncryption: with ParallelEncryption (and crypto/rand) a
// commit into a sparse tree is processed by every member as usual.
func TestParallelPathEncryption(t *testing.T) {
	cfg := &Config{ParallelEncryption: 4}
	alice, err := NewGroup(cfg, 1, []byte("par"), basic("alice"))
	if err != nil {
		t.Fatal(err)
	}
	var kps []*KeyPackageBundle
	var add [][]byte
	for i := 0; i < 12; i++ {
		kp, err := GenerateKeyPackage(cfg, 1, basic(string(rune('a'+i))+"-member"))
		if err != nil {
			t.Fatal(err)
		}
		kps, add = append(kps, kp), append(add, kp.Message())
	}
	sc, err := alice.Commit(CommitOptions{Add: add, RatchetTreeInWelcome: true, ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	members := []*Group{alice}
	for _, kp := range kps {
		g, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, g)
	}
	sc, err = members[5].Commit(CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, members[5], sc)
	for i, g := range members {
		if i != 5 {
			process(t, g, sc.Message)
		}
	}
	agreeAll(t, members...)
}

// signedExternal frames a proposal from a non-member (RFC 9420 §12.1.8):
// sender external (index into external_senders) or new_member_proposal.
func signedExternal(t *testing.T, g *Group, s framing.Sender, key []byte, p *proposal.Proposal) []byte {
	t.Helper()
	sk, err := g.cs.s.ParseSigningKey(key)
	if err != nil {
		t.Fatal(err)
	}
	content := framing.FramedContent{GroupID: g.ctx.GroupID, Epoch: g.ctx.Epoch, Sender: s,
		AuthenticatedData: []byte{}, ContentType: framing.ContentProposal, Proposal: p}
	ac, err := framing.Sign(g.cs.s, g.cs.rand, sk, framing.WireFormatPublicMessage, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := framing.NewPublicMessage(g.cs.s, ac, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return (&framing.MLSMessage{WireFormat: framing.WireFormatPublicMessage, Public: pm}).Bytes()
}

// TestExternalProposals: a Remove from an external sender listed in
// external_senders, and a new member's own Add, are accepted and committed
// by reference; an Update from an external sender and a signature by the
// wrong key are refused.
func TestExternalProposals(t *testing.T) {
	cfg, alice, bob, carol := threeMembers(t)
	server, err := alice.cs.s.GenerateSigningKey(alice.cs.rand)
	if err != nil {
		t.Fatal(err)
	}
	w := codec.NewWriter(nil)
	w.Vector(func(w *codec.Writer) {
		w.Opaque(server.Public())
		cred := basic("delivery service")
		cred.Encode(w)
	})
	sc, err := alice.Commit(CommitOptions{Extensions: tree.Extensions{{Type: tree.ExtExternalSenders, Data: w.Bytes()}}})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, alice, sc)
	process(t, bob, sc.Message)
	process(t, carol, sc.Message)

	ext := framing.Sender{Type: framing.SenderExternal, Index: 0}
	rm := signedExternal(t, alice, ext, server.Bytes(), &proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: carol.OwnLeaf()}})
	kp, err := GenerateKeyPackage(cfg, 1, basic("dave"))
	if err != nil {
		t.Fatal(err)
	}
	add := signedExternal(t, alice, framing.Sender{Type: framing.SenderNewMemberProposal}, kp.SignatureKey,
		&proposal.Proposal{Type: proposal.TypeAdd, Add: &proposal.Add{KeyPackage: *kp.KeyPackage}})
	badUpdate := signedExternal(t, alice, ext, server.Bytes(), &proposal.Proposal{Type: proposal.TypeUpdate, Update: &proposal.Update{LeafNode: *alice.tree.Leaf(0)}})
	wrongKey := signedExternal(t, alice, ext, kp.SignatureKey, &proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: bob.OwnLeaf()}})
	for name, m := range map[string][]byte{"update from an external sender": badUpdate, "wrong signature key": wrongKey} {
		if _, err := alice.Process(m); err == nil {
			t.Fatalf("%s accepted", name)
		}
	}
	for _, g := range []*Group{alice, bob, carol} {
		process(t, g, rm)
		process(t, g, add)
	}
	sc, err = bob.Commit(CommitOptions{RatchetTreeInWelcome: true})
	if err != nil {
		t.Fatal(err)
	}
	mustMerge(t, bob, sc)
	if len(sc.Added) != 1 || len(sc.Removed) != 1 || sc.Removed[0] != carol.OwnLeaf() {
		t.Fatalf("commit of the external proposals: added %v removed %v", sc.Added, sc.Removed)
	}
	process(t, alice, sc.Message)
	if r := process(t, carol, sc.Message); !r.Commit.SelfRemoved {
		t.Fatal("carol not removed")
	}
	dave, _, err := JoinWelcome(cfg, sc.Welcome, []*KeyPackageBundle{kp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	agreeAll(t, alice, bob, dave)
}
