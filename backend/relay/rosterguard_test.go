package relay

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// devKey is the roster device key of a fixture key name (the same Ed25519
// key as key(name), so it matches the access set).
func devKey(t testing.TB, name string) identity.DevicePrivate {
	k, err := identity.PrivateFromSeed[identity.Device](key(name).Seed())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type detRand struct{ n byte }

func (r *detRand) Read(p []byte) (int, error) {
	for i := range p {
		r.n++
		p[i] = r.n
	}
	return len(p), nil
}

// rosterFixture is a fixture whose roster holds alice's genesis, the root
// group and one invite (its grant in access set version 2).
type rosterFixture struct {
	*fixture
	state  *roster.State
	secret identity.InviteSecret
	invite roster.InviteID
}

func (f *fixture) genesisOp(name string) *roster.Operation {
	return f.genesisFor(name, id("user "+name))
}

// genesisFor is the genesis operation admitting name's device for user.
func (f *fixture) genesisFor(name string, user wire.ID) *roster.Operation {
	gen, err := identity.PrivateFromSeed[identity.Genesis](f.gen.Seed())
	if err != nil {
		f.t.Fatal(err)
	}
	d := devKey(f.t, name)
	body, err := roster.NewGenesis(identity.WorkspaceID(f.ws), identity.UserID(user), d.Public(), gen)
	if err != nil {
		f.t.Fatal(err)
	}
	op, err := roster.Sign(roster.DeviceSigner(d), roster.Head{}, f.clock.now(), body)
	if err != nil {
		f.t.Fatal(err)
	}
	return op
}

func newRosterFixture(t testing.TB, st store.Store, opts ...fixtureOpt) *rosterFixture {
	f := &rosterFixture{fixture: newFixture(t, st, opts...)}
	f.state = roster.New(roster.Options{})
	f.append("alice", f.genesisOp("alice"))
	f.append("alice", f.sign("alice", roster.BootstrapGroups(f.state, "Acme")[0]))
	inv, sec, err := roster.NewInvite(&detRand{}, f.state, nil, roster.RoleMember, f.clock.now().Add(24*time.Hour), make([]byte, 32), 5)
	if err != nil {
		t.Fatal(err)
	}
	f.secret, f.invite = sec, inv.ID
	f.append("alice", f.sign("alice", inv))
	set := f.newSet(2, devices("alice", "bob"), "agent", "recovery")
	set.Grants = []wire.ID{wire.ID(inv.Grant)}
	wire.SignAccessSet(&set, key("alice"))
	if _, err := f.svc.Publish(f.ctx, f.ws, set); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *rosterFixture) sign(name string, body roster.Body) *roster.Operation {
	op, err := roster.Sign(roster.DeviceSigner(devKey(f.t, name)), f.state.Head(), f.clock.now(), body)
	if err != nil {
		f.t.Fatal(err)
	}
	return op
}

// append appends op as name's device connection and folds it locally.
func (f *rosterFixture) append(name string, op *roster.Operation) {
	f.t.Helper()
	if _, err := f.svc.RosterAppend(f.ctx, f.ws, principal(name), wire.ID(f.state.Head()), op.Bytes()); err != nil {
		f.t.Fatalf("append %s: %v", op.Type(), err)
	}
	if err := f.state.Apply(op); err != nil {
		f.t.Fatal(err)
	}
}

// grantConn authenticates name's key with the fixture invite's secret, as
// a link holder does.
func (f *rosterFixture) grantConn(name string) wire.AuthOK {
	nonce := id("nonce " + name)
	gk, err := f.secret.GrantKey()
	if err != nil {
		f.t.Fatal(err)
	}
	p, err := f.svc.Authenticate(f.ctx, bind(f.svc, f.ws, nonce), wire.SignGrantChallenge(key(name), ed25519.NewKeyFromSeed(gk.Seed()), bind(f.svc, f.ws, nonce)))
	if err != nil {
		f.t.Fatalf("grant auth: %v", err)
	}
	return p
}

func (f *rosterFixture) redemption(name, signer string) *roster.Operation {
	body, err := roster.NewRedemption(identity.WorkspaceID(f.ws), f.state.Head(), f.invite, f.secret,
		identity.UserID(id("user "+name)), devKey(f.t, name).Public())
	if err != nil {
		f.t.Fatal(err)
	}
	return f.sign(signer, body)
}

func (f *rosterFixture) head() (wire.ID, uint64) {
	ops, err := f.svc.RosterFetch(f.ctx, f.ws, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	return ops.Head, ops.HeadIndex
}

// TestRosterAppendRefusesWhatClientsWouldRefuse is written from the
// attackers' side (issue 11 finding 2): a link holder and a device try to
// append junk, other kinds, operations signed by other keys, operations
// breaking the roster's rules and operations off the head. Each is refused
// with its code and the roster stays as it was; on the main before the
// guard every one of them was appended and stopped every client's sync.
func TestRosterAppendRefusesWhatClientsWouldRefuse(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newRosterFixture(t, st)
		link := f.grantConn("carol")
		head, n := f.head()
		try := func(p wire.AuthOK, expected wire.ID, b []byte) error {
			_, err := f.svc.RosterAppend(f.ctx, f.ws, p, expected, b)
			return err
		}
		// A link holder appends junk.
		f.refused(wire.CodeMalformed, func() error { return try(link, head, []byte("junk")) })
		f.refused(wire.CodeMalformed, func() error { return try(link, head, append(f.redemption("carol", "carol").Bytes(), 0)) })
		// ... a well-formed operation of another kind, signed by its own key.
		f.refused(wire.CodeAuthRosterKind, func() error {
			return try(link, head, f.sign("carol", roster.BootstrapGroups(f.state, "Acme")[0]).Bytes())
		})
		// ... a redemption signed by another key (alice's, bob's).
		f.refused(wire.CodeAuthNotActor, func() error { return try(link, head, f.redemption("alice", "alice").Bytes()) })
		f.refused(wire.CodeAuthNotActor, func() error { return try(link, head, f.redemption("bob", "bob").Bytes()) })
		// ... a redemption of an invite that is not its own.
		other := f.redemption("carol", "carol")
		rb := *other.Body.(*roster.RedeemInvite)
		rb.Invite = roster.InviteID(id("another invite"))
		f.refused(wire.CodeAuthRosterKind, func() error { return try(link, head, f.sign("carol", &rb).Bytes()) })
		// ... its own invite with a proof that does not verify.
		rb = *other.Body.(*roster.RedeemInvite)
		rb.Proof = bytes.Repeat([]byte{7}, 64)
		we := f.refused(wire.CodeRosterInvalid, func() error { return try(link, head, f.sign("carol", &rb).Bytes()) })
		if r, _ := we.Field("reason"); r.Text != "roster/invite_proof" {
			t.Errorf("reason %q", r.Text)
		}
		// A device appends an operation signed as another device.
		f.refused(wire.CodeAuthNotActor, func() error {
			return try(principal("bob"), head, f.sign("alice", roster.BootstrapGroups(f.state, "Acme")[1]).Bytes())
		})
		// ... or names itself as actor but signs with another key.
		forged := f.sign("alice", roster.BootstrapGroups(f.state, "Acme")[1])
		fb := forged.Bytes()
		fake := devKey(t, "bob").Public().Hash()
		copy(fb[1+32+8+1:], fake[:]) // actor id
		f.refused(wire.CodeRosterInvalid, func() error { return try(principal("bob"), head, fb) })
		// An operation that does not chain onto the head, announced at the
		// head or at its own prev_head.
		stale, _ := roster.Sign(roster.DeviceSigner(devKey(t, "alice")), roster.HeadOf([]byte("old")), f.clock.now(),
			roster.BootstrapGroups(f.state, "Acme")[1])
		f.refused(wire.CodeCASConflict, func() error { return try(principal("alice"), head, stale.Bytes()) })
		f.refused(wire.CodeCASConflict, func() error { return try(principal("alice"), wire.ID(stale.PrevHead), stale.Bytes()) })
		if h, i := f.head(); h != head || i != n {
			t.Fatalf("the roster moved to %d after refusals", i)
		}
		// The link holder's own redemption is accepted.
		if _, err := f.svc.RosterAppend(f.ctx, f.ws, link, head, f.redemption("carol", "carol").Bytes()); err != nil {
			t.Fatalf("own redemption: %v", err)
		}
		if err := f.state.Apply(f.redemption("carol", "carol")); err != nil {
			t.Fatal(err)
		}
		head, _ = f.head()
		// Redeemed, the link's device may write what a member may, and no
		// more: it may not promote itself (every client would refuse it).
		we = f.refused(wire.CodeRosterInvalid, func() error {
			return try(link, head, f.sign("carol", &roster.SetRole{User: identity.UserID(id("user carol")), Role: roster.RoleAdmin}).Bytes())
		})
		if r, _ := we.Field("reason"); r.Text != "roster/not_authorized" {
			t.Errorf("reason %q", r.Text)
		}
		// What was stored is a chain every client accepts.
		ops, _ := f.svc.RosterFetch(f.ctx, f.ws, 0, 0)
		if _, err := roster.Validate(ops.Ops, roster.Options{}); err != nil || len(ops.Ops) != 4 {
			t.Fatalf("stored %d operations: %v", len(ops.Ops), err)
		}
	})
}

