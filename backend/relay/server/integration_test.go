package server

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"weald/backend/internal/pgtest"
	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/relay/store/storetest"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func seededKey(name string) keyPair {
	seed := sha256.Sum256([]byte("server test key " + name))
	priv := ed25519.NewKeyFromSeed(seed[:])
	return keyPair{pub: priv.Public().(ed25519.PublicKey), priv: priv}
}

// author keeps an author's chain per group.
type author struct {
	k    keyPair
	ctr  map[wire.ID]uint64
	prev map[wire.ID]wire.ID
}

func newAuthor(k keyPair) *author {
	return &author{k: k, ctr: map[wire.ID]uint64{}, prev: map[wire.ID]wire.ID{}}
}

func (a *author) next(group wire.ID, ct string) wire.Envelope {
	a.ctr[group]++
	e := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: a.ctr[group], Prev: a.prev[group], CT: []byte(ct)}
	wire.SignEnvelope(&e, a.k.priv)
	a.prev[group] = e.Hash()
	return e
}

// relayUnderTest is one Server over a real relay.Service.
type relayUnderTest struct {
	svc  *relay.Service
	srv  *Server
	http *httptest.Server
	url  string
}

func startRelay(t *testing.T, st store.Store, cfg relay.Config, lim Limits) *relayUnderTest {
	t.Helper()
	cfg.Store = st
	r := &relayUnderTest{svc: relay.New(cfg)}
	r.srv = New(Config{Backend: r.svc, Limits: lim})
	r.http = httptest.NewServer(r.srv)
	r.url = "ws" + strings.TrimPrefix(r.http.URL, "http") + "/v1/ws"
	t.Cleanup(func() {
		r.srv.Close()
		r.http.Close()
	})
	return r
}

// workspace provisions a workspace (genesis key), publishes its first access
// set over the wire, and returns it.
type workspace struct {
	id      wire.ID
	genesis keyPair
	admin   keyPair
	set     wire.AccessSet
}

func provision(t *testing.T, r *relayUnderTest, members ...keyPair) *workspace {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w := &workspace{id: sha256.Sum256([]byte("ws " + t.Name())), genesis: seededKey("genesis " + t.Name()), admin: members[0]}
	if err := r.svc.ProvisionWorkspace(ctx, w.id, w.genesis.pub); err != nil {
		t.Fatal(err)
	}
	w.set = wire.AccessSet{Workspace: w.id, Version: 1}
	for i, m := range members {
		w.set.Devices = append(w.set.Devices, wire.DeviceKey{Pub: m.pub, User: wire.KeyID(m.pub), Admin: i == 0})
	}
	wire.SignAccessSet(&w.set, w.genesis.priv)
	if err := relayclient.PublishGenesis(ctx, r.url, w.set); err != nil {
		t.Fatalf("genesis: %v", err)
	}
	// The genesis key is consumed: publishing version 1 again is refused.
	if err := relayclient.PublishGenesis(ctx, r.url, w.set); err == nil {
		t.Fatal("genesis set accepted twice")
	}
	return w
}

