package roster

import (
	"crypto/ed25519"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/wire"
)

func TestLastAdminProtection(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	// The only admin can neither be demoted nor have its only device or its user revoked.
	e := w.fail(w.owner.signer(), &SetRole{User: w.owner.user, Role: RoleMember}, ErrLastAdmin)
	if e.Code() != "roster/last_admin" {
		t.Fatal(e.Code())
	}
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}}, ErrLastAdmin)
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.up()}}, ErrLastAdmin)
	// A second device of the admin keeps the admin live.
	second := member{user: w.owner.user}
	second.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(w.owner.signer(), w.admitDevice(w.owner.user, second.dev))
	w.must(second.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{w.owner.p()}})
	w.fail(second.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{second.p()}}, ErrLastAdmin)
	// Promote someone first, then demotion works.
	w.must(second.signer(), &SetRole{User: m.user, Role: RoleAdmin})
	if w.st.LiveAdmins() != 2 {
		t.Fatal(w.st.LiveAdmins())
	}
	w.must(m.signer(), &SetRole{User: w.owner.user, Role: RoleMember})
	w.fail(m.signer(), &SetRole{User: m.user, Role: RoleMember}, ErrLastAdmin)
	w.fail(m.signer(), &SetRole{User: m.user, Role: RoleAdmin}, ErrBadOperation)
	// Members cannot set roles.
	w.fail(second.signer(), &SetRole{User: second.user, Role: RoleAdmin}, ErrNotAuthorized)
}