// TestRosterBudget: roster operations count against a per-workspace bound.
func TestRosterBudget(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st, func(c *Config) { c.MaxRosterBytes = 500 })
		g := f.genesisOp("alice")
		if _, err := f.svc.RosterAppend(f.ctx, f.ws, principal("alice"), wire.ZeroID, g.Bytes()); err != nil {
			t.Fatal(err)
		}
		s := roster.New(roster.Options{})
		_ = s.Apply(g)
		op, _ := roster.Sign(roster.DeviceSigner(devKey(t, "alice")), s.Head(), f.clock.now(), roster.BootstrapGroups(s, "Acme")[0])
		if len(g.Bytes())+len(op.Bytes()) <= 500 {
			t.Fatalf("the bound does not bind: %d + %d bytes", len(g.Bytes()), len(op.Bytes()))
		}
		we := f.refused(wire.CodeRosterBudgetExhausted, func() error {
			return errOf(f.svc.RosterAppend(f.ctx, f.ws, principal("alice"), wire.ID(s.Head()), op.Bytes()))
		})
		if l, _ := we.Field("limit_bytes"); l.Uint != 500 {
			t.Errorf("limit %d", l.Uint)
		}
	})
}

// TestRosterStoredInvalid: a roster stored with an invalid operation (before
// the guard, or written into the database) is folded up to it, and nothing
// can extend it; a second Service on the same store folds it the same way.
func TestRosterStoredInvalid(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newRosterFixture(t, st)
		_, n := f.head()
		junk := []byte("junk appended before the guard")
		if err := st.Update(f.ctx, func(tx store.Tx) error {
			return tx.RosterAppend(f.ctx, f.ws, n+1, sha256.Sum256(junk), junk)
		}); err != nil {
			t.Fatal(err)
		}
		for _, svc := range []*Service{f.svc, New(Config{Store: st, Clock: f.clock.now})} {
			next := f.sign("alice", roster.BootstrapGroups(f.state, "Acme")[1])
			wantCode(t, errOf(svc.RosterAppend(f.ctx, f.ws, principal("alice"), sha256.Sum256(junk), next.Bytes())), wire.CodeCASConflict)
			// Chained onto the junk's head it is still refused: the stored
			// roster is invalid from the junk on.
			b := next.Bytes()
			jh := sha256.Sum256(junk)
			copy(b[1:33], jh[:])
			we := wantCode(t, errOf(svc.RosterAppend(f.ctx, f.ws, principal("alice"), sha256.Sum256(junk), b)), wire.CodeRosterInvalid)
			if i, _ := we.Field("index"); i.Uint != n {
				t.Errorf("invalid at %d, want %d", i.Uint, n)
			}
		}
	})
}

