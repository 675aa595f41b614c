package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/internal/hostilerelay"
	"weald/backend/mls"
	"weald/backend/mls/tree"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Attacks of issue 11 finding 1, from the attacker's side: a relay (or a
// malicious member) tries to put a leaf into a group that the roster does
// not bind to a live device. docs/security.md section 1 lists them.

// hostileWorkspace is Acme on a hostile relay: dana (creator), and sam and
// lee invited into #general.
func hostileWorkspace(t *testing.T, seed byte) (h *hostilerelay.Relay, dana, sam, lee *Engine) {
	t.Helper()
	h = hostilerelay.Start(t)
	r := &testRelay{URL: h.URL, svc: h.Service}
	ctx := testCtx(t)
	dana = createWorkspace(t, r, seed)
	for i, name := range []string{"sam", "lee"} {
		link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		e := joinWith(t, r, link, name, seed+1+byte(i))
		if name == "sam" {
			sam = e
		} else {
			lee = e
		}
	}
	for _, e := range []*Engine{dana, sam, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return h, dana, sam, lee
}

// relayKeyPackage is a key package the attacker holds the private keys of,
// with a basic credential naming dev and no binding (none can be made
// without dev's roster key).
func relayKeyPackage(t *testing.T, dev identity.DeviceID, seed byte) *mls.KeyPackageBundle {
	t.Helper()
	kp, err := mls.GenerateKeyPackage(&mls.Config{Rand: seededRand(seed)}, suiteID, tree.BasicCredential(dev[:]))
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// unchecked runs fn with e's authentication hook switched off: e plays a
// malicious member (or one whose checks were bypassed) that commits what
// an honest client refuses.
func unchecked(e *Engine, fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	saved := e.mlsCfg.Credential
	e.mlsCfg.Credential = nil
	defer func() { e.mlsCfg.Credential = saved }()
	fn()
}

// groupView is what a client holds of a group: its epoch and leaf count.
func groupView(e *Engine, id identity.GroupID) (epoch uint64, leaves int, member bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	g := e.groups[id]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return 0, 0, false
	}
	return g.mls.Epoch(), len(g.mls.Members()), true
}

// lastAlert returns e's newest alert with code, failing if there is none
// beyond the first `before` alerts.
func lastAlert(t *testing.T, e *Engine, before int, code string) Alert {
	t.Helper()
	as := e.Status().Alerts
	for i := len(as) - 1; i >= before; i-- {
		if as[i].Code == code {
			return as[i]
		}
	}
	t.Fatalf("no %s alert after the first %d: %+v", code, before, as)
	return Alert{}
}

// logLen is the number of envelopes the relay holds in a group's log.
func logLen(t *testing.T, h *hostilerelay.Relay, ws identity.WorkspaceID, id identity.GroupID) int {
	t.Helper()
	envs, err := h.Service.Fetch(testCtx(t), wire.ID(ws), wire.ID(id), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return len(envs.Envelopes)
}

// TestRelaySubstitutedKeyPackageIsRefused (attack a): the relay answers
// the claim of Sam's key package with its own (a credential naming Sam,
// no binding), or with Lee's genuine one. Dana's client refuses before
// committing: no commit, no Welcome, the relay opens nothing. On the main
// this started from, the relay's key package was committed and the relay
// joined #secret from the Welcome.
func TestRelaySubstitutedKeyPackageIsRefused(t *testing.T) {
	t.Parallel()
	h, dana, sam, lee := hostileWorkspace(t, 70)
	ctx := testCtx(t)
	ch, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit)
	if err != nil {
		t.Fatal(err)
	}
	secret := identity.GroupID(mustHex(t, ch.Group))
	if _, err := dana.Send(ctx, "secret", "for dana only"); err != nil {
		t.Fatal(err)
	}
	relayKP := relayKeyPackage(t, sam.DeviceID(), 71)
	lee.mu.Lock()
	leeKP, err := lee.newKeyPackage()
	lee.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for i, kp := range [][]byte{relayKP.Message(), leeKP.Message()} {
		epoch, leaves, _ := groupView(dana, secret)
		logBefore := logLen(t, h, dana.wsID(), secret)
		alerts := len(dana.Status().Alerts)
		h.SubstituteKeyPackage(wire.ID(sam.DeviceID()), kp)
		_, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()})
		if h.Substituted(wire.ID(sam.DeviceID())) != i+1 {
			t.Fatalf("case %d: the substituted key package was not claimed", i)
		}
		// Whatever dana's client did, the relay must not open a Welcome.
		envs, ferr := h.Service.Fetch(ctx, wire.ID(dana.wsID()), wire.ID(secret), 0, 1000)
		if ferr != nil {
			t.Fatal(ferr)
		}
		for _, se := range envs.Envelopes {
			if se.Envelope.Kind != wire.KindMLSWelcome {
				continue
			}
			if _, _, err := mls.JoinWelcome(&mls.Config{}, se.Envelope.CT, []*mls.KeyPackageBundle{relayKP}, nil); err == nil {
				t.Fatalf("case %d: the relay joined #secret from the Welcome", i)
			}
		}
		if !errors.Is(err, ErrKeyPackageRefused) {
			t.Fatalf("case %d: AddMembers = %v, want keypackage/refused", i, err)
		}
		if n := logLen(t, h, dana.wsID(), secret); n != logBefore {
			t.Fatalf("case %d: %d envelopes sent for a refused add", i, n-logBefore)
		}
		if e2, l2, _ := groupView(dana, secret); e2 != epoch || l2 != leaves {
			t.Fatalf("case %d: epoch %d→%d, leaves %d→%d", i, epoch, e2, leaves, l2)
		}
		a := lastAlert(t, dana, alerts, "keypackage/refused")
		t.Logf("case %d: %s", i, a.Message)
	}
	// The honest key package goes through.
	if _, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "secret", "sam is in"); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "secret", "sam is in")
}

