package hostrelay_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"strings"
	"testing"

	"weald/app/hostrelay"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// TestHostServesAndKeepsItsPortAndData (issue 15, "Host on this
// computer"): the embedded relay answers /healthz on loopback, records a
// workspace the app provisions, refuses PROVISION from anyone else
// (operator mode), and after a restart on the same port still holds it.
func TestHostServesAndKeepsItsPortAndData(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.URL, "ws://127.0.0.1:") || h.LANURL() != "" {
		t.Fatalf("loopback host: %s %q", h.URL, h.LANURL())
	}
	health(t, h)
	gen := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	ws := wire.ID{1}
	if err := h.Provision(ctx, ws, gen); err != nil {
		t.Fatal(err)
	}
	err = relayclient.Provision(ctx, h.URL, wire.ID{2}, wire.ID(gen), nil)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeProvisionOperatorOnly {
		t.Fatalf("PROVISION from a client: %v, want %s", err, wire.CodeProvisionOperatorOnly)
	}
	port := h.Port()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h2, err := hostrelay.Start(ctx, hostrelay.Options{Dir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if h2.URL != h.URL {
		t.Fatalf("restarted at %s, was %s", h2.URL, h.URL)
	}
	health(t, h2)
	if err := h2.Provision(ctx, ws, gen); !errors.As(err, &we) || we.Code != wire.CodeWorkspaceExists {
		t.Fatalf("the workspace after a restart: %v, want %s", err, wire.CodeWorkspaceExists)
	}
}

func health(t *testing.T, h *hostrelay.Host) {
	t.Helper()
	u := strings.Replace(strings.TrimSuffix(h.URL, "/v1/ws"), "ws://", "http://", 1) + "/healthz"
	r, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", u, r.Status)
	}
}

// BenchmarkStart is the embedded relay's start (issue 15 goal: < 200 ms):
// open the existing SQLite database, listen, serve, answer /healthz; then
// close (not timed).
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	h.Close()
	for b.Loop() {
		h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		r, err := http.Get(strings.Replace(strings.TrimSuffix(h.URL, "/v1/ws"), "ws://", "http://", 1) + "/healthz")
		if err != nil || r.StatusCode != http.StatusOK {
			b.Fatalf("healthz: %v", err)
		}
		r.Body.Close()
		b.StopTimer()
		h.Close()
		b.StartTimer()
	}
}

// BenchmarkStartFirst is the first start on this computer: a new database
// (every migration), then as BenchmarkStart.
func BenchmarkStartFirst(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		h.Close()
		b.StartTimer()
	}
}
