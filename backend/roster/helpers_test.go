package roster

import (
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"weald/backend/identity"
)

type member struct {
	user identity.UserID
	dev  identity.DevicePrivate
}

func (m member) signer() Signer         { return DeviceSigner(m.dev) }
func (m member) id() identity.DeviceID  { return identity.DeviceIDOf(m.dev.Public()) }
func (m member) p() identity.Principal  { return identity.DevicePrincipal(m.id()) }
func (m member) up() identity.Principal { return identity.UserPrincipal(m.user) }

type world struct {
	t      testing.TB
	rnd    io.Reader
	now    time.Time
	ws     identity.WorkspaceID
	gen    identity.GenesisPrivate
	st     *State
	ops    [][]byte
	owner  member
	agents map[identity.AgentID]identity.AgentPrivate
}

func newRand(seed byte) io.Reader {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// newWorld runs genesis only.
func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{t: t, rnd: newRand(1), now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), st: New(Options{})}
	w.ws, _ = identity.NewRandomID[identity.Workspace](w.rnd)
	w.gen, _ = identity.GenerateKey[identity.Genesis](w.rnd)
	w.owner = w.newMember()
	w.must(w.owner.signer(), w.genesisBody(w.owner))
	return w
}

// bootstrapped runs genesis, root, #general and #activity in the spec's order.
func bootstrapped(t testing.TB) *world {
	w := newWorld(t)
	w.must(w.owner.signer(), w.groupBody(w.owner, KindWorkspace, AdmissionEveryone, HistoryOpen, RootGroupID(w.ws), true, "Acme"))
	w.must(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, GeneralGroupID(w.ws), true, GeneralName))
	w.must(w.owner.signer(), w.groupBody(w.owner, KindChannel, AdmissionParent, HistoryOpen, ActivityGroupID(w.ws), true, ActivityName))
	return w
}

func (w *world) newMember() member {
	dev, err := identity.GenerateKey[identity.Device](w.rnd)
	if err != nil {
		w.t.Fatal(err)
	}
	u, _ := identity.NewRandomID[identity.User](w.rnd)
	return member{user: u, dev: dev}
}

func (w *world) genesisBody(m member) *Genesis {
	sig, err := w.gen.Sign(identity.LabelGenesis, GenesisContent(w.ws, m.user, m.dev.Public()))
	if err != nil {
		w.t.Fatal(err)
	}
	return &Genesis{Workspace: w.ws, User: m.user, Device: m.dev.Public(), GenesisKey: w.gen.Public(), GenesisSig: sig}
}

func (w *world) groupBody(m member, k GroupKind, a Admission, h History, id identity.GroupID, def bool, name string) *CreateGroup {
	p := GroupPolicy{Group: id, Kind: k, Admission: a, History: h, Default: def, CreatedBy: m.id(), CreatedAt: w.now}
	if k == KindChannel {
		root := RootGroupID(w.ws)
		p.Parent = &root
	}
	return &CreateGroup{Policy: p, Name: name}
}

func (w *world) randomGroup() identity.GroupID {
	g, _ := identity.NewRandomID[identity.Group](w.rnd)
	return g
}

// channel creates a non-default channel.
func (w *world) channel(m member, a Admission, name string) identity.GroupID {
	g := w.randomGroup()
	h := HistoryOpen
	if a == AdmissionExplicit {
		h = HistoryClosed
	}
	w.must(m.signer(), w.groupBody(m, KindChannel, a, h, g, false, name))
	return g
}

func (w *world) sign(s Signer, body Body) *Operation {
	w.t.Helper()
	op, err := Sign(s, w.st.Head(), w.now, body)
	if err != nil {
		w.t.Fatal(err)
	}
	return op
}

// must signs body at the current time, applies it from its bytes and
// advances the clock by a second.
func (w *world) must(s Signer, body Body) *Operation {
	w.t.Helper()
	op := w.sign(s, body)
	if err := w.st.ApplyBytes(op.Bytes()); err != nil {
		w.t.Fatalf("apply %s: %v", body.Type(), err)
	}
	w.ops = append(w.ops, op.Bytes())
	w.now = w.now.Add(time.Second)
	return op
}

