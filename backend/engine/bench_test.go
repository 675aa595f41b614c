package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
)

// BenchmarkRedemption measures invite redemption until #general (1,000
// messages) is readable and 50 parent channels are joined (issue 5 goal:
// under 3 s on this machine).
func BenchmarkRedemption(b *testing.B) {
	r := startRelay(b)
	ctx := testCtx(b)
	dana := createWorkspace(b, r, 60)
	for i := 0; i < 1000; i++ {
		if _, err := dana.Send(ctx, "general", fmt.Sprintf("message %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		if _, err := dana.CreateChannel(ctx, fmt.Sprintf("chan-%02d", i), roster.AdmissionParent); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
		if err != nil {
			b.Fatal(err)
		}
		opts := r.options(b, fmt.Sprintf("joiner-%d", n), byte(70+n))
		b.StartTimer()
		start := time.Now()
		e, err := Join(ctx, opts, link)
		if err != nil {
			b.Fatal(err)
		}
		ms, err := e.Messages(ctx, "general", 0)
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil || len(ms) != 1000 {
			b.Fatalf("read %d messages: %v", len(ms), err)
		}
		joined := 0
		for _, c := range e.Channels() {
			if c.Member {
				joined++
			}
		}
		if joined != 53 {
			b.Fatalf("joined %d groups, want 53 (root, 2 defaults, 50 channels)", joined)
		}
		b.ReportMetric(elapsed.Seconds(), "s/redemption")
		e.Close()
		// The joiner's commits moved the root and every channel: the
		// inviter catches up before the next invite.
		if _, err := dana.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkSendToReceive measures one message from Send on one client to
// the EventMessages of a running (subscribed) client, on loopback.
func BenchmarkSendToReceive(b *testing.B) {
	r := startRelay(b)
	ctx := testCtx(b)
	dana := createWorkspace(b, r, 80)
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	got := make(chan Event, 1024)
	opts := r.options(b, "sam", 81)
	opts.OnEvent = func(ev Event) {
		if ev.Kind == EventMessages {
			got <- ev
		}
	}
	sam, err := Join(ctx, opts, link)
	if err != nil {
		b.Fatal(err)
	}
	defer sam.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sam.Run(runCtx) }()
	defer func() { stop(); <-done }()
	// Wait until Run is subscribed: one message round trip.
	drain := func() {
		for {
			select {
			case <-got:
			default:
				return
			}
		}
	}
	if _, err := dana.Send(ctx, "general", "warm-up"); err != nil {
		b.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		b.Fatal("no delivery")
	}
	drain()
	b.ResetTimer()
	var total time.Duration
	for n := 0; n < b.N; n++ {
		start := time.Now()
		if _, err := dana.Send(ctx, "general", fmt.Sprintf("ping %d", n)); err != nil {
			b.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			b.Fatal("message not received within 10 s")
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/message")
}
