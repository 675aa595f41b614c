package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/health"
	"weald/backend/identity"
	"weald/backend/internal/hostilerelay"
	"weald/backend/mls"
	"weald/backend/relay"
	"weald/backend/roster"
	"weald/backend/wire"
)

// agentWorld is Dana (admin, creator) and Sam (member) with an explicit
// channel "secret" (both in it) and a parent channel "random", a relay and
// the engines on one controllable clock, and an agent that asked for
// #general and #secret for two hours.
type agentWorld struct {
	r              *testRelay
	h              *hostilerelay.Relay // the relay under r: honest unless a test makes it lie
	dana, sam, bot *Engine
	request        string
	advance        func(time.Duration)
}

func newAgentWorld(t *testing.T, seed byte) *agentWorld {
	t.Helper()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	w := &agentWorld{advance: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }}
	w.h = hostilerelay.StartWith(t, relay.Config{Clock: clock})
	w.r = &testRelay{URL: w.h.URL, svc: w.h.Service}
	ctx := testCtx(t)
	opts := w.r.options(t, "dana", seed)
	opts.Clock = clock
	var err error
	if w.dana, err = CreateWorkspace(ctx, opts, "Acme", w.r.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.dana.Close() })
	sopts := w.r.options(t, "sam", seed+1)
	sopts.Clock = clock
	if w.sam, err = Join(ctx, sopts, invite(t, w.dana)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.sam.Close() })
	for _, c := range []struct {
		name string
		adm  roster.Admission
	}{{"secret", roster.AdmissionExplicit}, {"random", roster.AdmissionParent}} {
		if _, err := w.dana.CreateChannel(ctx, c.name, c.adm); err != nil {
			t.Fatal(err)
		}
	}
	mustSync(t, w.sam, w.dana)
	if _, err := w.dana.AddPeople(ctx, "secret", []string{w.sam.meta.User.hex()}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.sam)
	bopts := w.r.options(t, "bot", seed+2)
	bopts.Clock = clock
	if w.bot, w.request, err = CreateAgent(ctx, bopts, w.r.URL, w.dana.WorkspaceID(), "ci bot", []string{"general", "secret"}, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.bot.Close() })
	return w
}

func mustSync(t *testing.T, es ...*Engine) {
	t.Helper()
	for _, e := range es {
		if _, err := e.Sync(testCtx(t)); err != nil {
			t.Fatalf("sync %s: %v", e.DeviceID().ShortString(), err)
		}
	}
}

// approve has Dana approve the bot, the bot connect (key packages), and
// Dana add it to its scope.
func (w *agentWorld) approve(t *testing.T) AgentView {
	t.Helper()
	v, err := w.dana.ApproveAgent(testCtx(t), w.request)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.bot, w.dana, w.bot, w.sam)
	return v
}

