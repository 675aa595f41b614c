package app_test

import (
	"slices"
	"testing"
	"time"
)

// The desktop's agent approval follows spec/channels.md "Group policy":
// "Renewal within the same scope does not change membership or prompt
// again. Widening a scope is one visible approval followed by the matching
// additions." A new agent's request is returned as the approval sheet
// (nothing approved); the same agent asking again for the same channels is
// renewed at once, without a sheet, and its channels stay as they were; a
// request for one more channel is a sheet naming that channel, nothing is
// added until ApproveAgent, and then the agent is added to it.
func TestAgentRenewalDoesNotPromptAndWideningIsOneApproval(t *testing.T) {
	t.Parallel()
	dana, ws, bot, req, ctx := agentForDana(t, "ci", "activity")
	channels := func() map[string]bool {
		as, err := dana.Agents(ws)
		if err != nil || len(as) != 1 {
			t.Fatalf("agents %+v, %v", as, err)
		}
		out := map[string]bool{}
		for _, s := range as[0].Scope {
			out[s.Name] = s.Member
		}
		return out
	}

	// A new agent: the sheet, and nothing approved yet.
	sub, err := dana.SubmitAgentRequest(ws, req)
	if err != nil || sub.Renewed != nil || sub.Request == nil || !slices.Equal(sub.Request.Added, []string{"activity"}) {
		t.Fatalf("new agent: %+v, %v", sub, err)
	}
	if as, _ := dana.Agents(ws); len(as) != 0 {
		t.Fatalf("submitting a new agent's request approved it: %+v", as)
	}
	first, err := dana.ApproveAgent(ws, req)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the agent is in #activity", func() bool {
		_, err := bot.Sync(ctx)
		return err == nil && bot.Ready() && channels()["activity"]
	})

	// Renewal, same channels: no sheet, renewed, nothing else changes.
	again, err := bot.AgentRequest()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // a later expiry
	sub, err = dana.SubmitAgentRequest(ws, again)
	if err != nil || sub.Request != nil || sub.Renewed == nil {
		t.Fatalf("renewal: %+v, %v", sub, err)
	}
	if sub.Renewed.Expiry <= first.Expiry {
		t.Fatalf("renewal kept the expiry %d (was %d)", sub.Renewed.Expiry, first.Expiry)
	}
	if got := channels(); len(got) != 1 || !got["activity"] {
		t.Fatalf("after the renewal the agent's channels are %v", got)
	}

	// Widening: one sheet naming the new channel; nothing added before it
	// is approved, the add after.
	wider, err := bot.AgentRequestScope([]string{"activity", "general"})
	if err != nil {
		t.Fatal(err)
	}
	sub, err = dana.SubmitAgentRequest(ws, wider)
	if err != nil || sub.Renewed != nil || sub.Request == nil || !slices.Equal(sub.Request.Added, []string{"general"}) || sub.Request.Renewal {
		t.Fatalf("widening: %+v, %v", sub, err)
	}
	if got := channels(); len(got) != 1 {
		t.Fatalf("submitting the wider request changed the scope before approval: %v", got)
	}
	if _, err := dana.ApproveAgent(ws, wider); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the agent is added to #general", func() bool {
		_, err := bot.Sync(ctx)
		return err == nil && channels()["general"]
	})
}
