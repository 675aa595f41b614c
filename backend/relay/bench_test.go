package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// BenchmarkAcceptVsRaw measures the accept path (signature, author chain,
// seq, budget check, notification, one transaction per request) against a
// raw insert of the same rows through the same store and trigger, in the same
// run, and reports both rates and their ratio (issue 4 "Benchmarks": goal
// ratio ≥ 0.8). One op is one request: a batch of 100 envelopes, or one. The
// raw insert is the store's fastest: one transaction with
// store.Tx.InsertEnvelopes (on PostgreSQL one statement for the batch).
// fast_share is the share of requests store.Store.Send accepted.
//
//	go test ./backend/relay -run '^$' -bench AcceptVsRaw -benchtime 200x
func BenchmarkAcceptVsRaw(b *testing.B) {
	for _, eng := range []struct {
		name string
		open func(testing.TB) store.Store
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		for _, batch := range []int{100, 1} {
			b.Run(fmt.Sprintf("%s/batch=%d", eng.name, batch), func(b *testing.B) {
				benchAcceptVsRaw(b, eng.open(b), batch)
			})
		}
	}
}

func benchAcceptVsRaw(b *testing.B, st store.Store, batch int) {
	ctx := context.Background()
	svc := New(Config{Store: st, MaxLogBytes: 1 << 40})
	ws := id("bench ws")
	gen := key("bench genesis")
	if err := svc.ProvisionWorkspace(ctx, ws, pub(gen)); err != nil {
		b.Fatal(err)
	}
	set := wire.AccessSet{Workspace: ws, Version: 1, Devices: []wire.DeviceKey{{Pub: pub(key("alice")), User: id("u"), Admin: true}}}
	wire.SignAccessSet(&set, gen)
	if _, err := svc.Publish(ctx, ws, set); err != nil {
		b.Fatal(err)
	}
	group, rawGroup := id("bench group"), id("bench raw group")
	if err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateGroup(ctx, rawGroup, ws, 0) }); err != nil {
		b.Fatal(err)
	}
	alice := key("alice")
	p := principal("alice")
	n := b.N * batch
	envs := make([]wire.Envelope, n)
	hashes := make([]wire.ID, n)
	prev := wire.ZeroID
	ct := make([]byte, 256)
	for i := range envs {
		e := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: uint64(i + 1), Prev: prev, CT: ct}
		wire.SignEnvelope(&e, alice)
		envs[i], hashes[i] = e, e.Hash()
		prev = hashes[i]
	}

	// Accept and raw requests alternate, so both see the same machine load
	// (the machine is shared); each is timed on its own.
	b.ResetTimer()
	var accept, raw time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, _, err := svc.Send(ctx, ws, p, envs[i*batch:(i+1)*batch]); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		err := st.Update(ctx, func(tx store.Tx) error {
			rows := make([]store.EnvelopeRow, 0, batch)
			for j := i * batch; j < (i+1)*batch; j++ {
				r := store.EnvelopeRow{Seq: uint64(j + 1), Envelope: envs[j], Hash: hashes[j], AcceptedAt: 1}
				r.Envelope.Group = rawGroup
				rows = append(rows, r)
			}
			return tx.InsertEnvelopes(ctx, rows)
		})
		if err != nil {
			b.Fatal(err)
		}
		accept += mid.Sub(start)
		raw += time.Since(mid)
	}
	b.StopTimer()

	acceptRate := float64(n) / accept.Seconds()
	rawRate := float64(n) / raw.Seconds()
	b.ReportMetric(acceptRate, "accept_env/s")
	b.ReportMetric(rawRate, "raw_rows/s")
	b.ReportMetric(acceptRate/rawRate, "ratio")
	fast, general := svc.AcceptPaths()
	b.ReportMetric(float64(fast)/float64(fast+general), "fast_share")
}