func dialAs(t *testing.T, url string, ws wire.ID, k keyPair) *relayclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: url, Workspace: ws,
		Credential: relayclient.KeyCredential(k.priv, wire.PrincipalDevice),
		Backoff:    relayclient.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func engines(t *testing.T, fn func(t *testing.T, open func() store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "relay.db")
		fn(t, func() store.Store {
			st, err := store.OpenSQLite(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.PostgresURL(t)
		fn(t, func() store.Store {
			st, err := store.OpenPostgres(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func TestRealServiceSendSubscribeQuota(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() store.Store) {
		alice, bob := seededKey("alice"), seededKey("bob")
		r := startRelay(t, open(), relay.Config{MaxLogBytes: 100}, Limits{})
		w := provision(t, r, alice, bob)
		ca, cb := dialAs(t, r.url, w.id, alice), dialAs(t, r.url, w.id, bob)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		g := wire.ID{0x42}
		if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: g}); err != nil {
			t.Fatal(err)
		}
		aa := newAuthor(alice)
		acks, err := ca.Send(ctx, aa.next(g, strings.Repeat("a", 40)), aa.next(g, strings.Repeat("b", 40)))
		if err != nil || len(acks) != 2 || acks[1].Seq != 2 {
			t.Fatalf("send: %v %v", acks, err)
		}
		got := nextEnvelopes(t, cb, 2)
		if got[0].Seq != 1 || got[1].Seq != 2 {
			t.Fatalf("pushed seqs %d %d", got[0].Seq, got[1].Seq)
		}
		// 80 bytes held; 40 more is over the 100-byte budget.
		over := aa.next(g, strings.Repeat("c", 40))
		_, err = ca.Send(ctx, over)
		var qe *relayclient.QuotaError
		if !errors.As(err, &qe) || qe.LimitBytes != 100 {
			t.Fatalf("over budget: %v, want QuotaError{100}", err)
		}
		if _, hasRetry := qe.Err.Field("retry_after_ms"); hasRetry {
			t.Fatal("quota error carries a retry interval")
		}
		st, err := ca.Stats(ctx)
		if err != nil || st.LogBytes != 80 || st.LimitBytes != 100 {
			t.Fatalf("stats %+v %v", st, err)
		}
		// Not retried: exactly one refusal was counted.
		m := r.srv.Metrics().Refused.WithLabelValues(string(wire.CodeLogBudgetExhausted))
		if v := counterValue(t, m); v != 1 {
			t.Fatalf("quota refusals counted %v, want 1 (no retries)", v)
		}
	})
}

func TestRealServiceRevocationAndVoidedGrant(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() store.Store) {
		alice, bob, joiner := seededKey("alice"), seededKey("bob"), seededKey("joiner")
		r := startRelay(t, open(), relay.Config{}, Limits{RecheckInterval: time.Hour})
		w := provision(t, r, alice, bob)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		ca, cb := dialAs(t, r.url, w.id, alice), dialAs(t, r.url, w.id, bob)
		secret := seededKey("invite secret " + t.Name()).priv // the invite grant key
		v2 := w.set
		v2.Version = 2
		v2.Grants = []wire.ID{wire.ID(secret.Public().(ed25519.PublicKey))}
		wire.SignAccessSet(&v2, alice.priv)
		if _, err := ca.PublishAccessSet(ctx, v2); err != nil {
			t.Fatal(err)
		}
		cg, err := relayclient.Dial(ctx, relayclient.Config{URL: r.url, Workspace: w.id,
			Credential: relayclient.GrantCredential(joiner.priv, secret)})
		if err != nil {
			t.Fatalf("grant connect: %v", err)
		}
		defer cg.Close()
		v3 := v2
		v3.Version = 3
		v3.Devices = v3.Devices[:1]
		v3.Grants = nil
		wire.SignAccessSet(&v3, alice.priv)
		start := time.Now()
		if _, err := ca.PublishAccessSet(ctx, v3); err != nil {
			t.Fatal(err)
		}
		waitDisconnected(t, cb, wire.CodeAuthRevoked, 2*time.Second)
		waitDisconnected(t, cg, wire.CodeAuthRevoked, 2*time.Second)
		t.Logf("bob and the grant closed %v after the publish", time.Since(start).Round(time.Millisecond))
		_, err = relayclient.Dial(ctx, relayclient.Config{URL: r.url, Workspace: w.id,
			Credential: relayclient.KeyCredential(bob.priv, wire.PrincipalDevice)})
		if !errors.Is(err, &wire.Error{Code: wire.CodeAuthRevoked}) {
			t.Fatalf("bob reconnect: %v, want auth/revoked", err)
		}
		_, err = relayclient.Dial(ctx, relayclient.Config{URL: r.url, Workspace: w.id,
			Credential: relayclient.GrantCredential(joiner.priv, secret)})
		if !errors.Is(err, &wire.Error{Code: wire.CodeAuthRevoked}) {
			t.Fatalf("voided grant: %v, want auth/revoked", err)
		}
	})
}

// Two relays (two Services, two Servers) on one PostgreSQL database: an
// envelope accepted by one reaches a subscriber of the other within a
// second, and an access set accepted by one closes a removed key's
// connection on the other within 2 s.
func TestTwoRelaysOnePostgres(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresURL(t)
	open := func() store.Store {
		st, err := store.OpenPostgres(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	alice, bob := seededKey("alice"), seededKey("bob")
	ra := startRelay(t, open(), relay.Config{}, Limits{RecheckInterval: time.Hour})
	rb := startRelay(t, open(), relay.Config{}, Limits{RecheckInterval: time.Hour})
	w := provision(t, ra, alice, bob)
	ca, cb := dialAs(t, ra.url, w.id, alice), dialAs(t, rb.url, w.id, bob)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := wire.ID{0x77}
	if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: g}); err != nil {
		t.Fatal(err)
	}
	aa := newAuthor(alice)
	for i := 0; i < 3; i++ {
		start := time.Now()
		if _, err := ca.Send(ctx, aa.next(g, "hello")); err != nil {
			t.Fatal(err)
		}
		got := nextEnvelopes(t, cb, 1)
		d := time.Since(start)
		if got[0].Seq != uint64(i+1) {
			t.Fatalf("seq %d", got[0].Seq)
		}
		if d > time.Second {
			t.Fatalf("cross-relay delivery took %v", d)
		}
		t.Logf("cross-relay delivery %d: %v", i+1, d.Round(time.Microsecond))
	}
	v2 := w.set
	v2.Version = 2
	v2.Devices = v2.Devices[:1]
	wire.SignAccessSet(&v2, alice.priv)
	start := time.Now()
	if _, err := ca.PublishAccessSet(ctx, v2); err != nil {
		t.Fatal(err)
	}
	waitDisconnected(t, cb, wire.CodeAuthRevoked, 2*time.Second)
	t.Logf("bob closed on the other relay %v after the publish", time.Since(start).Round(time.Millisecond))
}

func counterValue(t *testing.T, c interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// The same group id in another workspace is another group (groups are
// keyed by workspace and group): subscribing to it or fetching it from the
// other workspace sees nothing of this one's, and nothing of it is pushed.
func TestSameGroupIDInAnotherWorkspaceIsAnotherGroup(t *testing.T) {
	t.Parallel()
	st := func() store.Store {
		s, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}()
	alice, mallory := seededKey("alice"), seededKey("mallory")
	r := startRelay(t, st, relay.Config{}, Limits{})
	w := provision(t, r, alice)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A second workspace whose only member is mallory.
	other := sha256.Sum256([]byte("other ws"))
	gen := seededKey("other genesis")
	if err := r.svc.ProvisionWorkspace(ctx, other, gen.pub); err != nil {
		t.Fatal(err)
	}
	set := wire.AccessSet{Workspace: other, Version: 1, Devices: []wire.DeviceKey{{Pub: mallory.pub, User: wire.ID{9}, Admin: true}}}
	wire.SignAccessSet(&set, gen.priv)
	if err := relayclient.PublishGenesis(ctx, r.url, set); err != nil {
		t.Fatal(err)
	}
	ca := dialAs(t, r.url, w.id, alice)
	cm := dialAs(t, r.url, other, mallory)
	g := wire.ID{0x99}
	aa := newAuthor(alice)
	if _, err := ca.Send(ctx, aa.next(g, "secret-ish ciphertext")); err != nil {
		t.Fatal(err)
	}
	if err := cm.Subscribe(ctx, wire.SubscribeItem{Group: wire.ID{0x98}}, wire.SubscribeItem{Group: g}); err != nil {
		t.Fatalf("subscribe to its own workspace's group with that id: %v", err)
	}
	if got, err := cm.Fetch(ctx, g, 0, 0); err != nil || len(got.Envelopes) != 0 || got.HeadSeq != 0 {
		t.Fatalf("fetch from the other workspace: %+v %v, want an empty group", got, err)
	}
	if _, err := ca.Send(ctx, aa.next(g, "more")); err != nil {
		t.Fatal(err)
	}
	quiet := time.After(300 * time.Millisecond)
	for {
		select {
		case ev := <-cm.Events():
			if ev.Kind == relayclient.EventEnvelopes {
				t.Fatalf("pushed %d envelopes of another workspace", len(ev.Envelopes))
			}
			continue
		case <-quiet:
		}
		break
	}
}

// Hostile envelopes over the wire: each gets its code and changes nothing
// (same head seq, same byte counter), and the connection stays usable.
func TestHostileEnvelopesOverTheWire(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() store.Store) {
		alice, bob := seededKey("alice"), seededKey("bob")
		r := startRelay(t, open(), relay.Config{}, Limits{})
		w := provision(t, r, alice, bob)
		ca := dialAs(t, r.url, w.id, alice)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		g := wire.ID{0x66}
		aa := newAuthor(alice)
		first := aa.next(g, "one")
		if _, err := ca.Send(ctx, first); err != nil {
			t.Fatal(err)
		}
		before, err := ca.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		badSig := aa.next(g, "two")
		badSig.Signature[0] ^= 1
		aa.ctr[g]-- // the chain did not advance
		aa.prev[g] = first.Hash()
		fork := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: 1, CT: []byte("other one")}
		wire.SignEnvelope(&fork, alice.priv)
		gap := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: 5, Prev: first.Hash(), CT: []byte("five")}
		wire.SignEnvelope(&gap, alice.priv)
		unknown := wire.Envelope{Group: g, Kind: wire.Kind(0x7777), Ctr: 2, Prev: first.Hash(), CT: []byte("?")}
		wire.SignEnvelope(&unknown, alice.priv)
		impostor := wire.Envelope{Group: g, Kind: wire.KindContent, Ctr: 1, CT: []byte("as bob")}
		wire.SignEnvelope(&impostor, bob.priv) // bob's envelope on alice's connection
		good := aa.next(g, "two")
		cases := []struct {
			name string
			envs []wire.Envelope
			code wire.Code
		}{
			{"bad signature", []wire.Envelope{badSig}, wire.CodeAuthBadSignature},
			{"replay", []wire.Envelope{first}, wire.CodeChainReplay},
			{"fork", []wire.Envelope{fork}, wire.CodeChainFork},
			{"gap", []wire.Envelope{gap}, wire.CodeChainGap},
			{"unknown kind", []wire.Envelope{unknown}, wire.CodeUnknownKind},
			{"good then replay in one batch", []wire.Envelope{good, first}, wire.CodeChainReplay},
		}
		for _, tc := range cases {
			_, err := ca.Send(ctx, tc.envs...)
			if !errors.Is(err, &wire.Error{Code: tc.code}) {
				t.Fatalf("%s: %v, want %s", tc.name, err, tc.code)
			}
			after, err := ca.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Fatalf("%s changed state: %+v -> %+v", tc.name, before, after)
			}
		}
		// bob's own envelope through alice's connection: refused or
		// accepted only as bob's; it must not become alice's.
		if _, err := ca.Send(ctx, impostor); err == nil {
			res, _ := ca.Fetch(ctx, g, 1, 0)
			if len(res.Envelopes) != 1 || res.Envelopes[0].Envelope.Author != wire.KeyID(bob.pub) {
				t.Fatalf("impostor envelope stored as %+v", res.Envelopes)
			}
		}
		if _, err := ca.Send(ctx, good); err != nil {
			t.Fatalf("the good envelope after the refusals: %v", err)
		}
	})
}

