package relay

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

func TestProvisionAndGenesis(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		wantCode(t, f.svc.ProvisionWorkspace(f.ctx, f.ws, pub(f.gen)), wire.CodeWorkspaceExists)

		// The genesis key is consumed: it cannot sign version 2.
		s2 := f.newSet(2, devices("alice"), "", "")
		wire.SignAccessSet(&s2, f.gen)
		f.refused(wire.CodeAuthGenesisUsed, func() error { _, err := f.svc.Publish(f.ctx, f.ws, s2); return err })

		// A fresh workspace refuses a first set not signed by its genesis key.
		other := id("other ws " + t.Name())
		if err := f.svc.ProvisionWorkspace(f.ctx, other, pub(key("other genesis"))); err != nil {
			t.Fatal(err)
		}
		s1 := wire.AccessSet{Workspace: other, Version: 1, Devices: []wire.DeviceKey{{Pub: pub(key("alice")), User: id("u"), Admin: true}}}
		wire.SignAccessSet(&s1, key("alice"))
		_, err := f.svc.Publish(f.ctx, other, s1)
		wantCode(t, err, wire.CodeAuthNotAdmin)
		wire.SignAccessSet(&s1, key("other genesis"))
		if _, err := f.svc.Publish(f.ctx, other, s1); err != nil {
			t.Fatal(err)
		}
		wantCode(t, errOf(f.svc.Publish(f.ctx, f.ws, s1)), wire.CodeWrongWorkspace)
		wantCode(t, f.svc.ProvisionWorkspace(f.ctx, id("x"), []byte("short")), wire.CodeMalformed)
	})
}

func errOf[T any](_ T, err error) error { return err }

func TestAccessSetCASAndSigners(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		// Not the next version.
		s3 := f.newSet(3, devices("alice", "bob"), "agent", "recovery")
		wire.SignAccessSet(&s3, key("alice"))
		we := f.refused(wire.CodeCASConflict, func() error { _, err := f.svc.Publish(f.ctx, f.ws, s3); return err })
		if v, _ := we.UintField("version"); v != 1 {
			t.Errorf("cas/conflict version = %d, want 1", v)
		}
		// A non-admin device cannot publish.
		s2 := f.newSet(2, devices("alice", "bob"), "agent", "recovery")
		wire.SignAccessSet(&s2, key("bob"))
		f.refused(wire.CodeAuthNotAdmin, func() error { _, err := f.svc.Publish(f.ctx, f.ws, s2); return err })
		// A bad signature.
		wire.SignAccessSet(&s2, key("alice"))
		s2.Version = 2
		bad := s2
		bad.Signature = append([]byte(nil), s2.Signature...)
		bad.Signature[0] ^= 1
		f.refused(wire.CodeAuthBadSignature, func() error { _, err := f.svc.Publish(f.ctx, f.ws, bad); return err })
		// No admin at all.
		noAdmin := f.newSet(2, []dev{{name: "bob", user: "user bob"}}, "", "")
		wire.SignAccessSet(&noAdmin, key("alice"))
		f.refused(wire.CodeBadObject, func() error { _, err := f.svc.Publish(f.ctx, f.ws, noAdmin); return err })
		// Malformed keys (possible only from a Go caller; the decoder refuses them).
		short := f.newSet(2, devices("alice", "bob"), "agent", "recovery")
		short.Agents = [][]byte{[]byte("too short")}
		wire.SignAccessSet(&short, key("alice"))
		f.refused(wire.CodeMalformed, func() error { _, err := f.svc.Publish(f.ctx, f.ws, short); return err })
		// The right one.
		ch, err := f.svc.Publish(f.ctx, f.ws, s2)
		if err != nil || ch.Version != 2 || len(ch.RemovedKeys) != 0 {
			t.Fatalf("publish v2: %+v %v", ch, err)
		}
		// The same version again loses the race.
		wantCode(t, errOf(f.svc.Publish(f.ctx, f.ws, s2)), wire.CodeCASConflict)
		got, err := f.svc.AccessSet(f.ctx, f.ws)
		if err != nil || got.Version != 2 {
			t.Fatalf("current set: %d %v", got.Version, err)
		}
	})
}