// TestAgentApprovedReadsAndWritesItsScope: before approval the relay
// refuses the agent; approved for #general and #secret, it is added to
// exactly those two, reads and posts there under its name and owner, and
// reads nothing elsewhere.
func TestAgentApprovedReadsAndWritesItsScope(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 129) // a seed whose #secret id sorts before #general's
	ctx := testCtx(t)
	if _, err := w.bot.Sync(ctx); !errors.Is(err, ErrAgentNotApproved) {
		t.Fatalf("an unapproved agent's sync: %v", err)
	}
	pv, err := w.dana.PreviewAgentRequest(w.request)
	if err != nil {
		t.Fatal(err)
	}
	if pv.Name != "ci bot" || len(pv.Scope) != 2 || pv.Scope[1].Admission != "explicit" || pv.Renewal || len(pv.Added) != 2 || pv.Fingerprint != w.bot.AgentFingerprint() {
		t.Fatalf("preview %+v", pv)
	}
	if _, err := w.dana.Send(ctx, "general", "before the bot"); err != nil {
		t.Fatal(err)
	}
	w.advance(time.Second)
	v := w.approve(t)
	if v.State != "live" || v.OwnerName != w.dana.userName(identity.UserID(w.dana.meta.User)) || !v.Yours {
		t.Fatalf("approved %+v", v)
	}
	if len(v.Scope) != 2 || v.Scope[0].Name != "general" || v.Scope[1].Name != "secret" {
		t.Fatalf("the agent's channels are listed %+v, want #general then #secret (by name)", v.Scope)
	}
	if !w.bot.Ready() {
		t.Fatal("the approved agent is not ready")
	}
	for _, name := range []string{"general", "secret"} {
		if _, err := w.dana.Send(ctx, name, "hello bot in "+name); err != nil {
			t.Fatal(err)
		}
		if name == "general" { // open: the agent reads what came before its add, as any joiner
			readsOnly(t, w.bot, name, "before the bot", "hello bot in "+name)
		} else {
			readsOnly(t, w.bot, name, "hello bot in "+name)
		}
		w.advance(time.Second) // one clock for all: order by time
		m, err := w.bot.Send(ctx, name, "bot here in "+name)
		if err != nil {
			t.Fatal(err)
		}
		if m.AuthorName != "ci bot (agent of "+v.OwnerName+")" {
			t.Fatalf("the agent's own message is by %q", m.AuthorName)
		}
		want := []string{"hello bot in " + name, "bot here in " + name}
		if name == "general" {
			want = append([]string{"before the bot"}, want...)
		}
		readsOnly(t, w.sam, name, want...)
		ms, _ := w.sam.Messages(ctx, name, 0)
		if ms[len(ms)-1].AuthorName != m.AuthorName {
			t.Fatalf("sam sees the agent as %q", ms[1].AuthorName)
		}
	}
	// Nowhere else: not a member of #random, and #random's log is not
	// readable to it.
	if _, err := w.dana.Send(ctx, "random", "not for bots"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.bot)
	if _, err := w.bot.Messages(ctx, "random", 0); err == nil {
		ms, _ := w.bot.Messages(ctx, "random", 0)
		if len(ms) != 0 {
			t.Fatalf("the agent reads #random: %+v", ms)
		}
	}
	if _, err := w.bot.Send(ctx, "random", "let me in"); !errors.Is(err, ErrNotMember) {
		t.Fatalf("agent send to #random: %v", err)
	}
	for _, id := range []identity.GroupID{roster.RootGroupID(w.dana.wsID()), roster.ActivityGroupID(w.dana.wsID())} {
		if w.dana.agentInGroup(id, w.bot.agentID()) >= 0 || w.bot.member(id) {
			t.Fatalf("the agent is in %s", id.ShortString())
		}
	}
	// Renewal with the same scope changes no membership.
	before := epochs(w.dana)
	if pv, err := w.dana.PreviewAgentRequest(w.request); err != nil || !pv.Renewal {
		t.Fatalf("renewal preview %+v, %v", pv, err)
	}
	if _, err := w.dana.ApproveAgent(ctx, w.request); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.dana)
	if after := epochs(w.dana); !sameEpochs(before, after) {
		t.Fatalf("renewal moved epochs: %v → %v", before, after)
	}
}

func epochs(e *Engine) map[identity.GroupID]uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[identity.GroupID]uint64{}
	for id, g := range e.groups {
		if g.mls != nil {
			out[id] = g.mls.Epoch()
		}
	}
	return out
}