// WEALD_RELAY_RETENTION_DAYS only warns: old envelopes show in STATS and in
// the retention metric, and are all still there.
func TestRetentionDaysWarnsInMetricsAndDeletesNothing(t *testing.T) {
	t.Parallel()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	alice := seededKey("alice")
	r := startRelay(t, st, relay.Config{Clock: clock, RetentionDays: 30}, Limits{})
	w := provision(t, r, alice)
	ca := dialAs(t, r.url, w.id, alice)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := wire.ID{0x30}
	aa := newAuthor(alice)
	for i := 0; i < 4; i++ {
		if _, err := ca.Send(ctx, aa.next(g, "old")); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	now = now.Add(31 * 24 * time.Hour)
	mu.Unlock()
	if _, err := ca.Send(ctx, aa.next(g, "new")); err != nil {
		t.Fatal(err)
	}
	s, err := ca.Stats(ctx)
	if err != nil || s.OverRetention != 4 || s.RetentionDays != 30 || s.Envelopes != 5 {
		t.Fatalf("stats %+v %v", s, err)
	}
	var m dto.Metric
	if err := r.srv.Metrics().Retention.WithLabelValues(w.id.String()).Write(&m); err != nil {
		t.Fatal(err)
	}
	if v := m.GetGauge().GetValue(); v != 4 {
		t.Fatalf("retention warning gauge %v, want 4", v)
	}
	res, err := ca.Fetch(ctx, g, 0, 0)
	if err != nil || len(res.Envelopes) != 5 {
		t.Fatalf("fetch after the warning: %d envelopes, %v", len(res.Envelopes), err)
	}
}
