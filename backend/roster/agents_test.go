package roster

import (
	"testing"
	"time"

	"weald/backend/identity"
)

func TestAgentRenewalAndScopeChange(t *testing.T) {
	w := bootstrapped(t)
	activity, general := ActivityGroupID(w.ws), GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleMember)
	agent, _ := w.newAgent()
	aid := identity.AgentIDOf(agent.Public())
	c1, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity}, w.now, w.now.Add(time.Hour))
	w.must(m.signer(), w.admitAgent(c1))

	// Renewal with the same scope: same agent, new window.
	c2, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity}, w.now, w.now.Add(48*time.Hour))
	w.must(m.signer(), w.admitAgent(c2))
	a, _ := w.st.Agent(aid)
	if a.Renewed == nil || !a.Cert.Expiry.Equal(c2.Expiry) {
		t.Fatal("renewal not recorded")
	}
	if !w.st.AgentLive(aid, w.now.Add(2*time.Hour)) {
		t.Fatal("renewed agent not live after the first certificate's expiry")
	}
	// Widening the scope is a new certificate from the same device.
	c3, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity, general}, w.now, w.now.Add(48*time.Hour))
	if j := w.st.Entitlement(general, identity.AgentPrincipal(aid), w.now, inSet()); j != NotEntitled {
		t.Fatal(j)
	}
	// ...not from another device.
	c3o, _ := identity.IssueDelegation(w.owner.dev, agent.Public(), []identity.GroupID{activity, general}, w.now, w.now.Add(48*time.Hour))
	w.fail(w.owner.signer(), w.admitAgent(c3o), ErrNotAuthorized)
	w.must(m.signer(), w.admitAgent(c3))
	if j := w.st.Entitlement(general, identity.AgentPrincipal(aid), w.now, inSet()); j != JoinAgentAdd {
		t.Fatal(j)
	}
	// A revoked agent is not renewed.
	w.must(m.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{identity.AgentPrincipal(aid)}})
	c4, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity}, w.now, w.now.Add(72*time.Hour))
	w.fail(m.signer(), w.admitAgent(c4), ErrAlreadyRevoked)
}

func TestAccessKeys(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	gone := w.join(w.owner, RoleMember)
	agent, _ := w.newAgent()
	c, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{ActivityGroupID(w.ws)}, w.now, w.now.Add(time.Hour))
	w.must(m.signer(), w.admitAgent(c))
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(m.signer(), w.admitRecovery(m.user, rk))
	live := w.invite(w.owner, RoleMember)
	dead := w.invite(w.owner, RoleMember)
	w.must(w.owner.signer(), &RevokeInvite{Invite: dead.id})
	// An invite whose grant is no prime-order key (a hash, as invites held
	// before grants were keys; here the identity point) stays in the roster
	// but never reaches the access set, which the relay would refuse.
	old, _ := w.inviteBody([]identity.GroupID{RootGroupID(w.ws)}, RoleMember, 24*time.Hour, 1)
	old.Grant = [32]byte{1}
	w.must(w.owner.signer(), old)
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: w.st.RemovalTargets(gone.user)})

	k := w.st.AccessKeys(w.now)
	if len(k.Devices) != 2 || !k.Devices[0].Equal(w.owner.dev.Public()) || !k.Devices[1].Equal(m.dev.Public()) {
		t.Fatalf("devices %v", k.Devices)
	}
	if len(k.Agents) != 1 || len(k.Recoveries) != 1 || len(k.Grants) != 1 || k.Grants[0] != live.secret.Grant() {
		t.Fatalf("agents %d recoveries %d grants %d", len(k.Agents), len(k.Recoveries), len(k.Grants))
	}
	// Later, the agent's certificate and the invite have expired.
	k = w.st.AccessKeys(w.now.Add(25 * time.Hour))
	if len(k.Agents) != 0 || len(k.Grants) != 0 {
		t.Fatal("expired agent or invite still has access")
	}
}
