package engine

import (
	"context"
	"testing"
	"time"

	"weald/backend/roster"
)

// runEngine runs e until the returned stop is called.
func runEngine(t *testing.T, e *Engine) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	ctx := testCtx(t)
	for i := 0; i < 1200; i++ {
		if ok() {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("never: %s", what)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("never: %s", what)
}

// A message typed while the relay is down waits in the outbox, visible as
// pending, survives the app closing and opening again, and goes out by
// itself once the relay is back (issue 17 item 4).
func TestOutboxSurvivesDisconnectAndDrainsOnReconnect(t *testing.T) {
	t.Parallel()
	r := startFaultRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 74)
	var connected []bool
	events := make(chan Event, 1024)
	opts.OnEvent = func(ev Event) {
		select {
		case events <- ev:
		default:
		}
	}
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam, err := Join(ctx, r.options(t, "sam", 75), link)
	if err != nil {
		t.Fatal(err)
	}
	defer sam.Close()
	stopSam := runEngine(t, sam)
	defer stopSam()
	stopDana := runEngine(t, dana)

	r.stop()
	waitUntil(t, "dana's client sees the relay gone", func() bool {
		for {
			select {
			case ev := <-events:
				if ev.Kind == EventConnection {
					connected = append(connected, ev.Connected)
				}
			default:
				return len(connected) > 0 && !connected[len(connected)-1]
			}
		}
	})
	m, err := dana.Queue(ctx, "general", "typed offline")
	if err != nil {
		t.Fatal(err)
	}
	if m.State != OutboxPending {
		t.Fatalf("queued message state %q, want pending", m.State)
	}
	// Offline, the engine answers (no lock held across the dead connection).
	if st := dana.Status(); st.Name != "Acme" {
		t.Fatalf("status offline: %+v", st)
	}
	out, err := dana.Outbox("general")
	if err != nil || len(out) != 1 || out[0].Text != "typed offline" || out[0].State != OutboxPending {
		t.Fatalf("outbox offline: %+v, %v", out, err)
	}

	// The app closes and opens again, still offline: the message waits.
	stopDana()
	dana.Close()
	opts.OnEvent = nil
	dana, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	out, err = dana.Outbox("general")
	if err != nil || len(out) != 1 || out[0].Text != "typed offline" {
		t.Fatalf("outbox after reopening: %+v, %v", out, err)
	}
	stopDana = runEngine(t, dana)
	defer stopDana()

	if err := r.start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the outbox drains on reconnect", func() bool {
		out, err := dana.Outbox("general")
		return err == nil && len(out) == 0
	})
	waitRead(t, sam, "general", "typed offline")
	ms, err := dana.Messages(ctx, "general", 0)
	if err != nil || len(ms) != 1 || ms[0].Text != "typed offline" {
		t.Fatalf("dana's history: %+v, %v (sent once)", ms, err)
	}
}

// A message the channel refuses for good is kept as failed with the reason,
// not retried by itself; discarding removes it.
func TestOutboxKeepsRefusedAsFailed(t *testing.T) {
	t.Parallel()
	r := startFaultRelay(t)
	ctx := testCtx(t)
	dana, err := CreateWorkspace(ctx, r.options(t, "dana", 76), "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	dana.mu.Lock()
	it := outboxItem{ID: "out-gone", Group: hexID{1}, Text: "to nowhere", Queued: dana.now().UTC()}
	if err := dana.setOutbox(ctx, []outboxItem{it}); err != nil {
		t.Fatal(err)
	}
	dana.mu.Unlock()
	stop := runEngine(t, dana)
	defer stop()
	waitUntil(t, "the refused message is marked failed", func() bool {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		return len(dana.outbox) == 1 && dana.outbox[0].Failed != ""
	})
	dana.mu.Lock()
	failed := dana.outbox[0].Failed
	dana.mu.Unlock()
	if failed != ErrNoChannel.Error() {
		t.Fatalf("failed with %q, want %q", failed, ErrNoChannel)
	}
	if err := dana.DiscardOutbox(ctx, "out-gone"); err != nil {
		t.Fatal(err)
	}
	if err := dana.DiscardOutbox(ctx, "out-gone"); err != ErrNoOutboxItem {
		t.Fatalf("discarding twice: %v", err)
	}
}