func TestRevokedPrincipalSigning(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	n := w.join(w.owner, RoleMember)
	// A member revokes only its own principals.
	w.fail(m.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{n.p()}}, ErrNotAuthorized)
	// Several principals in one operation.
	m2 := member{user: m.user}
	m2.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(m.signer(), w.admitDevice(m.user, m2.dev))
	at := w.now.Add(-time.Minute)
	w.must(w.owner.signer(), &Revoke{RevokedAt: at, Targets: []identity.Principal{m.p(), m2.p()}})
	d, _ := w.st.Device(m.id())
	if d.RevokedAt == nil || !d.RevokedAt.Equal(identity.FromUnixMilli(identity.UnixMilli(at))) {
		t.Fatal("revoked_at not recorded")
	}
	for _, s := range []member{m, m2} {
		w.fail(s.signer(), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"}, ErrActorRevoked)
	}
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{m.p()}}, ErrAlreadyRevoked)
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{n.p(), n.p()}}, ErrBadOperation)
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now.Add(time.Hour), Targets: []identity.Principal{n.p()}}, ErrBadOperation)
	// Revoking a user revokes its devices' authority.
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{n.up()}})
	w.fail(n.signer(), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"}, ErrActorRevoked)
	// A revoked device cannot be re-admitted; unknown principals are refused.
	w.fail(w.owner.signer(), w.admitDevice(w.owner.user, m.dev), ErrDuplicate)
	stranger := w.newMember()
	w.fail(stranger.signer(), &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"}, ErrUnknownActor)
	w.fail(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{stranger.p()}}, ErrUnknownPrincipal)
	// A signature by another key under a live device's name.
	op, _ := Sign(stranger.signer(), w.st.Head(), w.now, &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"})
	forged, _ := Sign(w.owner.signer(), w.st.Head(), w.now, &RenameGroup{Group: GeneralGroupID(w.ws), Name: "x"})
	forged.Signature = op.Signature
	forged.raw = append(forged.raw[:len(forged.raw)-64], op.Signature...)
	w.failOp(forged, ErrBadSignature)
}

func TestInviteRules(t *testing.T) {
	w := bootstrapped(t)
	root, general := RootGroupID(w.ws), GeneralGroupID(w.ws)
	private := w.channel(w.owner, AdmissionExplicit, "private")
	design := w.channel(w.owner, AdmissionParent, "design")

	// Scopes: the root always, never a closed group.
	b, _ := w.inviteBody([]identity.GroupID{general}, RoleMember, time.Hour, 1)
	w.fail(w.owner.signer(), b, ErrInviteScope)
	b, _ = w.inviteBody([]identity.GroupID{root, private}, RoleMember, time.Hour, 1)
	e := w.fail(w.owner.signer(), b, ErrInviteClosedScope)
	if e.Code() != "roster/invite_closed_scope" {
		t.Fatal(e.Code())
	}
	b, _ = w.inviteBody([]identity.GroupID{root, root}, RoleMember, time.Hour, 1)
	w.fail(w.owner.signer(), b, ErrInviteScope)
	b, _ = w.inviteBody([]identity.GroupID{root, w.randomGroup()}, RoleMember, time.Hour, 1)
	w.fail(w.owner.signer(), b, ErrUnknownGroup)
	b, _ = w.inviteBody([]identity.GroupID{root}, RoleMember, 0, 1)
	w.fail(w.owner.signer(), b, ErrInviteExpired)
	b, _ = w.inviteBody([]identity.GroupID{root}, RoleMember, time.Hour, 0)
	w.fail(w.owner.signer(), b, ErrBadOperation)
	// Members cannot invite.
	m := w.join(w.owner, RoleMember)
	b, _ = w.inviteBody([]identity.GroupID{root}, RoleMember, time.Hour, 1)
	w.fail(m.signer(), b, ErrNotAuthorized)

	// A good invite: redeemed once, then used up.
	b, inv := w.inviteBody([]identity.GroupID{root, general, design}, RoleAdmin, time.Hour, 1)
	w.must(w.owner.signer(), b)
	joiner := w.newMember()
	w.must(joiner.signer(), w.redeemBody(inv, joiner))
	if u, _ := w.st.User(joiner.user); u.Role != RoleAdmin {
		t.Fatal("invite role not applied")
	}
	again := w.newMember()
	w.fail(again.signer(), w.redeemBody(inv, again), ErrInviteUsed)

	// Expired.
	b, inv = w.inviteBody([]identity.GroupID{root}, RoleMember, time.Hour, 5)
	w.must(w.owner.signer(), b)
	w.now = w.now.Add(time.Hour)
	late := w.newMember()
	e = w.fail(late.signer(), w.redeemBody(inv, late), ErrInviteExpired)
	if e.Code() != "roster/invite_expired" {
		t.Fatal(e.Code())
	}

	// Wrong secret, a proof for another position, another device's proof.
	b, inv = w.inviteBody([]identity.GroupID{root}, RoleMember, time.Hour, 5)
	w.must(w.owner.signer(), b)
	x := w.newMember()
	wrong := inv
	wrong.secret, _ = identity.NewInviteSecret(w.rnd)
	w.fail(x.signer(), w.redeemBody(wrong, x), ErrInviteProof)
	rb := w.redeemBody(inv, x)
	w.must(w.owner.signer(), &RenameGroup{Group: general, Name: "moved"})
	w.fail(x.signer(), rb, ErrInviteProof) // bound to the old head
	y := w.newMember()
	rb = w.redeemBody(inv, x)
	rb.Device = y.dev.Public()
	w.fail(y.signer(), rb, ErrInviteProof)
	// An existing user or device cannot redeem again.
	rb = w.redeemBody(inv, member{user: m.user, dev: x.dev})
	w.fail(x.signer(), rb, ErrDuplicate)

	// Revoked, and revoked with its creator.
	w.must(w.owner.signer(), &RevokeInvite{Invite: inv.id})
	w.fail(x.signer(), w.redeemBody(inv, x), ErrInviteRevoked)
	w.fail(w.owner.signer(), &RevokeInvite{Invite: inv.id}, ErrInviteRevoked)
	w.fail(w.owner.signer(), &RevokeInvite{Invite: InviteID{1}}, ErrUnknownInvite)
	b, inv = w.inviteBody([]identity.GroupID{root}, RoleMember, time.Hour, 5)
	w.must(joiner.signer(), b)
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{joiner.p()}})
	w.fail(x.signer(), w.redeemBody(inv, x), ErrInviteRevoked)
}

