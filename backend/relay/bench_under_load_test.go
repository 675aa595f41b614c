package relay

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// BenchmarkAcceptVsRawConcurrent is BenchmarkAcceptVsRaw under load: four
// senders, each a device of the workspace writing to its own group, send at
// once, and the raw baseline runs four writers at once, each inserting the
// same rows into its twin group (benchStore; a relay serves many
// clients; SQLite serializes the writers of both sides, PostgreSQL lets
// both overlap). Rounds of accept and raw alternate. One op is one request
// per sender.
//
//	go test ./backend/relay -run '^$' -bench AcceptVsRawConcurrent -benchtime 200x
func BenchmarkAcceptVsRawConcurrent(b *testing.B) {
	benchEngines(b, "/senders=4", func(b *testing.B, open func(testing.TB) store.Store, batch int) {
		benchConcurrent(b, open, batch, 4)
	})
}

func benchConcurrent(b *testing.B, open func(testing.TB) store.Store, batch, senders int) {
	ctx := context.Background()
	ws := id("bench ws")
	set := wire.AccessSet{Workspace: ws, Version: 1}
	type sender struct {
		p      wire.AuthOK
		group  wire.ID
		twin   wire.ID // rawGroup(group)
		envs   []wire.Envelope
		hashes []wire.ID
	}
	ss := make([]*sender, senders)
	var groups []wire.ID
	for s := range ss {
		name := fmt.Sprintf("sender %d", s)
		set.Devices = append(set.Devices, wire.DeviceKey{Pub: pub(key(name)), User: id(name), Admin: s == 0})
		ss[s] = &sender{p: principal(name), group: id("group " + name)}
		ss[s].twin = rawGroup(ss[s].group)
		groups = append(groups, ss[s].group)
	}
	svc, st := benchStore(b, open, set, groups)
	n := b.N * batch
	for s, x := range ss {
		x.envs, x.hashes = benchChain(key(fmt.Sprintf("sender %d", s)), x.group, n)
	}

	const round = 10 // requests per sender per round
	b.ResetTimer()
	var accept, raw time.Duration
	for start := 0; start < b.N; start += round {
		end := min(start+round, b.N)
		run := func(work func(x *sender, i int) error) time.Duration {
			t0 := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, senders)
			for _, x := range ss {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := start; i < end; i++ {
						if err := work(x, i); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			return time.Since(t0)
		}
		accept += run(func(x *sender, i int) error {
			_, _, err := svc.Send(ctx, ws, x.p, x.envs[i*batch:(i+1)*batch])
			return err
		})
		raw += run(func(x *sender, i int) error {
			return st.Update(ctx, func(tx store.Tx) error {
				return tx.InsertEnvelopes(ctx, ws, rawRows(x.envs[i*batch:(i+1)*batch], x.hashes[i*batch:(i+1)*batch], uint64(i*batch+1), x.twin))
			})
		})
	}
	b.StopTimer()
	reportAcceptVsRaw(b, svc, n*senders, accept, raw)
}
