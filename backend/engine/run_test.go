package engine

import (
	"context"
	"testing"
	"time"

	"weald/backend/roster"
)

// A running client receives messages as they are sent, and joins a channel
// created while it runs, with no sync call (the desktop app's live updates).
func TestRunLiveUpdates(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 90)
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan Event, 1024)
	opts := r.options(t, "sam", 91)
	opts.OnEvent = func(ev Event) {
		select {
		case events <- ev:
		default:
		}
	}
	sam, err := Join(ctx, opts, link)
	if err != nil {
		t.Fatal(err)
	}
	defer sam.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sam.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	waitFor := func(what string, ok func(Event) bool) {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case ev := <-events:
				if ok(ev) {
					return
				}
			case <-deadline:
				t.Fatalf("no %s event", what)
			}
		}
	}
	if _, err := dana.Send(ctx, "general", "live"); err != nil {
		t.Fatal(err)
	}
	waitFor("messages", func(ev Event) bool { return ev.Kind == EventMessages })
	ch, err := dana.CreateChannel(ctx, "later", roster.AdmissionParent)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("channels", func(ev Event) bool {
		if ev.Kind != EventChannels {
			return false
		}
		for _, c := range sam.Channels() {
			if c.Group == ch.Group && c.Member {
				return true
			}
		}
		return false
	})
	if _, err := dana.Send(ctx, "later", "in the new channel"); err != nil {
		t.Fatal(err)
	}
	waitFor("messages in the new channel", func(ev Event) bool { return ev.Kind == EventMessages && ev.Channel == ch.Group })
}
