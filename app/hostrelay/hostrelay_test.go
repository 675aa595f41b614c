package hostrelay_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

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
	health(t, h.URL)
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
	health(t, h2.URL)
	if err := h2.Provision(ctx, ws, gen); !errors.As(err, &we) || we.Code != wire.CodeWorkspaceExists {
		t.Fatalf("the workspace after a restart: %v, want %s", err, wire.CodeWorkspaceExists)
	}
}

// health checks that the relay at address at answers /healthz.
func health(t *testing.T, at string) {
	t.Helper()
	u := strings.Replace(strings.TrimSuffix(at, "/v1/ws"), "ws://", "http://", 1) + "/healthz"
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

// TestHostOnTheNetwork (issue 15, "the LAN optional with the address to
// give teammates shown"): with LAN the relay answers on this machine's own
// non-loopback address, which LANURL gives; without it, that address is
// refused and only loopback answers. No traffic leaves the machine: the
// address is one of its own interfaces.
func TestHostOnTheNetwork(t *testing.T) {
	ip := hostrelay.LANAddress()
	if ip == "" {
		t.Skip("this machine has no non-loopback IPv4 address to listen on")
	}
	ctx := context.Background()
	h, err := hostrelay.Start(ctx, hostrelay.Options{Dir: t.TempDir(), LAN: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	want := "ws://" + net.JoinHostPort(ip, strconv.Itoa(h.Port())) + "/v1/ws"
	if got := h.LANURL(); got != want || strings.Contains(got, "127.0.0.1") {
		t.Fatalf("LANURL = %q, want %q", got, want)
	}
	health(t, h.LANURL())
	health(t, h.URL)

	lo, err := hostrelay.Start(ctx, hostrelay.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, strconv.Itoa(lo.Port())), 5*time.Second); err == nil {
		c.Close()
		t.Fatalf("a loopback-only relay answered on %s", ip)
	}
}
