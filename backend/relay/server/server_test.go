package server

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/relay/store"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

type keyPair struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func newKey(t testing.TB, seed byte) keyPair {
	t.Helper()
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = seed
	}
	priv := ed25519.NewKeyFromSeed(s)
	return keyPair{pub: priv.Public().(ed25519.PublicKey), priv: priv}
}

type fixture struct {
	t    *testing.T
	ws   wire.ID
	back *fakeBackend
	srv  *Server
	http *httptest.Server
	url  string
}

func newFixture(t *testing.T, lim Limits, keys ...keyPair) *fixture {
	return newFixtureWith(t, lim, nil, keys...)
}

func newFixtureWith(t *testing.T, lim Limits, prep func(*fakeBackend), keys ...keyPair) *fixture {
	t.Helper()
	ws := wire.ID{1, 2, 3}
	var pubs []ed25519.PublicKey
	for _, k := range keys {
		pubs = append(pubs, k.pub)
	}
	f := &fixture{t: t, ws: ws, back: newFake(ws, pubs...)}
	if prep != nil {
		prep(f.back)
	}
	if lim.RecheckInterval == 0 {
		lim.RecheckInterval = 200 * time.Millisecond
	}
	f.srv = New(Config{Backend: f.back, Limits: lim})
	f.http = httptest.NewServer(f.srv)
	f.url = "ws" + strings.TrimPrefix(f.http.URL, "http") + "/v1/ws"
	t.Cleanup(func() {
		f.srv.Close()
		f.http.Close()
	})
	return f
}

func (f *fixture) client(k keyPair) *relayclient.Client {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.KeyCredential(k.priv, wire.PrincipalDevice),
		Backoff:    relayclient.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond}})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { c.Close() })
	return c
}

// raw is a hand-driven connection for hostile-input tests.
type raw struct {
	t  *testing.T
	ws *websocket.Conn
}

func (f *fixture) raw(k keyPair) *raw {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, f.url, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	r := &raw{t: f.t, ws: ws}
	f.t.Cleanup(func() { ws.CloseNow() })
	r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
	ch, ok := r.read().Body.(*wire.Challenge)
	if !ok {
		f.t.Fatal("no challenge")
	}
	r.send(2, wire.SignChallenge(k.priv, wire.PrincipalDevice, f.bind(ch)))
	if _, ok := r.read().Body.(*wire.AuthOK); !ok {
		f.t.Fatal("no AuthOK")
	}
	return r
}

// bind is the challenge ch answered by a client of f: f's workspace, at
// the host of f.url.
func (f *fixture) bind(ch *wire.Challenge) wire.AuthBinding {
	u, err := url.Parse(f.url)
	if err != nil {
		f.t.Fatal(err)
	}
	return wire.AuthBinding{Workspace: f.ws, Nonce: ch.Nonce, Relay: ch.Relay, Host: wire.CanonicalHost(u.Host)}
}

func (r *raw) send(id uint32, b wire.Body) {
	r.t.Helper()
	buf, err := wire.EncodeFrame(wire.Frame{ID: id, Body: b})
	if err != nil {
		r.t.Fatal(err)
	}
	r.sendBytes(buf)
}

func (r *raw) sendBytes(b []byte) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
		r.t.Fatal(err)
	}
}

func (r *raw) read() wire.Frame {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, b, err := r.ws.Read(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	f, err := wire.DecodeFrame(b)
	if err != nil {
		r.t.Fatal(err)
	}
	return f
}

func (r *raw) expectCode(id uint32, code wire.Code) *wire.Error {
	r.t.Helper()
	f := r.read()
	eb, ok := f.Body.(*wire.ErrorBody)
	if !ok {
		r.t.Fatalf("got frame 0x%02x, want error %s", uint8(f.Body.FrameType()), code)
	}
	if f.ID != id || eb.Err.Code != code {
		r.t.Fatalf("got id %d %v, want id %d %s", f.ID, eb.Err, id, code)
	}
	return eb.Err
}

func envelope(k keyPair, group wire.ID, ctr uint64, ct string) wire.Envelope {
	e := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: ctr, CT: []byte(ct)}
	wire.SignEnvelope(&e, k.priv)
	return e
}

