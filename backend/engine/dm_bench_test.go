package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
)

// BenchmarkAddFiftyPeople measures one AddPeople of 50 people with 2
// devices each (100 key packages claimed and checked, one commit, the
// Welcome sent) into a new explicit channel; issue 13 goal: under 1 s.
// The people are set up once (50 joins, 50 second devices), outside the
// timer.
func BenchmarkAddFiftyPeople(b *testing.B) {
	r := startRelay(b)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // the setup is long
	defer cancel()
	dana := createWorkspace(b, r, 150)
	var users []string
	for i := 0; i < 50; i++ {
		p := joinWith(b, r, invite(b, dana), fmt.Sprintf("p%d", i), byte(i))
		if _, err := dana.Sync(ctx); err != nil { // the roster with p
			b.Fatal(err)
		}
		d2 := secondDevice(b, r, dana, p, byte(100+i))
		for _, e := range []*Engine{p, d2} {
			if _, err := e.Sync(ctx); err != nil { // key packages
				b.Fatal(err)
			}
		}
		users = append(users, p.meta.User.hex())
		p.Close()
		d2.Close()
	}
	var total time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		name := fmt.Sprintf("team-%d", n)
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionExplicit); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		res, err := dana.AddPeople(ctx, name, users)
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil || len(res.Added) != 100 {
			b.Fatalf("added %d devices (pending %d): %v", len(res.Added), len(res.Pending), err)
		}
		total += elapsed
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/add")
}

// BenchmarkDMFirstMessage measures a DM's first message to delivery on
// loopback: from SendDM (roster record, MLS group, the add of the peer's
// device, the message) until the peer, syncing, has joined by the Welcome
// and reads the message.
func BenchmarkDMFirstMessage(b *testing.B) {
	r := startRelay(b)
	ctx := testCtx(b)
	dana := createWorkspace(b, r, 160)
	var total time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		peer := joinWith(b, r, invite(b, dana), fmt.Sprintf("peer%d", n), byte(170+n))
		if _, err := peer.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := dana.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if _, err := dana.SendDM(ctx, peer.meta.User.hex(), "hello"); err != nil {
			b.Fatal(err)
		}
		if _, err := peer.Sync(ctx); err != nil {
			b.Fatal(err)
		}
		ms, err := peer.Messages(ctx, "@"+dana.meta.User.hex(), 0)
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil || len(ms) != 1 || ms[0].Text != "hello" {
			b.Fatalf("peer reads %+v: %v", ms, err)
		}
		total += elapsed
		peer.Close()
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms/first-dm")
}