// TestRemovalRevokesKeysAndVoidsGrants follows spec/lifecycle.md "Removing a
// person" step 5 and "Provisional grants".
func TestRemovalRevokesKeysAndVoidsGrants(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		nonce := id("nonce")
		auth := func(name string, kind wire.PrincipalKind, grant string) (wire.AuthOK, error) {
			a := wire.SignChallenge(key(name), kind, bind(f.svc, f.ws, nonce))
			if grant != "" {
				a = wire.SignGrantChallenge(key(name), grantKey(grant), bind(f.svc, f.ws, nonce))
			}
			return f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, nonce), a)
		}
		for _, c := range []struct {
			name string
			kind wire.PrincipalKind
		}{{"alice", wire.PrincipalDevice}, {"bob", wire.PrincipalDevice}, {"agent", wire.PrincipalAgent}, {"recovery", wire.PrincipalRecovery}} {
			ok, err := auth(c.name, c.kind, "")
			if err != nil || ok.Principal != wire.KeyID(pub(key(c.name))) || ok.Kind != c.kind || ok.AccessVersion != 1 {
				t.Fatalf("auth %s: %+v %v", c.name, ok, err)
			}
		}
		wantCode(t, errOf(auth("mallory", wire.PrincipalDevice, "")), wire.CodeAuthUnknownKey)
		wantCode(t, errOf(auth("agent", wire.PrincipalDevice, "")), wire.CodeAuthUnknownKey) // wrong list
		a := wire.SignChallenge(key("alice"), wire.PrincipalDevice, bind(f.svc, f.ws, nonce))
		wantCode(t, errOf(f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, id("other nonce")), a)), wire.CodeAuthBadSignature)

		// v2 adds an invite grant; a joining device connects with it.
		s2 := f.newSet(2, devices("alice", "bob"), "agent", "recovery", "invite-1", "invite-2")
		wire.SignAccessSet(&s2, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s2); err != nil {
			t.Fatal(err)
		}
		j, err := auth("joiner", wire.PrincipalGrant, "invite-1")
		if err != nil || j.Kind != wire.PrincipalGrant {
			t.Fatalf("grant auth: %+v %v", j, err)
		}
		wantCode(t, errOf(auth("joiner2", wire.PrincipalGrant, "no-such-invite")), wire.CodeAuthUnknownKey)
		// The grant carries the joiner's own key for sending.
		g := id("root")
		if _, _, err := f.svc.Send(f.ctx, f.ws, j, []wire.Envelope{f.next("joiner", g, wire.KindMLSCommit, []byte("external commit"))}); err != nil {
			t.Fatalf("grant-carried send: %v", err)
		}

		// v3 removes bob and his recovery key and drops invite-1.
		s3 := f.newSet(3, devices("alice"), "agent", "", "invite-2")
		wire.SignAccessSet(&s3, key("alice"))
		ch, err := f.svc.Publish(f.ctx, f.ws, s3)
		if err != nil {
			t.Fatal(err)
		}
		wantRemoved := []wire.ID{wire.KeyID(pub(key("bob"))), wire.KeyID(pub(key("recovery")))}
		sortIDs(wantRemoved)
		if len(ch.RemovedKeys) != 2 || ch.RemovedKeys[0] != wantRemoved[0] || ch.RemovedKeys[1] != wantRemoved[1] {
			t.Errorf("removed keys = %v", ch.RemovedKeys)
		}
		if len(ch.VoidedGrants) != 1 || ch.VoidedGrants[0] != grantOf("invite-1") {
			t.Errorf("voided grants = %v", ch.VoidedGrants)
		}
		wantCode(t, errOf(auth("bob", wire.PrincipalDevice, "")), wire.CodeAuthRevoked)
		wantCode(t, errOf(auth("recovery", wire.PrincipalRecovery, "")), wire.CodeAuthRevoked)
		wantCode(t, errOf(auth("joiner3", wire.PrincipalGrant, "invite-1")), wire.CodeAuthRevoked)
		if _, err := auth("joiner4", wire.PrincipalGrant, "invite-2"); err != nil {
			t.Errorf("live grant: %v", err)
		}
		for _, c := range []struct {
			kind wire.PrincipalKind
			who  string
			want bool
		}{{wire.PrincipalDevice, "alice", true}, {wire.PrincipalDevice, "bob", false}, {wire.PrincipalRecovery, "recovery", false},
			{wire.PrincipalGrant, "joiner", false}, {wire.PrincipalGrant, "joiner4", true}, {wire.PrincipalAgent, "agent", true}} {
			ok, err := f.svc.Allowed(f.ctx, f.ws, c.kind, wire.KeyID(pub(key(c.who))))
			if err != nil || ok != c.want {
				t.Errorf("Allowed(%s) = %v %v, want %v", c.who, ok, err, c.want)
			}
		}
		// bob's envelopes are refused now; so are the voided grant's.
		f.refused(wire.CodeAuthRevoked, func() error { return errOf(f.send("bob", mk("bob", g, wire.KindContent, nil, 1, wire.ZeroID))) })
		f.refused(wire.CodeAuthRevoked, func() error {
			_, _, err := f.svc.Send(f.ctx, f.ws, j, []wire.Envelope{mk("joiner", g, wire.KindContent, nil, 2, f.chains[chainKey{wire.KeyID(pub(key("joiner"))), g}].prev)})
			return err
		})
		// A void grant stays void even if a later set lists it again.
		s4 := f.newSet(4, devices("alice"), "agent", "", "invite-1", "invite-2")
		wire.SignAccessSet(&s4, key("alice"))
		if _, err := f.svc.Publish(f.ctx, f.ws, s4); err != nil {
			t.Fatal(err)
		}
		wantCode(t, errOf(auth("joiner5", wire.PrincipalGrant, "invite-1")), wire.CodeAuthRevoked)
	})
}