func nextEnvelopes(t *testing.T, c *relayclient.Client, want int) []wire.SeqEnvelope {
	t.Helper()
	var got []wire.SeqEnvelope
	deadline := time.After(5 * time.Second)
	for len(got) < want {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed after %d envelopes", len(got))
			}
			if ev.Kind == relayclient.EventEnvelopes {
				got = append(got, ev.Envelopes...)
			}
		case <-deadline:
			t.Fatalf("got %d envelopes, want %d", len(got), want)
		}
	}
	return got
}

func TestSendSubscribeFanOutWithBacklog(t *testing.T) {
	t.Parallel()
	a, b := newKey(t, 1), newKey(t, 2)
	f := newFixture(t, Limits{}, a, b)
	ca, cb := f.client(a), f.client(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := wire.ID{9}
	for i := 1; i <= 5; i++ {
		acks, err := ca.Send(ctx, envelope(a, g, uint64(i), "m"))
		if err != nil || len(acks) != 1 || acks[0].Seq != uint64(i) {
			t.Fatalf("send %d: %v %v", i, acks, err)
		}
	}
	if err := cb.Subscribe(ctx, wire.SubscribeItem{Group: g, AfterSeq: 2}); err != nil {
		t.Fatal(err)
	}
	got := nextEnvelopes(t, cb, 3)
	if _, err := ca.Send(ctx, envelope(a, g, 6, "live"), envelope(a, g, 7, "live")); err != nil {
		t.Fatal(err)
	}
	got = append(got, nextEnvelopes(t, cb, 2)...)
	for i, se := range got {
		if se.Seq != uint64(i+3) {
			t.Fatalf("envelope %d has seq %d, want %d (gapless, in order)", i, se.Seq, i+3)
		}
	}
	if string(got[4].Envelope.CT) != "live" {
		t.Fatalf("ct = %q", got[4].Envelope.CT)
	}
}

func TestChangeNotificationReachesSubscriber(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixtureWith(t, Limits{}, func(b *fakeBackend) { b.changes = make(chan store.Change, 4) }, a)
	c := f.client(a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g := wire.ID{7}
	if err := c.Subscribe(ctx, wire.SubscribeItem{Group: g}); err != nil {
		t.Fatal(err)
	}
	// Another relay process accepted two envelopes: they are only in the
	// database, and a notification says so.
	f.back.Send(ctx, f.ws, Principal{}, []wire.Envelope{envelope(a, g, 1, "x"), envelope(a, g, 2, "y")})
	f.back.changes <- store.Change{Kind: store.ChangeEnvelopes, Workspace: f.ws, Group: g, Seq: 2}
	got := nextEnvelopes(t, c, 2)
	if got[0].Seq != 1 || got[1].Seq != 2 {
		t.Fatalf("seqs %d,%d", got[0].Seq, got[1].Seq)
	}
}

func TestRevokedKeyIsClosedAndRefused(t *testing.T) {
	t.Parallel()
	a, b := newKey(t, 1), newKey(t, 2)
	f := newFixture(t, Limits{RecheckInterval: 500 * time.Millisecond}, a, b)
	cb := f.client(b)
	// The set drops b, accepted elsewhere (no transport call): the recheck
	// must close b's connection within 2 s.
	set, _ := f.back.AccessSet(context.Background(), f.ws)
	set.Version++
	set.Devices = set.Devices[:1]
	start := time.Now()
	f.back.replaceSet(set)
	deadline := time.After(2 * time.Second)
	for closed := false; !closed; {
		select {
		case ev := <-cb.Events():
			if ev.Kind == relayclient.EventDisconnected {
				var pe *relayclient.PermanentError
				if !errors.As(ev.Err, &pe) || !errors.Is(ev.Err, &wire.Error{Code: wire.CodeAuthRevoked}) {
					t.Fatalf("disconnect reason %v, want permanent auth/revoked", ev.Err)
				}
				closed = true
			}
		case <-deadline:
			t.Fatal("revoked connection still open after 2 s")
		}
	}
	t.Logf("closed %v after the access set changed", time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.KeyCredential(b.priv, wire.PrincipalDevice)})
	if !errors.Is(err, &wire.Error{Code: wire.CodeAuthUnknownKey}) {
		t.Fatalf("reconnect err = %v, want auth/unknown_key", err)
	}
	if _, err := cb.Fetch(ctx, wire.ID{1}, 0, 0); err == nil {
		t.Fatal("a stopped client still fetches")
	}
}

func TestPublishThroughRelayClosesAtOnceAndVoidsGrant(t *testing.T) {
	t.Parallel()
	a, b, joiner := newKey(t, 1), newKey(t, 2), newKey(t, 3)
	f := newFixture(t, Limits{RecheckInterval: time.Hour}, a, b)
	secret := newKey(t, 19).priv // the invite grant key
	set, _ := f.back.AccessSet(context.Background(), f.ws)
	set.Version++
	set.Grants = []wire.ID{wire.ID(secret.Public().(ed25519.PublicKey))}
	f.back.replaceSet(set)

	ca, cb := f.client(a), f.client(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cg, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.GrantCredential(joiner.priv, secret)})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	if p, _ := cg.Principal(); p.Kind != wire.PrincipalGrant || p.Principal != wire.KeyID(joiner.pub) {
		t.Fatalf("grant principal %+v", p)
	}
	next := set
	next.Version++
	next.Devices = next.Devices[:1]
	next.Grants = nil
	wire.SignAccessSet(&next, a.priv)
	start := time.Now()
	if v, err := ca.PublishAccessSet(ctx, next); err != nil || v != next.Version {
		t.Fatalf("publish: %d %v", v, err)
	}
	for _, c := range []*relayclient.Client{cb, cg} {
		waitDisconnected(t, c, wire.CodeAuthRevoked, 2*time.Second)
	}
	t.Logf("both closed within %v (recheck interval 1h: the publish itself enforced)", time.Since(start).Round(time.Millisecond))
	_, err = relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.GrantCredential(joiner.priv, secret)})
	if !errors.Is(err, &wire.Error{Code: wire.CodeAuthRevoked}) {
		t.Fatalf("voided grant connect err = %v, want auth/revoked", err)
	}
}