// FuzzRosterAppend feeds arbitrary operation bytes, as a link holder, a
// member device, the admin or an agent, to the roster append on SQLite:
// nothing panics, every refusal is a *wire.Error, and what is stored is
// always a chain every client accepts, each operation signed by the
// principal that appended it.
func FuzzRosterAppend(f *testing.F) {
	rf := newRosterFixture(f, openSQLite(f))
	rf.ctx = context.Background() // the fixture's deadline is shorter than a fuzz run
	link := rf.grantConn("carol")
	conns := []wire.AuthOK{link, principal("alice"), principal("bob"),
		{Kind: wire.PrincipalAgent, Principal: wire.KeyID(pub(key("agent")))}}
	f.Add(uint8(0), rf.redemption("carol", "carol").Bytes())
	f.Add(uint8(0), []byte("junk"))
	f.Add(uint8(1), rf.sign("alice", roster.BootstrapGroups(rf.state, "Acme")[1]).Bytes())
	f.Add(uint8(2), rf.sign("bob", &roster.SetRole{User: identity.UserID(id("user bob")), Role: roster.RoleAdmin}).Bytes())
	f.Add(uint8(1), rf.sign("alice", &roster.RevokeInvite{Invite: rf.invite}).Bytes())
	f.Fuzz(func(t *testing.T, who uint8, b []byte) {
		p := conns[int(who)%len(conns)]
		head, n := rf.head()
		_, err := rf.svc.RosterAppend(rf.ctx, rf.ws, p, head, b)
		if err != nil {
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("refusal is not a wire error: %v", err)
			}
			if h, m := rf.head(); h != head || m != n {
				t.Fatalf("a refused append moved the roster")
			}
			return
		}
		ops, err := rf.svc.RosterFetch(rf.ctx, rf.ws, 0, MaxFetchLimit)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := roster.Validate(ops.Ops, roster.Options{}); err != nil {
			t.Fatalf("the relay stored an operation clients refuse: %v", err)
		}
		op, _ := roster.Decode(b)
		if op.Actor.ID != p.Principal {
			t.Fatalf("stored an operation by %x on %x's connection", op.Actor.ID, p.Principal)
		}
	})
}