func TestSendAssignsSeqAndAcksAfterCommit(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g1, g2 := id("g1"), id("g2")
		var changes []store.Change
		cancel := st.Subscribe(func(c store.Change) { changes = append(changes, c) })
		defer cancel()
		batch := []wire.Envelope{
			f.next("alice", g1, wire.KindContent, []byte("a1")),
			f.next("bob", g1, wire.KindContent, []byte("b1")),
			f.next("alice", g1, wire.KindContent, []byte("a2")),
			f.next("alice", g2, wire.KindMLSCommit, []byte("c1")),
			f.next("agent", g2, wire.KindContent, nil),
		}
		acks, accepted, err := f.svc.Send(f.ctx, f.ws, principal("alice"), batch)
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			g   wire.ID
			seq uint64
		}{{g1, 1}, {g1, 2}, {g1, 3}, {g2, 1}, {g2, 2}}
		for i, a := range acks {
			if a.Group != want[i].g || a.Seq != want[i].seq || a.Hash != batch[i].Hash() || accepted[i].Seq != a.Seq {
				t.Errorf("ack %d = %+v", i, a)
			}
		}
		if len(changes) != 2 || changes[0].Kind != store.ChangeEnvelopes || changes[0].Seq != 3 || changes[1].Seq != 2 {
			t.Errorf("changes = %+v", changes)
		}
		out, err := f.svc.Fetch(f.ctx, f.ws, g1, 1, 10)
		if err != nil || len(out.Envelopes) != 2 || out.HeadSeq != 3 || out.More {
			t.Fatalf("fetch: %+v %v", out, err)
		}
		if out.Envelopes[0].Seq != 2 || !bytes.Equal(out.Envelopes[0].Envelope.CT, []byte("b1")) {
			t.Errorf("fetched %+v", out.Envelopes[0])
		}
		if e := out.Envelopes[1].Envelope; e.Hash() != batch[2].Hash() {
			t.Error("fetched envelope differs from the one sent")
		}
		// A page stops at MaxFetchBytes of ct but always holds one envelope.
		big := id("big")
		for i := 0; i < 3; i++ {
			f.mustSend("alice", f.next("alice", big, wire.KindSnapshot, make([]byte, MaxFetchBytes/2+1)))
		}
		for after, want := range map[uint64]int{0: 2, 1: 2, 2: 1} {
			bp, err := f.svc.Fetch(f.ctx, f.ws, big, after, 0)
			if err != nil || len(bp.Envelopes) != want || bp.More != (after+uint64(want) < 3) {
				t.Errorf("big page after %d: %d envelopes, more %v, %v", after, len(bp.Envelopes), bp.More, err)
			}
		}
		page, _ := f.svc.Fetch(f.ctx, f.ws, g1, 0, 2)
		if len(page.Envelopes) != 2 || !page.More {
			t.Errorf("paged fetch more = %v", page.More)
		}
		empty, err := f.svc.Fetch(f.ctx, f.ws, id("never written"), 0, 0)
		if err != nil || len(empty.Envelopes) != 0 || empty.HeadSeq != 0 {
			t.Errorf("fetch of an unwritten group: %+v %v", empty, err)
		}
		ae := f.next("alice", g2, wire.KindContent, nil)
		if a := f.mustSend("alice", ae); a[0].Seq != 3 {
			t.Errorf("next seq = %d", a[0].Seq)
		}
		// Empty ct envelopes are stored and fetched as such.
		all, _ := f.svc.Fetch(f.ctx, f.ws, g2, 0, 0)
		if len(all.Envelopes) != 3 || len(all.Envelopes[1].Envelope.CT) != 0 || all.Envelopes[1].Envelope.Hash() != batch[4].Hash() {
			t.Errorf("empty-ct envelope round trip")
		}
	})
}