func TestAgents(t *testing.T) {
	w := bootstrapped(t)
	activity, general := ActivityGroupID(w.ws), GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleMember)
	agent, _ := w.newAgent()
	aid := identity.AgentIDOf(agent.Public())
	cert, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity}, w.now, w.now.Add(time.Hour))
	// Only the issuing device admits its certificate.
	w.fail(w.owner.signer(), w.admitAgent(cert), ErrNotAuthorized)
	w.must(m.signer(), w.admitAgent(cert))
	w.fail(m.signer(), w.admitAgent(cert), ErrDuplicate)
	// A certificate naming an unknown group, and an expired one.
	a2, _ := w.newAgent()
	bad, _ := identity.IssueDelegation(m.dev, a2.Public(), []identity.GroupID{w.randomGroup()}, w.now, w.now.Add(time.Hour))
	w.fail(m.signer(), w.admitAgent(bad), ErrUnknownGroup)
	old, _ := identity.IssueDelegation(m.dev, a2.Public(), []identity.GroupID{activity}, w.now.Add(-2*time.Hour), w.now.Add(-time.Hour))
	w.fail(m.signer(), w.admitAgent(old), ErrDelegation)

	// Agents sign nothing but sub-delegations, and never self-join.
	as := AgentSigner(agent)
	w.fail(as, &RenameGroup{Group: activity, Name: "x"}, ErrNotAuthorized)
	sub, _ := identity.SubDelegate(agent, cert, a2.Public(), []identity.GroupID{activity}, w.now, w.now.Add(30*time.Minute))
	w.fail(m.signer(), w.admitAgent(sub), ErrNotAuthorized)
	w.must(as, w.admitAgent(sub))

	all := inSet(RootGroupID(w.ws))
	if j := w.st.Entitlement(activity, identity.AgentPrincipal(aid), w.now, all); j != JoinAgentAdd {
		t.Fatalf("scoped group: %v", j)
	}
	if j := w.st.Entitlement(general, identity.AgentPrincipal(aid), w.now, all); j != NotEntitled {
		t.Fatalf("unscoped parent group: %v", j)
	}
	if got := w.st.SelfJoinGroups(identity.DeviceID(aid), all); len(got) != 0 {
		t.Fatal("an agent id has a self-join set")
	}
	if got := w.st.AgentGroups(aid, w.now); len(got) != 1 || got[0] != activity {
		t.Fatal(got)
	}
	// Expiry (injected time) ends the entitlement; so does revoking the issuing device.
	if w.st.AgentLive(aid, w.now.Add(2*time.Hour)) {
		t.Fatal("expired agent live")
	}
	m2 := member{user: m.user}
	m2.dev, _ = identity.GenerateKey[identity.Device](w.rnd)
	w.must(m.signer(), w.admitDevice(m.user, m2.dev))
	w.must(m2.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{m.p()}})
	if w.st.AgentLive(aid, w.now) || w.st.AgentLive(identity.AgentIDOf(a2.Public()), w.now) {
		t.Fatal("agent of a revoked device still live")
	}
	w.fail(as, w.admitAgent(sub), ErrActorRevoked)
}

func TestEntitlement(t *testing.T) {
	w := bootstrapped(t)
	root, general, activity := RootGroupID(w.ws), GeneralGroupID(w.ws), ActivityGroupID(w.ws)
	m := w.join(w.owner, RoleMember)
	design := w.channel(w.owner, AdmissionParent, "design")
	private := w.channel(w.owner, AdmissionExplicit, "private")
	gone := w.channel(w.owner, AdmissionParent, "gone")
	w.must(w.owner.signer(), &DeleteGroup{Group: gone})

	// Not in the root yet: only the root, by external commit; nothing to self-join.
	if got := w.st.SelfJoinGroups(m.id(), inSet()); len(got) != 0 {
		t.Fatal(got)
	}
	if j := w.st.Entitlement(root, m.p(), w.now, inSet()); j != JoinRootExternal {
		t.Fatal(j)
	}
	// In the root: every parent channel, in sidebar order; not explicit ones, not deleted ones.
	got := w.st.SelfJoinGroups(m.id(), inSet(root))
	want := []identity.GroupID{general, activity, design}
	if len(got) != len(want) {
		t.Fatalf("%d groups", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("group %d", i)
		}
	}
	if got := w.st.SelfJoinGroups(m.id(), inSet(root, general)); len(got) != 2 {
		t.Fatal("already-joined group listed")
	}
	if j := w.st.Entitlement(private, m.p(), w.now, inSet(root)); j != JoinMemberAdd {
		t.Fatal(j)
	}
	if j := w.st.Entitlement(design, m.p(), w.now, inSet(root)); j != JoinSelf {
		t.Fatal(j)
	}
	if j := w.st.Entitlement(gone, m.p(), w.now, inSet(root)); j != NotEntitled {
		t.Fatal(j)
	}
	// A channel created later is in the set on the next computation (spec "What this fixes").
	later := w.channel(w.owner, AdmissionParent, "later")
	if got := w.st.SelfJoinGroups(m.id(), inSet(root, general, activity, design)); len(got) != 1 || got[0] != later {
		t.Fatal("new channel not entitled")
	}
	// Revoked: nothing, everywhere.
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{m.p()}})
	if got := w.st.SelfJoinGroups(m.id(), inSet(root)); got != nil {
		t.Fatal("revoked device entitled")
	}
	for _, g := range []identity.GroupID{root, general, private} {
		if j := w.st.Entitlement(g, m.p(), w.now, inSet(root)); j != NotEntitled {
			t.Fatal(j)
		}
	}
}