func waitDisconnected(t *testing.T, c *relayclient.Client, code wire.Code, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				if errors.Is(c.Err(), &wire.Error{Code: code}) {
					return
				}
				t.Fatalf("events closed with %v", c.Err())
			}
			if ev.Kind == relayclient.EventDisconnected {
				if !errors.Is(ev.Err, &wire.Error{Code: code}) {
					t.Fatalf("disconnected with %v, want %s", ev.Err, code)
				}
				return
			}
		case <-deadline:
			t.Fatalf("still connected after %v", within)
		}
	}
}

func TestLimitsEachHaveACode(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{MaxFrameBytes: 8192, MaxEnvelopesPerRequest: 2, MaxConnsPerKey: 2,
		RequestsPerSecond: 0.001, RequestBurst: 6}, a)
	r := f.raw(a)
	g := wire.ID{5}

	// Frame size: refused with its limit, and the connection stays usable.
	big := envelope(a, g, 1, strings.Repeat("x", 9000))
	r.send(10, &wire.Send{Envelopes: []wire.Envelope{big}})
	e := r.expectCode(10, wire.CodeLimitFrameSize)
	if v, _ := e.UintField("limit_bytes"); v != 8192 {
		t.Fatalf("limit_bytes = %d", v)
	}
	// Envelopes per request.
	r.send(11, &wire.Send{Envelopes: []wire.Envelope{envelope(a, g, 1, "1"), envelope(a, g, 2, "2"), envelope(a, g, 3, "3")}})
	if v, _ := r.expectCode(11, wire.CodeLimitBatchSize).UintField("limit"); v != 2 {
		t.Fatalf("batch limit = %d", v)
	}
	// Malformed and unknown frames.
	r.sendBytes([]byte{byte(wire.FrameFetch), 0, 0, 0, 12, 1, 2})
	r.expectCode(12, wire.CodeMalformed)
	r.sendBytes([]byte{0xEE, 0, 0, 0, 13})
	if v, _ := r.expectCode(13, wire.CodeUnknownFrame).UintField("type"); v != 0xEE {
		t.Fatalf("unknown type field = %x", v)
	}
	r.send(14, &wire.Ack{})
	r.expectCode(14, wire.CodeUnknownFrame)
	// Nothing above changed state.
	if res, _ := f.back.Fetch(context.Background(), f.ws, g, 0, 10); len(res.Envelopes) != 0 {
		t.Fatalf("refused requests stored %d envelopes", len(res.Envelopes))
	}
	r.send(15, &wire.Send{Envelopes: []wire.Envelope{envelope(a, g, 1, "ok")}})
	if _, ok := r.read().Body.(*wire.Ack); !ok {
		t.Fatal("valid send after refusals not acked")
	}
	// Burst of 6 is spent (10..15); the rate is ~0: the next is refused.
	r.send(16, &wire.StatsRequest{})
	if v, _ := r.expectCode(16, wire.CodeLimitRate).UintField("retry_after_ms"); v == 0 {
		t.Fatal("no retry_after_ms")
	}
	// Connections per key: the raw one plus one more is the limit.
	f.raw(a)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.KeyCredential(a.priv, wire.PrincipalDevice)})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeLimitConnections {
		t.Fatalf("third connection err = %v, want limit/connections", err)
	}
	if got := testCounter(t, f, `weald_relay_refused_total{code="limit/connections"}`); got < 1 {
		t.Fatalf("refusal not counted: %v", got)
	}
}