func sameEpochs(a, b map[identity.GroupID]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// forgeContent has e post text to group under history key hk through the
// relay, as a member would, whether or not it is one (an attacker holding
// a leaked key).
func forgeContent(t *testing.T, e *Engine, group identity.GroupID, hk groups.HistoryKey, text string) {
	t.Helper()
	ctx := testCtx(t)
	e.mu.Lock()
	defer e.mu.Unlock()
	g := e.groupState(group)
	day, _ := documents.DayOf(e.now())
	sh, err := e.shardFor(ctx, shardKey{group, day, 0})
	if err != nil {
		t.Fatal(err)
	}
	_, changes, err := sh.s.Post(text)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := (&documents.Payload{Docs: []documents.DocChanges{{Ref: documents.DocRef{Kind: documents.KindChat, Day: day}, Changes: changes}}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.send(ctx, g, wire.KindContent, func(env *wire.Envelope) ([]byte, error) {
		c, err := groups.SealContent(e.rand, groups.SchemeHistory, hk.ID, 0, hk.Key, env.Group, wire.ID(e.devID), env.Ctr, pt)
		if err != nil {
			return nil, err
		}
		return c.Encode(), nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAgentOutsideItsScopeIsRefused (attacker side): an agent holding a
// group's history key (leaked) posts into #random, which its certificate
// does not name: every receiver drops it, while the same forgery into
// #general, which it names, is shown (the control). An agent's commit, in
// a group it is in, is refused by the relay (auth/agent_kind), and by every
// receiver when a relay logs it anyway (agent/commit). On the main this
// started from, an agent's envelopes were dropped everywhere.
func TestAgentOutsideItsScopeIsRefused(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 130)
	ctx := testCtx(t)
	w.approve(t)
	random := identity.GroupID(mustHex(t, chanID(t, w.dana, "random")))
	general := roster.GeneralGroupID(w.dana.wsID())
	leak := func(id identity.GroupID) groups.HistoryKey {
		w.dana.mu.Lock()
		defer w.dana.mu.Unlock()
		h := w.dana.groups[id].history
		return h[len(h)-1]
	}
	forgeContent(t, w.bot, random, leak(random), "forged into random")
	forgeContent(t, w.bot, general, leak(general), "posted in general")
	for _, e := range []*Engine{w.dana, w.sam} {
		readsOnly(t, e, "random")
		readsOnly(t, e, "general", "posted in general")
	}
	// An agent's commit (an empty one, in #general where it is a member),
	// sent as its next envelope: the relay refuses it.
	epoch, leaves, _ := groupView(w.dana, general)
	w.bot.mu.Lock()
	g := w.bot.groups[general]
	p, err := w.bot.stageCommit(g, mls.CommitOptions{})
	if err != nil {
		w.bot.mu.Unlock()
		t.Fatal(err)
	}
	g.pending, g.rec.Pending = nil, nil
	commit := wire.Envelope{Group: wire.ID(general), Kind: wire.KindMLSCommit, Ctr: g.rec.OwnCtr + 1, Prev: wire.ID(g.rec.OwnPrev), CT: p.msg}
	wire.SignEnvelope(&commit, w.bot.edKey)
	_, err = w.bot.client.Send(ctx, commit)
	w.bot.mu.Unlock()
	if c, _ := errcode.Of(err); c != wire.CodeAuthAgentKind {
		t.Fatalf("the relay answered an agent's commit with %v, want %s", err, wire.CodeAuthAgentKind)
	}
	// A relay that logs it anyway: it serves the commit in place of the
	// agent's next post, which has the same place in the agent's chain.
	if _, err := w.bot.Send(ctx, "general", "the post the relay replaces"); err != nil {
		t.Fatal(err)
	}
	w.h.Substitute(func(group wire.ID, se *wire.SeqEnvelope) {
		if group == wire.ID(general) && se.Envelope.Author == commit.Author && se.Envelope.Ctr == commit.Ctr {
			se.Envelope = commit
		}
	})
	for _, e := range []*Engine{w.dana, w.sam} {
		alerts := len(e.Status().Alerts)
		mustSync(t, e)
		lastAlert(t, e, alerts, "agent/commit")
		if e2, l2, _ := groupView(e, general); e2 != epoch || l2 != leaves {
			t.Fatalf("the agent's commit was merged: epoch %d→%d leaves %d→%d", epoch, e2, leaves, l2)
		}
	}
}

// TestStewardEvictsExpiredAgent: once the certificate expires the relay
// refuses the agent (the admin's next access set drops its key), and the
// issuing device's sync evicts its leaves from both groups with Remove
// commits; an agent that posts anyway (a relay that let it) is not read.
func TestStewardEvictsExpiredAgent(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 140)
	ctx := testCtx(t)
	w.approve(t)
	general := roster.GeneralGroupID(w.dana.wsID())
	secret := identity.GroupID(mustHex(t, chanID(t, w.dana, "secret")))
	_, l0, _ := groupView(w.sam, general)
	w.advance(2*time.Hour + time.Minute)
	mustSync(t, w.sam) // not the steward: leaves it for the issuer, within the grace
	if _, l, _ := groupView(w.sam, general); l != l0 {
		t.Fatalf("a non-issuer evicted within the grace: %d → %d leaves", l0, l)
	}
	// The weekly check sees the leaves outstanding (spec/lifecycle.md
	// "Ongoing health": no expired agent leaves), and clears after the
	// steward's eviction.
	if f := finding(t, runHealth(t, w.sam), health.AgentLeaves, health.StateAction); !strings.Contains(f.Finding, "#general") || !strings.Contains(f.Finding, "#secret") {
		t.Fatalf("the expired agent's check: %q", f.Finding)
	}
	mustSync(t, w.dana, w.sam)
	finding(t, runHealth(t, w.sam), health.AgentLeaves, health.StateOK)
	for _, id := range []identity.GroupID{general, secret} {
		for _, e := range []*Engine{w.dana, w.sam} {
			if e.agentInGroup(id, w.bot.agentID()) >= 0 {
				t.Fatalf("the expired agent still has a leaf in %s for %s", id.ShortString(), e.DeviceID().ShortString())
			}
		}
	}
	if _, err := w.bot.Sync(ctx); !errors.Is(err, ErrAgentNotApproved) {
		t.Fatalf("an expired agent's sync: %v", err)
	}
	if v := w.dana.Agents()[0]; v.State != "expired" {
		t.Fatalf("state %q", v.State)
	}
}

// TestStewardTakesOverWhenTheIssuerIsAway: Sam's device evicts a revoked
// agent issued by Dana's device once the grace has passed with Dana away.
func TestStewardTakesOverWhenTheIssuerIsAway(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 150)
	w.approve(t)
	general := roster.GeneralGroupID(w.dana.wsID())
	// Dana revokes the agent in the roster only (as if her client stopped
	// before its steward pass).
	w.dana.mu.Lock()
	err := w.dana.appendRoster(testCtx(t), func() (roster.Body, error) {
		return &roster.Revoke{RevokedAt: w.dana.now(), Targets: []identity.Principal{identity.AgentPrincipal(w.bot.agentID())}}, nil
	})
	w.dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.sam)
	if w.sam.agentInGroup(general, w.bot.agentID()) < 0 {
		t.Fatal("sam evicted before the grace")
	}
	w.advance(agentStewardGrace + time.Minute)
	mustSync(t, w.sam)
	if w.sam.agentInGroup(general, w.bot.agentID()) >= 0 {
		t.Fatal("sam did not take over after the grace")
	}
}

// TestRevokedAgentCannotConnect: RevokeAgent evicts at once and the next
// access set refuses the agent.
func TestRevokedAgentCannotConnect(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 160)
	ctx := testCtx(t)
	v := w.approve(t)
	if _, err := w.dana.RevokeAgent(ctx, v.ID[:10]); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.sam)
	if w.sam.agentInGroup(roster.GeneralGroupID(w.dana.wsID()), w.bot.agentID()) >= 0 {
		t.Fatal("the revoked agent's leaf stands")
	}
	if _, err := w.bot.Sync(context.Background()); !errors.Is(err, ErrAgentNotApproved) {
		t.Fatalf("a revoked agent's sync: %v", err)
	}
}