func TestPendingAdds(t *testing.T) {
	w := bootstrapped(t)
	private := w.channel(w.owner, AdmissionExplicit, "private")
	m := w.join(w.owner, RoleMember)
	w.fail(w.owner.signer(), &PendingAdd{Group: GeneralGroupID(w.ws), Devices: []identity.DeviceID{m.id()}}, ErrBadOperation)
	w.must(w.owner.signer(), &PendingAdd{Group: private, Devices: []identity.DeviceID{m.id()}})
	w.fail(w.owner.signer(), &PendingAdd{Group: private, Devices: []identity.DeviceID{m.id()}}, ErrDuplicate)
	g, _ := w.st.Group(private)
	if len(g.Pending) != 1 || g.Pending[0].AddedBy != w.owner.id() {
		t.Fatal(g.Pending)
	}
	w.must(m.signer(), &PendingResolve{Group: private, Device: m.id(), Completed: true})
	w.fail(m.signer(), &PendingResolve{Group: private, Device: m.id()}, ErrNotPending)
	// At most 64 per group.
	var devs []identity.DeviceID
	for i := 0; i < MaxPendingPerGroup; i++ {
		d, _ := identity.GenerateKey[identity.Device](w.rnd)
		w.must(w.owner.signer(), w.admitDevice(m.user, d))
		devs = append(devs, identity.DeviceIDOf(d.Public()))
	}
	w.must(w.owner.signer(), &PendingAdd{Group: private, Devices: devs[:MaxPendingPerGroup]})
	w.fail(w.owner.signer(), &PendingAdd{Group: private, Devices: []identity.DeviceID{m.id()}}, ErrLimitPending)
	w.fail(w.owner.signer(), &PendingAdd{Group: private, Devices: []identity.DeviceID{{1}}}, ErrLimitPending)
}

func TestRetention(t *testing.T) {
	w := bootstrapped(t)
	general := GeneralGroupID(w.ws)
	// One admin: 1 of 1, active at once.
	w.must(w.owner.signer(), &RetentionPolicy{Group: general, MediaWindow: 180 * 24 * time.Hour})
	if g, _ := w.st.Group(general); g.Retention == nil || g.Retention.MediaWindow != 180*24*time.Hour {
		t.Fatal("1-of-1 policy not active")
	}
	// Two admins: 2 of n.
	m := w.join(w.owner, RoleAdmin)
	p := w.must(w.owner.signer(), &RetentionPolicy{Group: general, TextWindow: 30 * 24 * time.Hour})
	if g, _ := w.st.Group(general); g.Retention.Proposal == p.Head() {
		t.Fatal("activated with one of two admins")
	}
	w.fail(w.owner.signer(), &RetentionApprove{Proposal: p.Head()}, ErrDuplicate)
	n := w.join(w.owner, RoleMember)
	w.fail(n.signer(), &RetentionApprove{Proposal: p.Head()}, ErrNotAuthorized)
	w.fail(n.signer(), &RetentionPolicy{Group: general}, ErrNotAuthorized)
	w.must(m.signer(), &RetentionApprove{Proposal: p.Head()})
	if g, _ := w.st.Group(general); g.Retention.Proposal != p.Head() || g.Retention.TextWindow != 30*24*time.Hour {
		t.Fatal("2-of-2 policy not active")
	}
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head()}, ErrBadRetention)
	w.fail(m.signer(), &RetentionApprove{Proposal: Head{1}}, ErrBadRetention)
}

