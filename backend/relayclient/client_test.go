package relayclient_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"weald/backend/identity"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/wire"
)

func TestBackoffIsCappedExponentialWithJitter(t *testing.T) {
	t.Parallel()
	b := relayclient.Backoff{Min: 100 * time.Millisecond, Max: 2 * time.Second}
	rnd := rand.NewChaCha8([32]byte{7})
	seen := map[time.Duration]bool{}
	for n := 0; n < 12; n++ {
		ceil := b.Min << n
		if ceil > b.Max || ceil <= 0 {
			ceil = b.Max
		}
		for i := 0; i < 10; i++ {
			d := b.Delay(n, rnd)
			if d < b.Min/2 || d > ceil {
				t.Fatalf("retry %d: delay %v outside [%v, %v]", n, d, b.Min/2, ceil)
			}
			seen[d] = true
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d distinct delays: no jitter", len(seen))
	}
	// Deterministic for the same random bytes.
	r1 := bytes.NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	r2 := bytes.NewReader([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	if b.Delay(3, r1) != b.Delay(3, r2) {
		t.Fatal("same randomness, different delays")
	}
	// An exhausted reader falls back to the ceiling rather than failing.
	if d := b.Delay(30, bytes.NewReader(nil)); d != b.Max {
		t.Fatalf("empty rand: %v", d)
	}
}

type keyPair struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func seededKey(name string) keyPair {
	seed := sha256.Sum256([]byte("client test key " + name))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return keyPair{pub: priv.Public().(ed25519.PublicKey), priv: priv}
}

// relayAt is a relay over a test's store on a fixed listener address.
type relayAt struct {
	srv  *server.Server
	stop func() // stops serving; the store stays open
}

func serveAt(t *testing.T, addr string, st store.Store, cfg relay.Config, lim server.Limits) *relayAt {
	t.Helper()
	ln := relaytest.Listen(t, addr)
	cfg.Store = st
	log := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	r := &relayAt{srv: server.New(server.Config{Backend: relay.New(cfg), Limits: lim, Logger: log})}
	r.stop = relaytest.Serve(t, ln, r.srv)
	return r
}

type env struct {
	t     *testing.T
	st    store.Store
	addr  string
	url   string
	ws    wire.ID
	alice keyPair
	bob   keyPair
	set   wire.AccessSet
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := &env{t: t, st: st, addr: addr, url: "ws://" + addr + "/v1/ws", ws: sha256.Sum256([]byte(t.Name())),
		alice: seededKey("alice"), bob: seededKey("bob")}
	return e
}

func (e *env) provision(svc *relay.Service) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gen := seededKey("genesis")
	if err := svc.ProvisionWorkspace(ctx, e.ws, gen.pub); err != nil {
		e.t.Fatal(err)
	}
	e.set = wire.AccessSet{Workspace: e.ws, Version: 1, Devices: []wire.DeviceKey{
		{Pub: e.alice.pub, User: wire.KeyID(e.alice.pub), Admin: true},
		{Pub: e.bob.pub, User: wire.KeyID(e.bob.pub)}}}
	wire.SignAccessSet(&e.set, gen.priv)
	if err := relayclient.PublishGenesis(ctx, e.url, e.set); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) dial(k keyPair) *relayclient.Client {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: e.url, Workspace: e.ws,
		Credential: relayclient.KeyCredential(k.priv, wire.PrincipalDevice),
		Backoff:    relayclient.Backoff{Min: 20 * time.Millisecond, Max: 100 * time.Millisecond}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

type chainOf struct {
	k    keyPair
	ctr  uint64
	prev wire.ID
}

func (c *chainOf) next(g wire.ID) wire.Envelope {
	c.ctr++
	e := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: c.ctr, Prev: c.prev, CT: []byte("m")}
	wire.SignEnvelope(&e, c.k.priv)
	c.prev = e.Hash()
	return e
}

// sendRetrying resends after ErrDisconnected (a relay restart in between).
func sendRetrying(t *testing.T, c *relayclient.Client, e wire.Envelope) {
	t.Helper()
	for i := 0; i < 100; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := c.Send(ctx, e)
		cancel()
		if err == nil || errors.Is(err, &wire.Error{Code: wire.CodeChainReplay}) {
			return
		}
		if !errors.Is(err, relayclient.ErrDisconnected) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("send: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("send never succeeded")
}

func TestReconnectResubscribesWithoutGaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r1 := serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	e.provision(relay.New(relay.Config{Store: e.st}))
	ca, cb := e.dial(e.alice), e.dial(e.bob)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := wire.ID{0x5}
	if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: g}); err != nil {
		t.Fatal(err)
	}
	ch := &chainOf{k: e.alice}
	for i := 0; i < 5; i++ {
		sendRetrying(t, ca, ch.next(g))
	}
	// Restart the relay (same address and database); alice writes three
	// more as soon as she is back, possibly before bob is.
	r1.stop()
	serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	for i := 0; i < 3; i++ {
		sendRetrying(t, ca, ch.next(g))
	}
	var seqs []uint64
	var disconnected, reconnected bool
	deadline := time.After(10 * time.Second)
	for len(seqs) < 8 {
		select {
		case ev := <-cb.Events():
			switch ev.Kind {
			case relayclient.EventEnvelopes:
				for _, se := range ev.Envelopes {
					seqs = append(seqs, se.Seq)
				}
			case relayclient.EventDisconnected:
				disconnected = true
			case relayclient.EventConnected:
				reconnected = disconnected
			}
		case <-deadline:
			t.Fatalf("got seqs %v, want 1..8", seqs)
		}
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("seqs %v: want exactly 1..8 in order (no gap, no duplicate)", seqs)
		}
	}
	if !disconnected || !reconnected {
		t.Fatalf("disconnected=%v reconnected=%v", disconnected, reconnected)
	}
}