// TestAgentRunsAsARuntime: an approved agent's Run stays connected, is
// added by its owner's running client with nobody syncing by hand, and
// reads and posts (weald run is an agent's runtime).
func TestAgentRunsAsARuntime(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 170)
	ctx := testCtx(t)
	if _, err := w.dana.ApproveAgent(ctx, w.request); err != nil {
		t.Fatal(err)
	}
	stopDana := runEngine(t, w.dana)
	defer stopDana()
	stopBot := runEngine(t, w.bot)
	defer stopBot()
	general := roster.GeneralGroupID(w.dana.wsID())
	has := func(e *Engine, text string) bool {
		ms, err := e.Messages(ctx, "general", 0)
		if err != nil {
			return false
		}
		for _, m := range ms {
			if m.Text == text {
				return true
			}
		}
		return false
	}
	waitUntil(t, "the agent is in #general", func() bool {
		w.bot.mu.Lock()
		defer w.bot.mu.Unlock()
		return w.bot.member(general)
	})
	if _, err := w.dana.Send(ctx, "general", "ping"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the running agent reads ping", func() bool { return has(w.bot, "ping") })
	if _, err := w.bot.Send(ctx, "general", "pong"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "dana's running client reads pong", func() bool { return has(w.dana, "pong") })
}

// TestRevokeEveryAgentIssuedByADevice (spec/lifecycle.md "Key
// compromise": "revoke all certificates issued by this device" as one
// action): a member may not do it for another person's device; the owner
// (an admin) revokes every agent its device issued in one operation, their
// leaves are evicted and the agent can no longer sync; run again it finds
// none left.
func TestRevokeEveryAgentIssuedByADevice(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 180)
	ctx := testCtx(t)
	v := w.approve(t)
	dev := hexID(w.dana.devID).hex()
	if _, err := w.sam.RevokeAgentsIssuedBy(ctx, dev); !errors.Is(err, ErrNotYourDevice) {
		t.Fatalf("a member revoking another person's agents: %v", err)
	}
	got, err := w.dana.RevokeAgentsIssuedBy(ctx, dev[:12])
	if err != nil || len(got) != 1 || got[0].ID != v.ID {
		t.Fatalf("revoked %+v, %v", got, err)
	}
	mustSync(t, w.sam)
	if w.sam.agentInGroup(roster.GeneralGroupID(w.dana.wsID()), w.bot.agentID()) >= 0 {
		t.Fatal("the revoked agent's leaf stands")
	}
	if _, err := w.bot.Sync(context.Background()); !errors.Is(err, ErrAgentNotApproved) {
		t.Fatalf("a revoked agent's sync: %v", err)
	}
	if again, err := w.dana.RevokeAgentsIssuedBy(ctx, dev); err != nil || len(again) != 0 {
		t.Fatalf("run again: %+v, %v", again, err)
	}
}