// TestCommitAddingUnboundLeafIsRefused (attack b): a malicious member (Sam)
// commits an Add of the relay's key package into #general. Dana and Lee
// refuse the commit (never merged) with a leaf/unbound alert naming Sam,
// and #general goes on without the leaf. On the main this started from,
// both merged it.
func TestCommitAddingUnboundLeafIsRefused(t *testing.T) {
	t.Parallel()
	_, dana, sam, lee := hostileWorkspace(t, 80)
	ctx := testCtx(t)
	general := roster.GeneralGroupID(dana.wsID())
	epoch, leaves, _ := groupView(dana, general)
	unchecked(sam, func() {
		kp := relayKeyPackage(t, lee.DeviceID(), 81)
		if err := sam.commitOnce(ctx, sam.groups[general], mls.CommitOptions{Add: [][]byte{kp.Message()}, RatchetTreeInWelcome: true}); err != nil {
			t.Fatal(err)
		}
	})
	for _, who := range []*Engine{dana, lee} {
		alerts := len(who.Status().Alerts)
		if _, err := who.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		a := lastAlert(t, who, alerts, "leaf/unbound")
		if a.Actor != sam.DeviceID().String() || a.Group != hexID(general).hex() {
			t.Fatalf("alert %+v does not name sam and #general", a)
		}
		if e2, l2, _ := groupView(who, general); e2 != epoch || l2 != leaves {
			t.Fatalf("the commit was merged: epoch %d→%d, leaves %d→%d", epoch, e2, leaves, l2)
		}
		t.Log(a.Message)
	}
	// The group goes on in the epoch before the refused commit.
	if _, err := dana.Send(ctx, "general", "still ours"); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := lee.Messages(ctx, "general", 1)
	if err != nil || len(ms) != 1 || ms[0].Text != "still ours" {
		t.Fatalf("lee reads %+v, %v", ms, err)
	}
}

