package app_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"weald/app"
	"weald/backend/engine"
)

// agentForDana is Dana's app with Acme on a real relay, and an agent
// (name, asking for scope) that has made its request, not approved yet;
// ctx ends with the test (60 s at most).
func agentForDana(t *testing.T, name string, scope ...string) (dana *app.Workspaces, ws string, bot *engine.Engine, req string, ctx context.Context) {
	t.Helper()
	url, svc := realRelay(t)
	dana = workspaces(t)
	ws = danaAcme(t, dana, url, svc).Workspace.ID
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	bot, req, err := engine.CreateAgent(ctx, engine.Options{Dir: filepath.Join(t.TempDir(), "bot")}, url, ws, name, scope, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bot.Close() })
	return dana, ws, bot, req, ctx
}

// Agent and CI output lands in #activity (spec/channels.md "Default
// channels"): an agent asking for #activity, approved in the app, posts
// there and Dana's app shows the post in #activity, by "NAME (agent of
// OWNER)", with no reload (the agent's Add reaches it by Welcome notice).
func TestAgentOutputShowsInActivity(t *testing.T) {
	t.Parallel()
	dana, ws, bot, req, ctx := agentForDana(t, "ci", "activity")
	if _, err := dana.ApproveAgent(ws, req); err != nil {
		t.Fatal(err)
	}
	var activity string
	chans, err := dana.Channels(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chans {
		if ch.Name == "activity" {
			activity = ch.ID
		}
	}
	if activity == "" {
		t.Fatalf("no #activity in %+v", chans)
	}
	// The agent connects (key packages), Dana's app adds it, it joins.
	eventually(t, "the agent is in #activity", func() bool {
		if _, err := bot.Sync(ctx); err != nil {
			return false
		}
		return bot.Ready()
	})
	if _, err := bot.Send(ctx, "activity", "build 42 passed"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "dana's app shows the post in #activity", func() bool {
		ms, err := dana.Messages(ws, activity)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "build 42 passed" && ms[len(ms)-1].Author == "ci (agent of Dana)"
	})
}
