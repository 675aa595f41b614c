package engine

import (
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
)

// A sub-delegation (a certificate naming its parent agent and only
// narrowing its scope) shows as one: the agents list names the parent, and
// a request for the sub-agent is not a renewal Dana's device can make (the
// roster would refuse it), so the approval sheet says why instead of
// offering Approve. The same goes for an agent another device approved.
func TestSubAgentAndOtherIssuerShowInViews(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 160)
	bot, req, err := CreateAgent(ctx, r.options(t, "bot", 161), r.URL, dana.WorkspaceID(), "ci bot", []string{"general", "activity"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	if _, err := dana.ApproveAgent(ctx, req); err != nil {
		t.Fatal(err)
	}
	mustSync(t, bot)
	// The bot sub-delegates #activity to a helper of its own.
	helper, hreq, err := CreateAgent(ctx, r.options(t, "helper", 162), r.URL, dana.WorkspaceID(), "helper", []string{"activity"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer helper.Close()
	parsed, err := roster.ParseAgentRequest(hreq)
	if err != nil {
		t.Fatal(err)
	}
	bot.mu.Lock()
	bot.signAs = roster.AgentSigner(bot.agentKey)
	err = bot.appendRoster(ctx, func() (roster.Body, error) {
		p, _ := bot.roster.Agent(bot.agentID())
		now := bot.now()
		cert, err := identity.SubDelegate(bot.agentKey, p.Cert, parsed.Agent, []identity.GroupID{roster.ActivityGroupID(bot.wsID())},
			now.Add(-time.Second), now.Add(30*time.Minute))
		if err != nil {
			return nil, err
		}
		return &roster.AdmitAgent{Cert: cert, Possession: parsed.Possession, Name: "helper"}, nil
	})
	bot.signAs = nil
	bot.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, dana)
	var sub *AgentView
	for _, a := range dana.Agents() {
		if a.Name == "helper" {
			sub = &a
		}
	}
	if sub == nil || sub.ParentName != "ci bot" || sub.Parent != hexID(bot.agentID()).hex() || len(sub.Scope) != 1 {
		t.Fatalf("the sub-agent as listed: %+v", sub)
	}
	pv, err := dana.PreviewAgentRequest(hreq)
	if err != nil {
		t.Fatal(err)
	}
	if pv.Renewal || pv.ParentName != "ci bot" || !strings.Contains(pv.Blocked, "sub-agent of ci bot") {
		t.Fatalf("a request for the sub-agent: %+v", pv)
	}
	// Another device's agent: not a renewal here either.
	sam := joinWith(t, r, invite(t, dana), "sam", 163)
	mustSync(t, sam)
	pv, err = sam.PreviewAgentRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if pv.Renewal || !strings.Contains(pv.Blocked, "only that device can renew") {
		t.Fatalf("another device's agent, seen by sam: %+v", pv)
	}
	// Dana's own renewal stays a renewal.
	if pv, err := dana.PreviewAgentRequest(req); err != nil || !pv.Renewal || pv.Blocked != "" {
		t.Fatalf("dana's renewal: %+v, %v", pv, err)
	}
}