// TestRosterFoldIgnoresClockForStoredOps: stored operations are not judged
// again by the relay's clock (which may have moved back since it accepted
// them): a second Service folds a roster dated after its clock, refuses a
// new operation dated too far ahead (roster/future), and accepts it once
// its clock has caught up.
func TestRosterFoldIgnoresClockForStoredOps(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newRosterFixture(t, st)
		f.clock.advance(-time.Hour) // the relay's clock moved back
		svc := New(Config{Store: st, Clock: f.clock.now})
		head, _ := f.head()
		op, err := roster.Sign(roster.DeviceSigner(devKey(t, "alice")), f.state.Head(), f.clock.now().Add(time.Hour),
			roster.BootstrapGroups(f.state, "Acme")[1])
		if err != nil {
			t.Fatal(err)
		}
		we := wantCode(t, errOf(svc.RosterAppend(f.ctx, f.ws, principal("alice"), head, op.Bytes())), wire.CodeRosterInvalid)
		if r, _ := we.Field("reason"); r.Text != "roster/future" {
			t.Fatalf("reason %q, want roster/future (the stored roster folded)", r.Text)
		}
		f.clock.advance(time.Hour)
		if _, err := svc.RosterAppend(f.ctx, f.ws, principal("alice"), head, op.Bytes()); err != nil {
			t.Fatalf("after the clock caught up: %v", err)
		}
	})
}