// TestTreeWithUnboundLeafIsRefused (attack c): a Welcome, and a standing
// GroupInfo, whose ratchet tree holds a leaf the roster does not bind. The
// joiner refuses both with a leaf/unbound alert and stays out. On the main
// this started from, Sam joined #secret and Ada joined #general's forked
// tree.
func TestTreeWithUnboundLeafIsRefused(t *testing.T) {
	t.Parallel()
	h, dana, sam, lee := hostileWorkspace(t, 90)
	ctx := testCtx(t)
	// The Welcome: an adder whose checks are off adds Sam together with
	// the relay's key package.
	ch, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit)
	if err != nil {
		t.Fatal(err)
	}
	secret := identity.GroupID(mustHex(t, ch.Group))
	unchecked(dana, func() {
		c, err := dana.client.ClaimKeyPackage(ctx, wire.ID(sam.DeviceID()))
		if err != nil {
			t.Fatal(err)
		}
		kps := [][]byte{c.KeyPackage, relayKeyPackage(t, lee.DeviceID(), 91).Message()}
		if err := dana.commitOnce(ctx, dana.groups[secret], mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true}); err != nil {
			t.Fatal(err)
		}
	})
	alerts := len(sam.Status().Alerts)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, member := groupView(sam, secret); member {
		t.Fatal("sam joined #secret from a Welcome whose tree holds an unbound leaf")
	}
	t.Log(lastAlert(t, sam, alerts, "leaf/unbound").Message)

	// The GroupInfo: Sam, malicious, adds the relay's leaf to #general,
	// merges it and publishes #general's standing bundles from his fork.
	general := roster.GeneralGroupID(dana.wsID())
	unchecked(sam, func() {
		kp := relayKeyPackage(t, lee.DeviceID(), 92)
		if err := sam.commitOnce(ctx, sam.groups[general], mls.CommitOptions{Add: [][]byte{kp.Message()}}); err != nil {
			t.Fatal(err)
		}
	})
	// Ada joins the workspace now: her join loop meets Sam's GroupInfo.
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	r := &testRelay{URL: h.URL, svc: h.Service}
	ada, err := Join(ctx, r.options(t, "ada", 93), link)
	if ada != nil {
		t.Cleanup(func() { ada.Close() })
	} else if err != nil {
		t.Fatalf("join: %v", err)
	}
	if _, _, member := groupView(ada, general); member {
		t.Fatal("ada joined #general from a GroupInfo whose tree holds an unbound leaf")
	}
	a := lastAlert(t, ada, 0, "leaf/unbound")
	if !strings.Contains(a.Message, "group info") {
		t.Fatalf("alert %+v", a)
	}
	t.Log(a.Message)
}

// TestUpdatePathWithUnboundKeyIsRefused (attack d): Sam's commit replaces
// his leaf's signature key through the update path, keeping the binding of
// the old key (no binding of the new key exists without a roster key that
// signs it). Dana and Lee refuse it; the same rotation with a binding of
// the new key by Sam's device is accepted. On the main this started from,
// any new key was taken.
func TestUpdatePathWithUnboundKeyIsRefused(t *testing.T) {
	t.Parallel()
	_, dana, sam, lee := hostileWorkspace(t, 100)
	ctx := testCtx(t)
	general := roster.GeneralGroupID(dana.wsID())
	epoch, _, _ := groupView(dana, general)
	priv, _, err := mls.GenerateSignatureKey(&mls.Config{Rand: seededRand(101)}, suiteID)
	if err != nil {
		t.Fatal(err)
	}
	unchecked(sam, func() {
		if err := sam.commitOnce(ctx, sam.groups[general], mls.CommitOptions{SignatureKey: priv}); err != nil {
			t.Fatal(err)
		}
	})
	for _, who := range []*Engine{dana, lee} {
		alerts := len(who.Status().Alerts)
		if _, err := who.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		a := lastAlert(t, who, alerts, "leaf/unbound")
		if e2, _, _ := groupView(who, general); e2 != epoch {
			t.Fatalf("the unbound key was merged: epoch %d→%d", epoch, e2)
		}
		t.Log(a.Message)
	}
	// Control: the same rotation with a binding of the new key by the
	// committer's device (Dana's own) is accepted, and signs from then on.
	priv2, pub2, err := mls.GenerateSignatureKey(&mls.Config{Rand: seededRand(102)}, suiteID)
	if err != nil {
		t.Fatal(err)
	}
	exts, err := groups.LeafExtensions(dana.dev, dana.wsID(), identity.DevicePrincipal(dana.DeviceID()), pub2)
	if err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	err = dana.commitOnce(ctx, dana.groups[general], mls.CommitOptions{SignatureKey: priv2, LeafExtensions: exts})
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "with my new key"); err != nil {
		t.Fatal(err)
	}
	alerts := len(lee.Status().Alerts)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(lee.Status().Alerts); n != alerts {
		t.Fatalf("a bound rotation raised %+v", lee.Status().Alerts[alerts:])
	}
	if e2, _, _ := groupView(lee, general); e2 != epoch+1 {
		t.Fatalf("lee at epoch %d after the bound rotation, want %d", e2, epoch+1)
	}
	ms, err := lee.Messages(ctx, "general", 1)
	if err != nil || len(ms) != 1 || ms[0].Text != "with my new key" {
		t.Fatalf("lee reads %+v, %v", ms, err)
	}
}

