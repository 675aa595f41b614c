package roster

import (
	"slices"
	"testing"
	"time"

	"weald/backend/identity"
)

func TestRecoveryProbation(t *testing.T) {
	w := bootstrapped(t)
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(w.owner.signer(), w.admitRecovery(w.owner.user, rk))
	// The phrase, parsed again on a new machine, signs for the same principal.
	again, err := identity.ParseRecoveryPhrase(joinWords(ph.Words()))
	if err != nil {
		t.Fatal(err)
	}
	rk2, _ := identity.DeriveRecoveryKeys(again)
	rs := RecoverySigner(rk2.Signature)

	m := w.join(w.owner, RoleMember)
	w.fail(rs, w.recoverDevice(m.user, w.newMember().dev), ErrNotAuthorized)
	w.fail(rs, &SetRole{User: w.owner.user, Role: RoleAdmin}, ErrNotAuthorized)
	w.fail(w.owner.signer(), w.recoverDevice(w.owner.user, w.newMember().dev), ErrNotAuthorized)

	rec := member{user: w.owner.user}
	rec.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(rs, w.recoverDevice(w.owner.user, rec.dev))
	if d, _ := w.st.Device(rec.id()); !d.Probation {
		t.Fatal("recovered device not on probation")
	}
	// On probation: reads and writes (channels), but no admit, revoke, invite or roles.
	w.channel(rec, AdmissionParent, "still works")
	w.fail(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}}, ErrProbation)
	w.fail(rec.signer(), &SetRole{User: m.user, Role: RoleAdmin}, ErrProbation)
	ib, _ := w.inviteBody([]identity.GroupID{RootGroupID(w.ws)}, RoleMember, time.Hour, 1)
	w.fail(rec.signer(), ib, ErrProbation)
	w.fail(rec.signer(), w.admitDevice(w.owner.user, w.newMember().dev), ErrProbation)
	// A probationary device does not count as an admin: the old one is still the last.
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}}, ErrLastAdmin)
	// Approval by an admin admitted later is refused; by a pre-existing one accepted.
	late := w.join(w.owner, RoleAdmin)
	w.fail(late.signer(), &ApproveDevice{Device: rec.id()}, ErrNotAuthorized)
	w.fail(m.signer(), &ApproveDevice{Device: rec.id()}, ErrNotAuthorized)
	w.must(w.owner.signer(), &ApproveDevice{Device: rec.id()})
	w.fail(w.owner.signer(), &ApproveDevice{Device: rec.id()}, ErrBadOperation)
	// Now the recovered device revokes the lost one, as the recovery flow's last step.
	w.must(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}})
	// A revoked recovery principal signs nothing.
	w.must(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{identity.RecoveryPrincipal(identity.RecoveryIDOf(rk.Signature.Public()))}})
	w.fail(rs, w.recoverDevice(w.owner.user, w.newMember().dev), ErrActorRevoked)
}

func joinWords(ws []string) string {
	s := ""
	for i, w := range ws {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}

func TestRemovalTargets(t *testing.T) {
	w := bootstrapped(t)
	// m joins with a multi-use invite, which stays live behind it.
	ib, multi := w.inviteBody([]identity.GroupID{RootGroupID(w.ws)}, RoleMember, 24*time.Hour, 5)
	w.must(w.owner.signer(), ib)
	m := w.newMember()
	w.must(m.signer(), w.redeemBody(multi, m))
	single := w.join(w.owner, RoleMember) // a used-up single-use invite is not listed
	m2 := member{user: m.user}
	m2.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(m.signer(), w.admitDevice(m.user, m2.dev))
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(m.signer(), w.admitRecovery(m.user, rk))
	agent, _ := w.newAgent()
	sub, _ := w.newAgent()
	act := []identity.GroupID{ActivityGroupID(w.ws)}
	cert, _ := identity.IssueDelegation(m2.dev, agent.Public(), act, w.now, w.now.Add(time.Hour))
	w.must(m2.signer(), w.admitAgent(cert))
	sc, err := identity.SubDelegate(agent, cert, sub.Public(), act, w.now, cert.Expiry)
	if err != nil {
		t.Fatal(err)
	}
	w.must(AgentSigner(agent), w.admitAgent(sc))
	// Someone else's agent is not a target.
	other, _ := w.newAgent()
	oc, _ := identity.IssueDelegation(w.owner.dev, other.Public(), act, w.now, w.now.Add(time.Hour))
	w.must(w.owner.signer(), w.admitAgent(oc))
	w.must(w.owner.signer(), &SetRole{User: m.user, Role: RoleAdmin})
	inv := w.invite(m, RoleMember)

	targets := w.st.RemovalTargets(m.user)
	want := []identity.Principal{m.up(), m.p(), m2.p(), identity.AgentPrincipal(identity.AgentIDOf(agent.Public())),
		identity.AgentPrincipal(identity.AgentIDOf(sub.Public())), identity.RecoveryPrincipal(identity.RecoveryIDOf(rk.Signature.Public()))}
	if len(targets) != len(want) {
		t.Fatalf("%d targets", len(targets))
	}
	for _, p := range want {
		if !slices.Contains(targets, p) {
			t.Fatalf("missing %s", p.ShortString())
		}
	}
	if got := w.st.InvitesCreatedBy(m.user); len(got) != 1 || got[0] != inv.id {
		t.Fatal(got)
	}
	if len(w.st.RemovalInvites(single.user)) != 0 {
		t.Fatal("used-up invite listed")
	}
	if got := w.st.RemovalInvites(m.user); len(got) != 2 || got[0] != m.invitedBy(w) || got[1] != inv.id {
		t.Fatalf("removal invites %v", got)
	}
	// One revoke operation removes them all; afterwards nothing is left.
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: targets})
	for _, id := range w.st.RemovalInvites(m.user) {
		w.must(w.owner.signer(), &RevokeInvite{Invite: id})
	}
	if len(w.st.RemovalTargets(m.user)) != 0 || len(w.st.RemovalInvites(m.user)) != 0 {
		t.Fatal("targets left after removal")
	}
	if w.st.AgentLive(identity.AgentIDOf(sub.Public()), w.now) {
		t.Fatal("sub-agent live after removal")
	}
}