// Issue 14: each admin's retention operation may carry its device's
// signature of the relay-visible policy; the roster keeps them for the
// admin who publishes, and refuses one by another device or over other
// bytes (an admin cannot slip a second admin's signature into the policy).
func TestRetentionRelayApprovals(t *testing.T) {
	w := bootstrapped(t)
	general := GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleAdmin)
	ed := func(x member) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(x.dev.Seed()) }
	text := 30 * 24 * time.Hour
	approval := func(x member, at time.Time, text time.Duration) *wire.Approval {
		rp := RelayPolicy(general, at, text, 0)
		rp.Approve(ed(x))
		return &rp.Approvals[0]
	}
	w.fail(w.owner.signer(), &RetentionPolicy{Group: general, TextWindow: text, Relay: approval(m, w.now, text)}, ErrBadRetention)
	w.fail(w.owner.signer(), &RetentionPolicy{Group: general, TextWindow: text, Relay: approval(w.owner, w.now, 2*text)}, ErrBadRetention)
	at := w.now
	p := w.must(w.owner.signer(), &RetentionPolicy{Group: general, TextWindow: text, Relay: approval(w.owner, at, text)})
	if ps := w.st.PendingRetentions(); len(ps) != 1 || ps[0].Proposal != p.Head() || ps[0].Threshold != 2 {
		t.Fatalf("pending: %+v", ps)
	}
	w.fail(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, w.now, text)}, ErrBadRetention)
	w.must(m.signer(), &RetentionApprove{Proposal: p.Head(), Relay: approval(m, at, text)})
	g, _ := w.st.Group(general)
	if g.Retention == nil || len(g.Retention.Approvals) != 2 || !g.Retention.ProposedAt.Equal(at) || len(w.st.PendingRetentions()) != 0 {
		t.Fatalf("active: %+v", g.Retention)
	}
	rp := RelayPolicy(general, at, text, 0)
	rp.Approvals = g.Retention.Approvals
	for _, a := range rp.Approvals {
		if wire.Verify(a.DeviceKey, wire.LabelRetentionPolicy, rp.TBS(), a.Signature) != nil {
			t.Fatal("a kept approval does not verify over the relay policy")
		}
	}
}

func TestRecoveryPrincipal(t *testing.T) {
	w := bootstrapped(t)
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	body := w.admitRecovery(w.owner.user, rk)
	m := w.join(w.owner, RoleMember)
	w.fail(m.signer(), body, ErrNotAuthorized)
	w.must(w.owner.signer(), body)
	ph2, _ := identity.NewRecoveryPhrase(w.rnd)
	rk2, _ := identity.DeriveRecoveryKeys(ph2)
	body2 := w.admitRecovery(w.owner.user, rk2)
	w.fail(w.owner.signer(), body2, ErrDuplicate)
	rid := identity.RecoveryIDOf(rk.Signature.Public())
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{identity.RecoveryPrincipal(rid)}})
	w.must(w.owner.signer(), body2) // rotation: revoke, then register the new phrase's principal
	if u, _ := w.st.User(w.owner.user); len(u.Recovery) != 2 {
		t.Fatal(u.Recovery)
	}
}

func TestPossessionProofs(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	// Admitting a key without its holder's proof, with a proof for another
	// user, or with a proof by another key is refused.
	k, _ := identity.GenerateKey[identity.Device](w.rnd)
	other, _ := identity.GenerateKey[identity.Device](w.rnd)
	b := w.admitDevice(m.user, k)
	b.Possession = nil
	w.fail(m.signer(), b, ErrPossession)
	e := w.fail(w.owner.signer(), &AdmitDevice{User: w.owner.user, Device: k.Public(), Possession: w.admitDevice(m.user, k).Possession}, ErrPossession)
	if e.Code() != "roster/possession" {
		t.Fatal(e.Code())
	}
	w.fail(m.signer(), &AdmitDevice{User: m.user, Device: k.Public(), Possession: w.admitDevice(m.user, other).Possession}, ErrPossession)
	w.must(m.signer(), w.admitDevice(m.user, k))

	agent, _ := identity.GenerateKey[identity.Agent](w.rnd) // not registered: no proof
	cert, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{ActivityGroupID(w.ws)}, w.now, w.now.Add(time.Hour))
	w.fail(m.signer(), w.admitAgent(cert), ErrPossession)
	pop, _ := AgentPossession(identity.WorkspaceID{1}, agent) // proof for another workspace
	w.fail(m.signer(), &AdmitAgent{Cert: cert, Possession: pop, Name: "bot"}, ErrPossession)
	pop, _ = AgentPossession(w.ws, agent)
	w.fail(m.signer(), &AdmitAgent{Cert: cert, Possession: pop}, ErrBadName) // no name
	w.must(m.signer(), &AdmitAgent{Cert: cert, Possession: pop, Name: "bot"})

	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	rb := w.admitRecovery(m.user, rk)
	rb.Possession[0] ^= 1
	w.fail(m.signer(), rb, ErrPossession)
}