func TestRateLimitIsWaitedOutQuotaIsNot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := serveAt(t, e.addr, e.st, relay.Config{MaxLogBytes: 2}, server.Limits{RequestsPerSecond: 20, RequestBurst: 1})
	e.provision(relay.New(relay.Config{Store: e.st}))
	c := e.dial(e.alice)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	for i := 0; i < 4; i++ {
		if _, err := c.Stats(ctx); err != nil {
			t.Fatalf("stats %d: %v", i, err)
		}
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("4 requests at 20/s with burst 1 took only %v: the limit did not apply", d)
	}
	if v := refused(t, r.srv, wire.CodeLimitRate); v < 1 {
		t.Fatalf("no limit/rate refusal was counted (%v)", v)
	}
	// Over the 2-byte budget: a typed error with limit_bytes, sent once.
	time.Sleep(100 * time.Millisecond)
	ch := &chainOf{k: e.alice}
	_, err := c.Send(ctx, ch.next(wire.ID{1}), ch.next(wire.ID{1}), ch.next(wire.ID{1}))
	var qe *relayclient.QuotaError
	if !errors.As(err, &qe) || qe.LimitBytes != 2 {
		t.Fatalf("err = %v, want QuotaError{LimitBytes: 2}", err)
	}
	if !strings.Contains(qe.Error(), "2 bytes") {
		t.Fatalf("message %q", qe.Error())
	}
	if v := refused(t, r.srv, wire.CodeLogBudgetExhausted); v != 1 {
		t.Fatalf("quota refusals %v, want exactly 1 (not retried)", v)
	}
}

func refused(t *testing.T, s *server.Server, code wire.Code) float64 {
	t.Helper()
	var m dto.Metric
	if err := s.Metrics().Refused.WithLabelValues(string(code)).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// A client whose owner never reads Events keeps working: advisory events
// (roster moves here) beyond the buffer are dropped, not blocking replies.
func TestUnreadEventsDoNotBlockRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	e.provision(relay.New(relay.Config{Store: e.st}))
	ca := e.dial(e.alice)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cb, err := relayclient.Dial(ctx, relayclient.Config{URL: e.url, Workspace: e.ws,
		Credential: relayclient.KeyCredential(e.bob.priv, wire.PrincipalDevice), EventBuffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	var head wire.ID
	for i, op := range e.rosterOps(t, 40) {
		res, err := ca.RosterAppend(ctx, head, op)
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		head = res.Head
	}
	ops, err := cb.RosterFetch(ctx, 0, 100)
	if err != nil {
		t.Fatalf("the non-reading client's request: %v", err)
	}
	if len(ops.Ops) != 40 || ops.Head != head {
		t.Fatalf("roster: %d ops, head match %v", len(ops.Ops), ops.Head == head)
	}
	// And a compare-and-swap on a stale head is refused with the head.
	_, err = ca.RosterAppend(ctx, wire.ID{}, e.rosterOps(t, 1)[0])
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeCASConflict {
		t.Fatalf("stale append: %v, want cas/conflict", err)
	}
}

// fakeClock records the waits the client asks for and lets each pass at
// once (after a short real pause, so the loop does not spin).
type fakeClock struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (c *fakeClock) Now() time.Time { return time.Unix(0, 0) }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	go func() { time.Sleep(5 * time.Millisecond); ch <- time.Unix(0, 0) }()
	return ch
}

func (c *fakeClock) snapshot() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// While the relay is down the client retries on the injected clock with
// capped exponential backoff and jitter from the injected randomness, and
// reconnects once the relay is back.
func TestReconnectBackoffUsesInjectedClockAndRand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	e.provision(relay.New(relay.Config{Store: e.st}))
	clock := &fakeClock{}
	b := relayclient.Backoff{Min: time.Second, Max: 8 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: e.url, Workspace: e.ws,
		Credential: relayclient.KeyCredential(e.alice.priv, wire.PrincipalDevice),
		Clock:      clock, Rand: rand.NewChaCha8([32]byte{1}), Backoff: b})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r.stop()
	deadline := time.Now().Add(10 * time.Second)
	for len(clock.snapshot()) < 8 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d retries in 10 s", len(clock.snapshot()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	if _, err := c.Stats(ctx); err != nil {
		t.Fatalf("after the relay came back: %v", err)
	}
	waits := clock.snapshot()
	for n, d := range waits[:8] {
		ceil := b.Min << n
		if ceil > b.Max {
			ceil = b.Max
		}
		if d < b.Min/2 || d > ceil {
			t.Fatalf("retry %d waited %v, outside [%v, %v]; all: %v", n, d, b.Min/2, ceil, waits)
		}
	}
	// The same randomness gives the same schedule.
	again := rand.NewChaCha8([32]byte{1})
	for n := 0; n < 8; n++ {
		if want := b.Delay(n, again); waits[n] != want {
			t.Fatalf("retry %d waited %v, Backoff.Delay with the same randomness gives %v", n, waits[n], want)
		}
	}
	t.Logf("retry waits: %v", waits[:8])
}

