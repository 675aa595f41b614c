package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/internal/pgtest"
	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// BenchmarkFanout100 measures fan-out of one accepted envelope to 100
// subscribers, each on its own WebSocket connection over loopback, one
// envelope at a time. p50_ms/p99_ms: from the sender's Send call to each
// subscriber's receipt (so they include the durable commit);
// fanout_p50_ms/fanout_p99_ms: from the moment the relay's Service.Send
// returned (committed) to each receipt (the fan-out alone); ack_*: the
// sender's Send round trip. Goal (issue 4):
// p99 < 50 ms.
//
//	go test ./backend/relay/server -run '^$' -bench Fanout100 -benchtime 200x
func BenchmarkFanout100(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := store.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "relay.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchFanout(b, st, 100)
	})
	b.Run("postgres", func(b *testing.B) {
		st, err := store.OpenPostgres(context.Background(), pgtest.NewDatabase(b))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchFanout(b, st, 100)
	})
}

func benchFanout(b *testing.B, st store.Store, subscribers int) {
	svc := relay.New(relay.Config{Store: st})
	tb := &timedBackend{Backend: svc, at: map[uint64]time.Time{}}
	srv := New(Config{Backend: tb, Limits: Limits{OutboundQueue: 4096}})
	defer srv.Close()
	r := &relayUnderTest{svc: svc, srv: srv}
	hs := newLoopbackServer(b, srv)
	r.url = hs.url
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	sender := seededKey("bench sender")
	keys := make([]keyPair, subscribers)
	for i := range keys {
		keys[i] = seededKey(fmt.Sprintf("bench subscriber %d", i))
	}
	ws := wire.ID{0xBE, 0x4C}
	gen := seededKey("bench genesis")
	if err := svc.ProvisionWorkspace(ctx, ws, gen.pub); err != nil {
		b.Fatal(err)
	}
	set := wire.AccessSet{Workspace: ws, Version: 1,
		Devices: []wire.DeviceKey{{Pub: sender.pub, User: wire.KeyID(sender.pub), Admin: true}}}
	for _, k := range keys {
		set.Devices = append(set.Devices, wire.DeviceKey{Pub: k.pub, User: wire.KeyID(k.pub)})
	}
	wire.SignAccessSet(&set, gen.priv)
	if err := relayclient.PublishGenesis(ctx, r.url, set); err != nil {
		b.Fatal(err)
	}
	group := wire.ID{0xF0}
	dialB := func(k keyPair) *relayclient.Client {
		c, err := relayclient.Dial(ctx, relayclient.Config{URL: r.url, Workspace: ws,
			Credential: relayclient.KeyCredential(k.priv, wire.PrincipalDevice), EventBuffer: 1024})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	sc := dialB(sender)
	defer sc.Close()

	n := b.N
	sent := make([]time.Time, n+1)
	var sentMu sync.RWMutex
	recv := make([][]time.Time, n+1)
	for i := range recv {
		recv[i] = make([]time.Time, 0, subscribers)
	}
	var latMu sync.Mutex
	var arrived sync.WaitGroup
	var ready sync.WaitGroup
	subs := make([]*relayclient.Client, subscribers)
	for i, k := range keys {
		subs[i] = dialB(k)
		if err := subs[i].Subscribe(ctx, wire.SubscribeItem{Group: group}); err != nil {
			b.Fatal(err)
		}
		ready.Add(1)
		go func(c *relayclient.Client) {
			defer c.Close()
			ready.Done()
			for got := 0; got < n; {
				select {
				case ev, ok := <-c.Events():
					if !ok {
						return
					}
					if ev.Kind != relayclient.EventEnvelopes {
						continue
					}
					now := time.Now()
					for _, se := range ev.Envelopes {
						latMu.Lock()
						if se.Seq >= 1 && se.Seq <= uint64(n) {
							recv[se.Seq] = append(recv[se.Seq], now)
						}
						latMu.Unlock()
						got++
						arrived.Done()
					}
				case <-ctx.Done():
					return
				}
			}
		}(subs[i])
	}
	ready.Wait()

	ack := make([]time.Duration, 0, n)
	var prev wire.ID
	b.ResetTimer()
	for i := 1; i <= n; i++ {
		e := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: uint64(i), Prev: prev, CT: make([]byte, 256)}
		wire.SignEnvelope(&e, sender.priv)
		prev = e.Hash()
		arrived.Add(subscribers)
		start := time.Now()
		sentMu.Lock()
		sent[i] = start
		sentMu.Unlock()
		if _, err := sc.Send(ctx, e); err != nil {
			b.Fatal(err)
		}
		ack = append(ack, time.Since(start))
		done := make(chan struct{})
		go func() { arrived.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			b.Fatalf("envelope %d did not reach all %d subscribers", i, subscribers)
		}
	}
	b.StopTimer()
	latMu.Lock()
	defer latMu.Unlock()
	var lat, fan []time.Duration
	for i := 1; i <= n; i++ {
		committed := tb.committed(uint64(i))
		for _, at := range recv[i] {
			lat = append(lat, at.Sub(sent[i]))
			fan = append(fan, at.Sub(committed))
		}
	}
	b.ReportMetric(ms(percentile(lat, 0.50)), "p50_ms")
	b.ReportMetric(ms(percentile(lat, 0.99)), "p99_ms")
	b.ReportMetric(ms(percentile(fan, 0.50)), "fanout_p50_ms")
	b.ReportMetric(ms(percentile(fan, 0.99)), "fanout_p99_ms")
	b.ReportMetric(ms(percentile(ack, 0.50)), "ack_p50_ms")
	b.ReportMetric(ms(percentile(ack, 0.99)), "ack_p99_ms")
	b.ReportMetric(float64(len(lat)), "deliveries")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s)-1) * p)
	return s[i]
}

type loopback struct{ url string }

func newLoopbackServer(tb testing.TB, h *Server) loopback {
	hs := httptest.NewServer(h)
	tb.Cleanup(hs.Close)
	return loopback{url: "ws" + strings.TrimPrefix(hs.URL, "http") + "/v1/ws"}
}

// timedBackend records when each accepted seq was committed.
type timedBackend struct {
	Backend
	mu sync.Mutex
	at map[uint64]time.Time
}

func (t *timedBackend) Send(ctx context.Context, ws wire.ID, p Principal, envs []wire.Envelope) ([]wire.AckItem, []wire.SeqEnvelope, error) {
	items, acc, err := t.Backend.Send(ctx, ws, p, envs)
	now := time.Now()
	t.mu.Lock()
	for _, se := range acc {
		t.at[se.Seq] = now
	}
	t.mu.Unlock()
	return items, acc, err
}

func (t *timedBackend) committed(seq uint64) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.at[seq]
}