func TestHandshakeRefusals(t *testing.T) {
	t.Parallel()
	a, stranger := newKey(t, 1), newKey(t, 9)
	f := newFixture(t, Limits{}, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dial := func() *raw {
		ws, _, err := websocket.Dial(ctx, f.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		return &raw{t: t, ws: ws}
	}
	// A request before Hello.
	r := dial()
	r.send(1, &wire.StatsRequest{})
	r.expectCode(1, wire.CodeAuthRequired)
	// Wrong version.
	r = dial()
	r.send(1, &wire.Hello{Version: 99, Workspace: f.ws})
	r.expectCode(1, wire.CodeBadVersion)
	// A signature over a different nonce.
	r = dial()
	r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
	ch := r.read().Body.(*wire.Challenge)
	other := f.bind(ch)
	other.Nonce = wire.ID{0xAA}
	r.send(2, wire.SignChallenge(a.priv, wire.PrincipalDevice, other))
	r.expectCode(2, wire.CodeAuthBadSignature)
	// A key not in the set.
	_, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.KeyCredential(stranger.priv, wire.PrincipalDevice)})
	if !errors.Is(err, &wire.Error{Code: wire.CodeAuthUnknownKey}) {
		t.Fatalf("stranger err = %v", err)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{}, a)
	c := f.client(a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.Send(ctx, envelope(a, wire.ID{3}, 1, "abcd")); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(f.http.URL + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", res, err)
	}
	res.Body.Close()
	if v := testCounter(t, f, "weald_relay_envelopes_accepted_total"); v != 1 {
		t.Fatalf("accepted = %v", v)
	}
	if v := testCounter(t, f, "weald_relay_connections"); v != 1 {
		t.Fatalf("connections = %v", v)
	}
	if v := testCounter(t, f, `weald_relay_workspace_log_bytes{workspace="`+f.ws.String()+`"}`); v != 4 {
		t.Fatalf("workspace bytes = %v", v)
	}
}

var metricsMu sync.Mutex

// testCounter scrapes /metrics and returns the value of one series.
func testCounter(t *testing.T, f *fixture, series string) float64 {
	t.Helper()
	metricsMu.Lock()
	defer metricsMu.Unlock()
	res, err := http.Get(f.http.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmtSscan(rest, &v); err == nil {
				return v
			}
		}
	}
	t.Fatalf("series %s not in /metrics", series)
	return 0
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }

// A peer that stops answering pings is closed and frees its key's slot; a
// live client (which reads, so it answers) stays.
func TestKeepaliveClosesDeadPeers(t *testing.T) {
	t.Parallel()
	a, b := newKey(t, 1), newKey(t, 2)
	f := newFixture(t, Limits{PingInterval: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond}, a, b)
	f.raw(a) // authenticates, then never reads again
	live := f.client(b)
	deadline := time.Now().Add(3 * time.Second)
	for f.srv.hub.count(f.ws, wire.KeyID(a.pub)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("silent peer still registered after 3 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := live.Stats(ctx); err != nil {
		t.Fatalf("live client after pings: %v", err)
	}
	if n := f.srv.hub.count(f.ws, wire.KeyID(b.pub)); n != 1 {
		t.Fatalf("live client registered %d times", n)
	}
}