// Key packages, access-set get, drop_before and stats through the client:
// each answer or refusal arrives typed.
func TestKeyPackagesAccessSetDropAndStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serveAt(t, e.addr, e.st, relay.Config{RetentionDays: 7}, server.Limits{})
	e.provision(relay.New(relay.Config{Store: e.st}))
	ca, cb := e.dial(e.alice), e.dial(e.bob)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stock, err := cb.PutKeyPackages(ctx, wire.KeyPackageItem{KeyPackage: []byte("kp1")}, wire.KeyPackageItem{KeyPackage: []byte("kp2")})
	if err != nil || stock.OneUse != 2 {
		t.Fatalf("put: %+v %v", stock, err)
	}
	stock, err = cb.PutKeyPackages(ctx, wire.KeyPackageItem{KeyPackage: []byte("last"), LastResort: true})
	if err != nil || stock.OneUse != 2 || !stock.LastResort {
		t.Fatalf("put last resort: %+v %v", stock, err)
	}
	bob := wire.KeyID(e.bob.pub)
	var got []string
	for i := 0; i < 4; i++ {
		kp, err := ca.ClaimKeyPackage(ctx, bob)
		if err != nil {
			t.Fatalf("claim %d: %v", i, err)
		}
		got = append(got, string(kp.KeyPackage))
		if (string(kp.KeyPackage) == "last") != kp.LastResort {
			t.Fatalf("claim %d: %+v", i, kp)
		}
	}
	if got[2] != "last" || got[3] != "last" || got[0] == got[1] {
		t.Fatalf("claims %v: two one-use, then the kept last resort", got)
	}
	if _, err := ca.ClaimKeyPackage(ctx, wire.ID{0xDE}); !errors.Is(err, &wire.Error{Code: wire.CodeKeyPackageNone}) {
		t.Fatalf("claim of nobody's: %v", err)
	}
	set, err := cb.AccessSet(ctx)
	if err != nil || set.Version != 1 || len(set.Devices) != 2 {
		t.Fatalf("access set %+v %v", set, err)
	}
	// A drop naming a checkpoint the relay does not hold is refused.
	_, err = ca.DropBefore(ctx, wire.DropBefore{Group: wire.ID{1}, Checkpoint: wire.EnvelopeRef{Ctr: 1},
		Authorization: wire.AuthorizedByPolicy, RetentionKey: e.alice.pub, Signature: make([]byte, 64)})
	var we *wire.Error
	if !errors.As(err, &we) || !strings.HasPrefix(string(we.Code), "drop/") {
		t.Fatalf("drop: %v, want a drop/ refusal", err)
	}
	s, err := ca.Stats(ctx)
	if err != nil || s.Workspace != e.ws || s.RetentionDays != 7 || s.LogBytes != 0 {
		t.Fatalf("stats %+v %v", s, err)
	}
}

// rosterOps returns n roster operations alice may append from the empty
// roster: her genesis, the root group, then renames of it.
func (e *env) rosterOps(t *testing.T, n int) [][]byte {
	t.Helper()
	dev, err := identity.PrivateFromSeed[identity.Device](e.alice.priv.Seed())
	if err != nil {
		t.Fatal(err)
	}
	gen, err := identity.PrivateFromSeed[identity.Genesis](seededKey("genesis").priv.Seed())
	if err != nil {
		t.Fatal(err)
	}
	s := roster.New(roster.Options{})
	var out [][]byte
	add := func(b roster.Body) {
		op, err := roster.Sign(roster.DeviceSigner(dev), s.Head(), time.Now(), b)
		if err == nil {
			err = s.Apply(op)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, op.Bytes())
	}
	g, err := roster.NewGenesis(identity.WorkspaceID(e.ws), identity.UserID(wire.KeyID(e.alice.pub)), dev.Public(), gen)
	if err != nil {
		t.Fatal(err)
	}
	add(g)
	add(roster.BootstrapGroups(s, "Acme")[0])
	for len(out) < n {
		add(&roster.RenameGroup{Group: s.RootGroup(), Name: fmt.Sprintf("Acme %d", len(out))})
	}
	return out[:n]
}