// fail expects the operation to be rejected with want and the state to be
// exactly what the valid chain so far folds to.
func (w *world) fail(s Signer, body Body, want error) *Error {
	w.t.Helper()
	return w.failOp(w.sign(s, body), want)
}

func (w *world) failOp(op *Operation, want error) *Error {
	w.t.Helper()
	err := w.st.ApplyBytes(op.Bytes())
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, want) {
		w.t.Fatalf("%s: got %v, want %v", op.Type(), err, want)
	}
	if e.Index != len(w.ops) {
		w.t.Fatalf("error names index %d, want %d", e.Index, len(w.ops))
	}
	fresh, verr := Validate(w.ops, Options{})
	if verr != nil {
		w.t.Fatal(verr)
	}
	if !reflect.DeepEqual(fresh, w.st) {
		w.t.Fatalf("rejected %s changed the state", op.Type())
	}
	return e
}

type invited struct {
	secret identity.InviteSecret
	id     InviteID
}

func (w *world) inviteBody(scopes []identity.GroupID, role Role, ttl time.Duration, uses uint16) (*Invite, invited) {
	sec, _ := identity.NewInviteSecret(w.rnd)
	pk, _ := sec.ProofKey()
	var id InviteID
	w.rnd.Read(id[:])
	upd := make([]byte, 32)
	w.rnd.Read(upd)
	return &Invite{ID: id, Scopes: scopes, Role: role, ExpiresAt: w.now.Add(ttl), UpdatePub: upd,
		Grant: sec.Grant(), ProofKey: pk.Public(), MaxUses: uses}, invited{sec, id}
}

func (w *world) invite(admin member, role Role) invited {
	b, inv := w.inviteBody([]identity.GroupID{RootGroupID(w.ws), GeneralGroupID(w.ws)}, role, 24*time.Hour, 1)
	w.must(admin.signer(), b)
	return inv
}

func (w *world) redeemBody(inv invited, m member) *RedeemInvite {
	pk, _ := inv.secret.ProofKey()
	proof, _ := pk.Sign(identity.LabelInviteRedeem, RedeemContent(w.ws, w.st.Head(), inv.id, m.user, m.dev.Public()))
	return &RedeemInvite{Invite: inv.id, User: m.user, Device: m.dev.Public(), Proof: proof}
}

// join invites and redeems a new member with role.
func (w *world) join(admin member, role Role) member {
	inv := w.invite(admin, role)
	m := w.newMember()
	w.must(m.signer(), w.redeemBody(inv, m))
	return m
}

func inSet(groups ...identity.GroupID) func(identity.GroupID) bool {
	return func(g identity.GroupID) bool {
		for _, x := range groups {
			if x == g {
				return true
			}
		}
		return false
	}
}

func (w *world) newAgent() (identity.AgentPrivate, error) {
	k, err := identity.GenerateKey[identity.Agent](w.rnd)
	if w.agents == nil {
		w.agents = map[identity.AgentID]identity.AgentPrivate{}
	}
	w.agents[identity.AgentIDOf(k.Public())] = k
	return k, err
}

// admitAgent builds admit-agent with the agent key's proof of possession
// (none if the test did not make the key with newAgent).
func (w *world) admitAgent(c *identity.DelegationCertificate) *AdmitAgent {
	b := &AdmitAgent{Cert: c, Name: "bot"}
	if k, ok := w.agents[c.AgentID()]; ok {
		b.Possession, _ = AgentPossession(w.ws, k)
	}
	return b
}

func (w *world) admitDevice(u identity.UserID, k identity.DevicePrivate) *AdmitDevice {
	pop, _ := DevicePossession(w.ws, u, k)
	return &AdmitDevice{User: u, Device: k.Public(), Possession: pop}
}

func (w *world) recoverDevice(u identity.UserID, k identity.DevicePrivate) *RecoverDevice {
	pop, _ := DevicePossession(w.ws, u, k)
	return &RecoverDevice{User: u, Device: k.Public(), Possession: pop}
}

func (w *world) admitRecovery(u identity.UserID, rk identity.RecoveryKeys) *AdmitRecovery {
	pop, _ := RecoveryPossession(w.ws, u, rk.Signature)
	return &AdmitRecovery{User: u, Recovery: rk.Signature.Public(), HPKE: rk.HPKE.PublicBytes(), Possession: pop}
}