// TestHostileEnvelopes: each hostile input is refused with its code and
// changes nothing.
func TestHostileEnvelopes(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		g := id("g")
		e1 := f.next("alice", g, wire.KindContent, []byte("one"))
		e2 := f.next("alice", g, wire.KindContent, []byte("two"))
		f.mustSend("alice", e1, e2)

		wrongSig := f.next("alice", g, wire.KindContent, []byte("three"))
		wrongSig.Signature = append([]byte(nil), wrongSig.Signature...)
		wrongSig.Signature[5] ^= 0x20
		tampered := mk("alice", g, wire.KindContent, []byte("three"), 3, e2.Hash())
		tampered.CT = []byte("THREE")
		forgedAuthor := mk("mallory", g, wire.KindContent, []byte("x"), 3, e2.Hash())
		forgedAuthor.Author = e1.Author // claims to be alice, signed by mallory
		unknownKind := mk("alice", g, wire.Kind(0x7777), nil, 3, e2.Hash())
		cases := []struct {
			name string
			code wire.Code
			envs []wire.Envelope
			idx  uint64
		}{
			{"wrong signature", wire.CodeAuthBadSignature, []wire.Envelope{wrongSig}, 0},
			{"tampered ct", wire.CodeAuthBadSignature, []wire.Envelope{tampered}, 0},
			{"forged author", wire.CodeAuthBadSignature, []wire.Envelope{forgedAuthor}, 0},
			{"unknown author", wire.CodeAuthUnknownKey, []wire.Envelope{mk("mallory", g, wire.KindContent, nil, 1, wire.ZeroID)}, 0},
			{"replay of the head", wire.CodeChainReplay, []wire.Envelope{e2}, 0},
			{"replay of an older one", wire.CodeChainReplay, []wire.Envelope{e1}, 0},
			{"fork: other envelope at taken ctr", wire.CodeChainFork, []wire.Envelope{mk("alice", g, wire.KindContent, []byte("alt"), 2, e1.Hash())}, 0},
			{"fork: wrong prev", wire.CodeChainFork, []wire.Envelope{mk("alice", g, wire.KindContent, nil, 3, e1.Hash())}, 0},
			{"fork: first with prev", wire.CodeChainFork, []wire.Envelope{mk("bob", g, wire.KindContent, nil, 1, e1.Hash())}, 0},
			{"gap", wire.CodeChainGap, []wire.Envelope{mk("alice", g, wire.KindContent, nil, 4, e2.Hash())}, 0},
			{"gap: first not 1", wire.CodeChainGap, []wire.Envelope{mk("bob", g, wire.KindContent, nil, 2, wire.ZeroID)}, 0},
			{"unknown kind", wire.CodeUnknownKind, []wire.Envelope{unknownKind}, 0},
			{"good then replay in one batch", wire.CodeChainReplay, []wire.Envelope{mk("alice", g, wire.KindContent, []byte("3"), 3, e2.Hash()), mk("alice", g, wire.KindContent, []byte("3"), 3, e2.Hash())}, 1},
			{"good then gap in one batch", wire.CodeChainGap, []wire.Envelope{mk("bob", g, wire.KindContent, nil, 1, wire.ZeroID), mk("bob", g, wire.KindContent, nil, 3, wire.ZeroID)}, 1},
			{"empty batch", wire.CodeMalformed, nil, 0},
		}
		parent := f.t
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				defer func() { f.t = parent }()
				we := f.refused(c.code, func() error { return errOf(f.send("alice", c.envs...)) })
				if len(c.envs) > 0 {
					if i, ok := we.UintField("index"); !ok || i != c.idx {
						t.Errorf("index = %d %v, want %d", i, ok, c.idx)
					}
				}
			})
		}
		// The chain still continues from e2.
		f.chains[chainKey{e1.Author, g}] = chain{ctr: 2, prev: e2.Hash()}
		if a := f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("three"))); a[0].Seq != 3 {
			t.Errorf("seq after refusals = %d, want 3 (no gaps)", a[0].Seq)
		}
		// Batch size limit.
		small := New(Config{Store: st, Clock: f.clock.now, MaxBatch: 2})
		three := []wire.Envelope{mk("bob", g, 1, nil, 1, wire.ZeroID), mk("bob", g, 1, nil, 2, wire.ZeroID), mk("bob", g, 1, nil, 3, wire.ZeroID)}
		f.refused(wire.CodeLimitBatchSize, func() error { _, _, err := small.Send(f.ctx, f.ws, principal("bob"), three); return err })
		// A group of another workspace.
		other := id("other " + t.Name())
		if err := f.svc.ProvisionWorkspace(f.ctx, other, pub(key("g2"))); err != nil {
			t.Fatal(err)
		}
		s := wire.AccessSet{Workspace: other, Version: 1, Devices: []wire.DeviceKey{{Pub: pub(key("alice")), User: id("u"), Admin: true}}}
		wire.SignAccessSet(&s, key("g2"))
		if _, err := f.svc.Publish(f.ctx, other, s); err != nil {
			t.Fatal(err)
		}
		// The same group id in another workspace is another group: fetching
		// it there sees nothing of this one, and sending starts its own log.
		if got, err := f.svc.Fetch(f.ctx, other, g, 0, 0); err != nil || len(got.Envelopes) != 0 {
			t.Fatalf("fetch of the same id in another workspace: %+v %v", got, err)
		}
		if a, _, err := f.svc.Send(f.ctx, other, principal("alice"), []wire.Envelope{mk("alice", g, wire.KindContent, nil, 1, wire.ZeroID)}); err != nil || a[0].Seq != 1 {
			t.Fatalf("send to the same id in another workspace: %v %v", a, err)
		}
		if got, err := f.svc.Fetch(f.ctx, f.ws, g, 0, 0); err != nil || len(got.Envelopes) != 3 {
			t.Fatalf("this workspace's group after the other's send: %d envelopes, %v", len(got.Envelopes), err)
		}
		_, _, err := f.svc.Send(f.ctx, id("nowhere"), principal("alice"), []wire.Envelope{e1})
		wantCode(t, err, wire.CodeWorkspaceUnknown)
	})
}

