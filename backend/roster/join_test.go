package roster

import (
	"errors"
	"testing"
	"time"

	"weald/backend/identity"
)

func TestCheckExternalJoin(t *testing.T) {
	w := bootstrapped(t)
	root, general := RootGroupID(w.ws), GeneralGroupID(w.ws)
	m := w.join(w.owner, RoleMember)
	private := w.channel(w.owner, AdmissionExplicit, "private")
	gp, _ := w.st.Group(general)
	rp, _ := w.st.Group(root)
	inRoot := inSet(root)

	if err := w.st.CheckExternalJoin(root, m.p(), rp.Policy.Hash(), w.now, inSet()); err != nil {
		t.Fatal(err)
	}
	if err := w.st.CheckExternalJoin(general, m.p(), gp.Policy.Hash(), w.now, inRoot); err != nil {
		t.Fatal(err)
	}
	// Not in the root yet; a wrong policy hash; a key not in the roster; an explicit group.
	cases := []struct {
		g    identity.GroupID
		p    identity.Principal
		hash [32]byte
		in   func(identity.GroupID) bool
		want error
	}{
		{general, m.p(), gp.Policy.Hash(), inSet(), ErrNotEntitled},
		{general, m.p(), rp.Policy.Hash(), inRoot, ErrPolicyHash},
		{general, w.newMember().p(), gp.Policy.Hash(), inRoot, ErrNotEntitled},
		{private, m.p(), func() [32]byte { g, _ := w.st.Group(private); return g.Policy.Hash() }(), inRoot, ErrNotEntitled},
		{w.randomGroup(), m.p(), gp.Policy.Hash(), inRoot, ErrUnknownGroup},
	}
	for i, c := range cases {
		if err := w.st.CheckExternalJoin(c.g, c.p, c.hash, w.now, c.in); !errors.Is(err, c.want) {
			t.Fatalf("case %d: %v, want %v", i, err, c.want)
		}
	}
	// An agent's external commit, even to a group its certificate names.
	agent, _ := w.newAgent()
	aid := identity.AgentIDOf(agent.Public())
	cert, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{general}, w.now, w.now.Add(time.Hour))
	w.must(m.signer(), w.admitAgent(cert))
	if err := w.st.CheckExternalJoin(general, identity.AgentPrincipal(aid), gp.Policy.Hash(), w.now, inRoot); !errors.Is(err, ErrAgentExternal) {
		t.Fatal(err)
	}
	// A revoked device.
	w.must(w.owner.signer(), &Revoke{RevokedAt: w.now, Targets: []identity.Principal{m.p()}})
	if err := w.st.CheckExternalJoin(general, m.p(), gp.Policy.Hash(), w.now, inRoot); !errors.Is(err, ErrNotEntitled) {
		t.Fatal(err)
	}
}

func TestCheckAgentAdd(t *testing.T) {
	w := bootstrapped(t)
	general, activity := GeneralGroupID(w.ws), ActivityGroupID(w.ws)
	m := w.join(w.owner, RoleMember)
	agent, _ := w.newAgent()
	aid := identity.AgentIDOf(agent.Public())
	cert, _ := identity.IssueDelegation(m.dev, agent.Public(), []identity.GroupID{activity}, w.now, w.now.Add(time.Hour))
	w.must(m.signer(), w.admitAgent(cert))
	if err := w.st.CheckAgentAdd(m.id(), aid, activity, w.now); err != nil {
		t.Fatal(err)
	}
	if err := w.st.CheckAgentAdd(w.owner.id(), aid, activity, w.now); !errors.Is(err, ErrAgentAdder) {
		t.Fatalf("add by another device: %v", err)
	}
	if err := w.st.CheckAgentAdd(m.id(), aid, general, w.now); !errors.Is(err, ErrNotEntitled) {
		t.Fatalf("group outside the scope: %v", err)
	}
	if err := w.st.CheckAgentAdd(m.id(), aid, activity, w.now.Add(time.Hour)); !errors.Is(err, ErrNotEntitled) {
		t.Fatalf("expired certificate: %v", err)
	}
	if err := w.st.CheckAgentAdd(m.id(), identity.AgentID{1}, activity, w.now); !errors.Is(err, ErrUnknownPrincipal) {
		t.Fatalf("unknown agent: %v", err)
	}
}