// TestMemberApprovesAnAgentRightAfterJoining: sam joined by invite and his
// engine still talks to the relay on the invite grant's connection, which
// may not claim key packages. His approval of an agent used to fail there
// with keypackage/not_device after the roster had recorded it; now the
// claim reconnects with his device key, the approval answers, and the
// agent reads what sam writes in its scope once an admin's sync has
// admitted it to the relay and sam's sync has added it.
func TestMemberApprovesAnAgentRightAfterJoining(t *testing.T) {
	t.Parallel()
	w := newAgentWorld(t, 131)
	ctx := testCtx(t)
	if w.sam.meta.Invite == nil {
		t.Fatal("sam's engine has no invite grant: the test no longer starts where it means to")
	}
	v, err := w.sam.ApproveAgent(ctx, w.request)
	if err != nil {
		t.Fatalf("sam's approval: %v", err)
	}
	if v.State != "live" || !v.Yours {
		t.Fatalf("approved %+v", v)
	}
	mustSync(t, w.dana, w.bot, w.sam, w.bot) // access set, key packages, the adds, the welcomes
	if _, err := w.sam.Send(ctx, "secret", "for the bot from sam"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, w.bot)
	readsOnly(t, w.bot, "secret", "for the bot from sam")
}

// TestRunningApproverAddsAnAgentThatConnectsLater: Dana, alone in her
// workspace, approves an agent that has not connected yet; the agent
// connects and publishes its key packages seconds later, and nothing the
// relay pushes tells her engine of that. Her running engine keeps retrying
// while an agent it approved is owed an Add (agentAddsLeft, backoff up to
// 30 s), so the agent reads #general without anyone syncing by hand.
func TestRunningApproverAddsAnAgentThatConnectsLater(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 135)
	bot, req, err := CreateAgent(ctx, r.options(t, "bot", 136), r.URL, dana.WorkspaceID(), "ci bot", []string{"general"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bot.Close() })
	if _, err := dana.ApproveAgent(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "for the bot"); err != nil {
		t.Fatal(err)
	}
	stop := runEngine(t, dana)
	defer stop()
	time.Sleep(3 * time.Second) // the agent connects a while after the approval
	mustSync(t, bot)            // key packages
	waitUntil(t, "Dana's running engine adds the agent to #general", func() bool {
		if _, err := bot.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		ms, err := bot.Messages(ctx, "general", 0)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "for the bot"
	})
}