// TestByteBudget follows spec/lifecycle.md "The workspace byte budget".
func TestByteBudget(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, withBudget(100))
		g, h := id("g"), id("h")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, make([]byte, 60)))
		f.mustSend("bob", f.next("bob", h, wire.KindContent, make([]byte, 40)))
		st1, _ := f.svc.Stats(f.ctx, f.ws)
		if st1.LogBytes != 100 || st1.LimitBytes != 100 || st1.Envelopes != 2 || st1.Groups != 2 {
			t.Fatalf("stats = %+v", st1)
		}
		over := mk("alice", g, wire.KindContent, []byte{1}, 2, f.chains[chainKey{wire.KeyID(pub(key("alice"))), g}].prev)
		we := f.refused(wire.CodeLogBudgetExhausted, func() error { return errOf(f.send("alice", over)) })
		if v, ok := we.UintField("limit_bytes"); !ok || v != 100 {
			t.Errorf("limit_bytes = %d %v", v, ok)
		}
		if _, ok := we.Field("retry_after_ms"); ok || len(we.Fields) != 1 {
			t.Errorf("budget error carries more than limit_bytes: %v", we)
		}
		// An empty ct still fits.
		f.mustSend("alice", mk("alice", g, wire.KindContent, nil, 2, f.chains[chainKey{wire.KeyID(pub(key("alice"))), g}].prev))
	})
}