func mustHex(t *testing.T, s string) [32]byte {
	t.Helper()
	var h hexID
	if err := h.UnmarshalText([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h)
}

// admitAgent has issuer admit a fresh agent whose certificate names scope,
// and returns its key.
func admitAgent(t *testing.T, issuer *Engine, seed byte, scope ...identity.GroupID) identity.AgentPrivate {
	t.Helper()
	ctx := testCtx(t)
	agent, err := identity.GenerateKey[identity.Agent](seededRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	issuer.mu.Lock()
	defer issuer.mu.Unlock()
	err = issuer.appendRoster(ctx, func() (roster.Body, error) {
		cert, err := identity.IssueDelegation(issuer.dev, agent.Public(), scope, issuer.now().Add(-time.Minute), issuer.now().Add(time.Hour))
		if err != nil {
			return nil, err
		}
		proof, err := roster.AgentPossession(issuer.wsID(), agent)
		if err != nil {
			return nil, err
		}
		return &roster.AdmitAgent{Cert: cert, Possession: proof, Name: "bot"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// agentKeyPackage is a key package of agent, bound by the agent's key.
func agentKeyPackage(t *testing.T, ws identity.WorkspaceID, agent identity.AgentPrivate, seed byte) []byte {
	t.Helper()
	cfg := &mls.Config{Rand: seededRand(seed)}
	priv, pub, err := mls.GenerateSignatureKey(cfg, suiteID)
	if err != nil {
		t.Fatal(err)
	}
	id := identity.AgentIDOf(agent.Public())
	exts, err := groups.LeafExtensions(agent, ws, identity.AgentPrincipal(id), pub)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := mls.GenerateKeyPackageWith(cfg, suiteID, tree.BasicCredential(id[:]),
		mls.KeyPackageOptions{SignatureKey: priv, LeafExtensions: exts})
	if err != nil {
		t.Fatal(err)
	}
	return kp.Message()
}

// TestAgentLeafNeedsCertificateAndIssuer: an agent leaf enters a group only
// when its live certificate names that group and the adder is the device
// that issued it (spec/channels.md "The join", the agent path). Sam's
// agent scoped to #general is accepted; Sam adding his agent scoped to
// #activity into #general, and Dana adding Sam's agent, are refused by the
// receivers (leaf/unbound). On the main this started from, both were
// merged.
func TestAgentLeafNeedsCertificateAndIssuer(t *testing.T) {
	t.Parallel()
	_, dana, sam, lee := hostileWorkspace(t, 110)
	ctx := testCtx(t)
	ws := dana.wsID()
	general := roster.GeneralGroupID(ws)
	activity := roster.ActivityGroupID(ws)
	good := admitAgent(t, sam, 111, general)
	narrow := admitAgent(t, sam, 112, activity)
	other := admitAgent(t, sam, 113, general)
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The issuer adds its agent, scoped to the group: accepted by all.
	epoch, leaves, _ := groupView(dana, general)
	sam.mu.Lock()
	err := sam.commitOnce(ctx, sam.groups[general], mls.CommitOptions{Add: [][]byte{agentKeyPackage(t, ws, good, 114)}})
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []*Engine{dana, lee} {
		alerts := len(who.Status().Alerts)
		if _, err := who.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if e2, l2, _ := groupView(who, general); e2 != epoch+1 || l2 != leaves+1 || len(who.Status().Alerts) != alerts {
			t.Fatalf("the issuer's scoped agent: epoch %d→%d, leaves %d→%d, alerts %+v", epoch, e2, leaves, l2, who.Status().Alerts[alerts:])
		}
	}
	// The issuer adds an agent whose certificate does not name #general.
	epoch, leaves, _ = groupView(dana, general)
	unchecked(sam, func() {
		if err := sam.commitOnce(ctx, sam.groups[general], mls.CommitOptions{Add: [][]byte{agentKeyPackage(t, ws, narrow, 115)}}); err != nil {
			t.Fatal(err)
		}
	})
	for _, who := range []*Engine{dana, lee} {
		alerts := len(who.Status().Alerts)
		if _, err := who.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		a := lastAlert(t, who, alerts, "leaf/unbound")
		if e2, l2, _ := groupView(who, general); e2 != epoch || l2 != leaves {
			t.Fatalf("an agent outside its scope was merged: epoch %d→%d", epoch, e2)
		}
		t.Log(a.Message)
	}
	// Dana adds Sam's agent: its certificate names #general, but Dana did
	// not issue it. (Sam's own client forked on its refused commit above,
	// so Lee is the receiver that judges.)
	dana.mu.Lock()
	err = dana.commitOnce(ctx, dana.groups[general], mls.CommitOptions{Add: [][]byte{agentKeyPackage(t, ws, other, 116)}})
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	alerts := len(lee.Status().Alerts)
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	a := lastAlert(t, lee, alerts, "leaf/unbound")
	if !strings.Contains(a.Message, "agent_adder") {
		t.Fatalf("alert %+v", a)
	}
	if e2, l2, _ := groupView(lee, general); e2 != epoch || l2 != leaves {
		t.Fatalf("an agent added by a device that did not issue it was merged: epoch %d→%d", epoch, e2)
	}
	t.Log(a.Message)
}

// TestAuthLeafRefusesMalformed: the hook's refusals of leaves that are not
// even shaped like a Weald leaf, entering or existing, each with
// leaf/unbound; a bound leaf of a live device passes.
func TestAuthLeafRefusesMalformed(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 120)
	general := roster.GeneralGroupID(dana.wsID())
	key := bytes32(7)
	exts, err := groups.LeafExtensions(dana.dev, dana.wsID(), identity.DevicePrincipal(dana.devID), key)
	if err != nil {
		t.Fatal(err)
	}
	good := tree.LeafNode{Credential: tree.BasicCredential(dana.devID[:]), SignatureKey: key, Extensions: exts}
	dana.mu.Lock()
	defer dana.mu.Unlock()
	if err := dana.authLeaf(general[:], &good, false); err != nil {
		t.Fatalf("a bound leaf of a live device: %v", err)
	}
	agentExts := tree.Extensions{{Type: groups.ExtLeafBinding,
		Data: identity.LeafBinding{Kind: identity.KindAgent, Signature: make([]byte, 64)}.Encode()}}
	for name, l := range map[string]tree.LeafNode{
		"x509 credential":       {Credential: tree.Credential{Type: tree.CredentialX509, Certificates: [][]byte{{1}}}, SignatureKey: key, Extensions: exts},
		"short identity":        {Credential: tree.BasicCredential(dana.devID[:31]), SignatureKey: key, Extensions: exts},
		"malformed binding":     {Credential: tree.BasicCredential(dana.devID[:]), SignatureKey: key, Extensions: tree.Extensions{{Type: groups.ExtLeafBinding, Data: []byte{1, 2}}}},
		"binding of a recovery": {Credential: tree.BasicCredential(dana.devID[:]), SignatureKey: key, Extensions: tree.Extensions{{Type: groups.ExtLeafBinding, Data: []byte{1, 4, 0}}}},
		"another key":           {Credential: tree.BasicCredential(dana.devID[:]), SignatureKey: bytes32(8), Extensions: exts},
		"device as an agent":    {Credential: tree.BasicCredential(dana.devID[:]), SignatureKey: key, Extensions: agentExts},
	} {
		for _, existing := range []bool{false, true} {
			if err := dana.authLeaf(general[:], &l, existing); !errors.Is(err, groups.ErrUnboundLeaf) {
				t.Errorf("%s (existing %v): %v", name, existing, err)
			}
		}
	}
	if err := dana.authLeaf(general[:16], &good, false); !errors.Is(err, groups.ErrUnboundLeaf) {
		t.Errorf("a 16-byte group id: %v", err)
	}
}

func bytes32(b byte) []byte {
	out := make([]byte, 32)
	for i := range out {
		out[i] = b
	}
	return out
}
