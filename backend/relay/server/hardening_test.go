package server

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/relayclient"
	"weald/backend/wire"
)

// An outsider scrapes /metrics on the public listener: refused (403), and no
// workspace id in the answer. From loopback it is served. On main at
// 0478711 /metrics answered anyone, workspace ids included.
func TestMetricsAreServedToLoopbackOnly(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{}, a)
	f.srv.observeStats(&wire.Stats{Workspace: f.ws, LogBytes: 4})
	for _, remote := range []string{"203.0.113.7:4711", "[2001:db8::1]:4711", "10.0.0.2:1"} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), f.ws.String()) {
			t.Fatalf("%s: /metrics answered %d (%d bytes, workspace id in it: %v)", remote, rec.Code, rec.Body.Len(), strings.Contains(rec.Body.String(), f.ws.String()))
		}
	}
	for _, remote := range []string{"127.0.0.1:4711", "[::1]:4711"} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), f.ws.String()) {
			t.Fatalf("%s: /metrics answered %d", remote, rec.Code)
		}
	}
}

// /healthz with a failing database answers 503 without the error's text
// (which can name hosts, users and paths). On main at 0478711 the text was
// in the answer.
func TestHealthzDoesNotLeakTheDatabaseError(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, Limits{}, func(b *fakeBackend) {
		b.pingErr = errors.New(`dial tcp db.internal:5432: password authentication failed for user "weald"`)
	})
	res, err := http.Get(f.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d", res.StatusCode)
	}
	for _, secret := range []string{"db.internal", "password", "weald"} {
		if strings.Contains(string(body), secret) {
			t.Fatalf("/healthz body %q names %q", body, secret)
		}
	}
}

// A grant connection rests on a provisional grant. When the relay cannot
// read the access set (or the grant), it closes grant connections (with
// internal/error, so the client reconnects and is checked again) and keeps
// key connections. On main at 0478711 grant connections stayed open for as
// long as the reads failed.
func TestGrantConnectionsCloseWhenTheAccessSetCannotBeRead(t *testing.T) {
	t.Parallel()
	a, joiner := newKey(t, 1), newKey(t, 3)
	f := newFixture(t, Limits{RecheckInterval: time.Hour}, a)
	secret := newKey(t, 19).priv // the invite grant key
	set, _ := f.back.AccessSet(context.Background(), f.ws)
	set.Version++
	set.Grants = []wire.ID{wire.ID(secret.Public().(ed25519.PublicKey))}
	f.back.replaceSet(set)
	ca := f.client(a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cg, err := relayclient.Dial(ctx, relayclient.Config{URL: f.url, Workspace: f.ws,
		Credential: relayclient.GrantCredential(joiner.priv, secret)})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	f.back.mu.Lock()
	f.back.readErr = errors.New("database unavailable")
	f.back.mu.Unlock()
	f.srv.enforce(f.ws)
	waitDisconnected(t, cg, wire.CodeInternal, 2*time.Second)
	f.back.mu.Lock()
	f.back.readErr = nil
	f.back.mu.Unlock()
	if _, err := ca.Stats(ctx); err != nil {
		t.Fatalf("the key connection was closed too: %v", err)
	}
}

// Once the relay revokes a connection, nothing more is served on it: an
// answer the connection would still queue is refused, and the client reads
// the auth/revoked reason and then the close, no other frame. On main at
// 0478711 the connection kept being served (answers queued and written)
// until the close went out.
func TestRevokedConnectionGetsNoFurtherFrames(t *testing.T) {
	t.Parallel()
	a, b := newKey(t, 1), newKey(t, 2)
	f := newFixture(t, Limits{RecheckInterval: time.Hour}, a, b)
	r := f.raw(b)
	var cb *conn
	for _, m := range f.srv.hub.connections(f.ws) {
		if _, key, _ := m.principal(); key == wire.KeyID(b.pub) {
			cb = m.(*conn)
		}
	}
	if cb == nil {
		t.Fatal("b's connection is not registered")
	}
	set, _ := f.back.AccessSet(context.Background(), f.ws)
	set.Version++
	set.Devices = set.Devices[:1]
	f.back.replaceSet(set)
	f.srv.accessSetMoved(f.ws, set.Version)
	if err := cb.reply(99, &wire.OK{}); err == nil {
		t.Fatal("an answer was queued on a revoked connection")
	}
	r.send(100, &wire.StatsRequest{})
	fr := r.read()
	eb, ok := fr.Body.(*wire.ErrorBody)
	if !ok || eb.Err.Code != wire.CodeAuthRevoked || fr.ID != 0 {
		t.Fatalf("first frame after revocation: id %d %T %v", fr.ID, fr.Body, fr.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, extra, err := r.ws.Read(ctx)
	if err == nil {
		g, _ := wire.DecodeFrame(extra)
		t.Fatalf("a frame after the revocation: id %d %T", g.ID, g.Body)
	}
	// The close status is 1008 when the close frame wins the race with the
	// relay cancelling the connection's reads; otherwise the socket just
	// ends (EOF). Either way nothing came after the revocation notice.
	if s := websocket.CloseStatus(err); s != -1 && s != websocket.StatusPolicyViolation {
		t.Fatalf("closed with %v, want 1008 or a dropped socket", err)
	}
}