// TestBudgetCheckedAgainstTrigger drives the in-transaction check (not only
// the pre-check): a budget crossed by the batch's own rows is refused whole.
func TestBudgetCheckedAgainstTrigger(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, withBudget(10))
		g := id("g")
		a1 := mk("alice", g, wire.KindContent, make([]byte, 6), 1, wire.ZeroID)
		a2 := mk("alice", g, wire.KindContent, make([]byte, 6), 2, a1.Hash())
		f.groups[g] = true
		f.refused(wire.CodeLogBudgetExhausted, func() error { return errOf(f.send("alice", a1, a2)) })
		f.mustSend("alice", a1)
		var ws store.Workspace
		_ = st.View(f.ctx, func(tx store.Tx) error { var err error; ws, err = tx.Workspace(f.ctx, f.ws); return err })
		if ws.LogBytes != 6 {
			t.Errorf("trigger counter = %d, want 6", ws.LogBytes)
		}
	})
}

func TestRosterCAS(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		p := principal("alice")
		g := f.genesisOp("alice")
		r1, err := f.svc.RosterAppend(f.ctx, f.ws, p, wire.ZeroID, g.Bytes())
		if err != nil || r1.Index != 1 || r1.Head != sha256.Sum256(g.Bytes()) {
			t.Fatalf("append 1: %+v %v", r1, err)
		}
		loser := f.genesisFor("alice", id("another user"))
		we := f.refused(wire.CodeCASConflict, func() error { return errOf(f.svc.RosterAppend(f.ctx, f.ws, p, wire.ZeroID, loser.Bytes())) })
		if f, ok := we.Field("head"); !ok || !bytes.Equal(f.Bytes, r1.Head[:]) {
			t.Errorf("conflict head = %x", f.Bytes)
		}
		s := roster.New(roster.Options{})
		if err := s.Apply(g); err != nil {
			t.Fatal(err)
		}
		root, err := roster.Sign(roster.DeviceSigner(devKey(t, "alice")), s.Head(), f.clock.now(), roster.BootstrapGroups(s, "Acme")[0])
		if err != nil {
			t.Fatal(err)
		}
		r2, err := f.svc.RosterAppend(f.ctx, f.ws, p, r1.Head, root.Bytes())
		if err != nil || r2.Index != 2 {
			t.Fatalf("append 2: %+v %v", r2, err)
		}
		ops, err := f.svc.RosterFetch(f.ctx, f.ws, 0, 0)
		if err != nil || len(ops.Ops) != 2 || !bytes.Equal(ops.Ops[1], root.Bytes()) || ops.Head != r2.Head || ops.HeadIndex != 2 || ops.More {
			t.Fatalf("fetch: %+v %v", ops, err)
		}
		page, _ := f.svc.RosterFetch(f.ctx, f.ws, 0, 1)
		if len(page.Ops) != 1 || !page.More || page.FirstIndex != 1 {
			t.Errorf("page: %+v", page)
		}
		f.refused(wire.CodeMalformed, func() error { return errOf(f.svc.RosterAppend(f.ctx, f.ws, p, r2.Head, nil)) })
	})
}