func (m member) invitedBy(w *world) InviteID {
	d, _ := w.st.Device(m.id())
	return *d.Invite
}

// The only admin lost every device: nobody else can approve, so the
// recovery principal ends the probation itself, ProbationWait after its
// recover-device, and only then may the device revoke the old one.
func TestRecoverySoloAdminSelfApproval(t *testing.T) {
	w, rk, rs := ownerRecoverable(t)
	m := w.join(w.owner, RoleMember) // a member cannot approve
	rec := w.recoverOwner(rs)
	if d, _ := w.st.Device(rec.id()); d.RecoveredBy != identity.RecoveryIDOf(rk.Signature.Public()) {
		t.Fatal("recover-device did not record its recovery principal")
	}
	// Before the wait, refused; the recovered device may not approve itself, nor revoke the old one.
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrProbation)
	w.fail(rec.signer(), &ApproveDevice{Device: rec.id()}, ErrProbation)
	w.fail(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}}, ErrProbation)
	w.now = w.now.Add(ProbationWait - 10*time.Second)
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrProbation)
	// Another device of the user is no approver, nor is another user's recovery principal.
	w.fail(rs, &ApproveDevice{Device: m.id()}, ErrBadOperation)
	w.now = w.now.Add(time.Minute)
	other, _ := identity.NewRecoveryPhrase(w.rnd)
	ork, _ := identity.DeriveRecoveryKeys(other)
	w.must(m.signer(), w.admitRecovery(m.user, ork))
	w.fail(RecoverySigner(ork.Signature), &ApproveDevice{Device: rec.id()}, ErrNotAuthorized)
	w.must(rs, &ApproveDevice{Device: rec.id()})
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrBadOperation) // replayed: not on probation any more
	w.must(rec.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}})
	if !w.st.IsAdmin(rec.id()) {
		t.Fatal("the approved device of the only admin is no admin")
	}
}

// With another live admin, the recovery principal never approves: the
// admin does. A device the old one revoked in time stays revoked.
func TestRecoverySelfApprovalNeedsNoOtherAdmin(t *testing.T) {
	w, _, rs := ownerRecoverable(t)
	w.join(w.owner, RoleAdmin)
	rec := w.recoverOwner(rs)
	w.now = w.now.Add(ProbationWait + time.Hour)
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrNotAuthorized)
	// The owner still holds the old device: it revokes the recovered one (a leaked phrase).
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{identity.DevicePrincipal(rec.id())}})
	w.fail(rs, &ApproveDevice{Device: rec.id()}, ErrAlreadyRevoked)
}

// ownerRecoverable is a bootstrapped workspace whose owner has a recovery principal.
func ownerRecoverable(t *testing.T) (*world, identity.RecoveryKeys, Signer) {
	w := bootstrapped(t)
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(w.owner.signer(), w.admitRecovery(w.owner.user, rk))
	return w, rk, RecoverySigner(rk.Signature)
}

// recoverOwner admits a fresh device of the owner with recover-device.
func (w *world) recoverOwner(rs Signer) member {
	rec := member{user: w.owner.user}
	rec.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(rs, w.recoverDevice(w.owner.user, rec.dev))
	return rec
}