func TestKeyPackages(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		bob := principal("bob")
		stock, err := f.svc.KeyPackagePut(f.ctx, f.ws, bob, []wire.KeyPackageItem{{KeyPackage: []byte("kp1")}, {KeyPackage: []byte("kp2")}, {KeyPackage: []byte("lr1"), LastResort: true}})
		if err != nil || stock.OneUse != 2 || !stock.LastResort {
			t.Fatalf("put: %+v %v", stock, err)
		}
		stock, _ = f.svc.KeyPackagePut(f.ctx, f.ws, bob, []wire.KeyPackageItem{{KeyPackage: []byte("lr2"), LastResort: true}})
		if stock.OneUse != 2 || !stock.LastResort {
			t.Errorf("replace last resort: %+v", stock)
		}
		var got []string
		for i := 0; i < 4; i++ {
			c, err := f.svc.KeyPackageClaim(f.ctx, f.ws, principal("alice"), bob.Principal)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(c.KeyPackage)+map[bool]string{true: "*", false: ""}[c.LastResort])
		}
		if want := "kp1 kp2 lr2* lr2*"; joinStrings(got) != want {
			t.Errorf("claims = %q, want %q", joinStrings(got), want)
		}
		wantCode(t, errOf(f.svc.KeyPackageClaim(f.ctx, f.ws, bob, wire.KeyID(pub(key("alice"))))), wire.CodeKeyPackageNone)
		// The stock per device is bounded; a refused put stores none of its items.
		many := make([]wire.KeyPackageItem, 0, DefaultMaxBatch)
		for i := 0; i < DefaultMaxBatch; i++ {
			many = append(many, wire.KeyPackageItem{KeyPackage: []byte{byte(i), byte(i >> 8)}})
		}
		agent := wire.AuthOK{Kind: wire.PrincipalAgent, Principal: wire.KeyID(pub(key("agent")))}
		for i := 0; i < MaxKeyPackages/DefaultMaxBatch; i++ {
			if _, err := f.svc.KeyPackagePut(f.ctx, f.ws, agent, many); err != nil {
				t.Fatalf("put %d: %v", i, err)
			}
		}
		wantCode(t, errOf(f.svc.KeyPackagePut(f.ctx, f.ws, agent, many[:1])), wire.CodeLimitKeyPackages)
		var stock1 int
		_ = st.View(f.ctx, func(tx store.Tx) error {
			var err error
			stock1, _, err = tx.KeyPackageStock(f.ctx, f.ws, agent.Principal)
			return err
		})
		if stock1 != MaxKeyPackages {
			t.Errorf("agent stock = %d, want %d", stock1, MaxKeyPackages)
		}
		rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(pub(key("recovery")))}
		wantCode(t, errOf(f.svc.KeyPackagePut(f.ctx, f.ws, rec, []wire.KeyPackageItem{{KeyPackage: []byte("x")}})), wire.CodeKeyPackageKind)
	})
}

func joinStrings(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// TestRetentionDaysOnlyWarns: WEALD_RELAY_RETENTION_DAYS counts old
// envelopes in stats and deletes nothing (spec/lifecycle.md "What the relay
// never does").
func TestRetentionDaysOnlyWarns(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, withRetentionDays(30))
		g := id("g")
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("old")))
		f.clock.advance(40 * 24 * 3600e9)
		f.mustSend("alice", f.next("alice", g, wire.KindContent, []byte("new")))
		s, err := f.svc.Stats(f.ctx, f.ws)
		if err != nil || s.OverRetention != 1 || s.Envelopes != 2 || s.RetentionDays != 30 || s.OldestUnix == 0 {
			t.Fatalf("stats = %+v %v", s, err)
		}
		f.clock.advance(400 * 24 * 3600e9)
		s, _ = f.svc.Stats(f.ctx, f.ws)
		out, _ := f.svc.Fetch(f.ctx, f.ws, g, 0, 0)
		if s.OverRetention != 2 || len(out.Envelopes) != 2 {
			t.Errorf("after a year: over=%d, envelopes=%d (nothing may be deleted)", s.OverRetention, len(out.Envelopes))
		}
	})
}
