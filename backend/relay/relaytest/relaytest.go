// Package relaytest starts a real relay in process for the tests of its
// clients: the accept path (backend/relay) over the WebSocket transport
// (backend/relay/server) on a SQLite store, listening on 127.0.0.1.
package relaytest

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
)

// Relay is a running relay; it stops when the test ends.
type Relay struct {
	URL     string // ws://127.0.0.1:PORT/v1/ws
	Service *relay.Service
	Metrics *server.Metrics // the server's series (Requests: requests by frame)
}

// Start starts a relay with a fresh store in t's temporary directory.
func Start(t testing.TB) *Relay {
	t.Helper()
	return StartWith(t, relay.Config{})
}

// StartWith starts a relay with cfg, its Store filled in.
func StartWith(t testing.TB, cfg relay.Config) *Relay {
	t.Helper()
	return StartWrapped(t, cfg, nil)
}

// StartWrapped starts a relay with cfg whose WebSocket server talks to
// wrap(service) instead of the service itself (nil wrap: the service), so a
// test can put an interceptor between the transport and the accept path.
func StartWrapped(t testing.TB, cfg relay.Config, wrap func(*relay.Service) server.Backend) *Relay {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "relay.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() }) // after the server has stopped
	return StartOnWrapped(t, cfg, st, wrap)
}

// StartOn starts a relay with cfg on st (a SQLite or PostgreSQL store,
// e.g. store.OpenPostgres of a pgtest database); the caller closes st, or
// registers its Close with t.Cleanup before calling (cleanups run last
// first, so the server stops before the store closes).
func StartOn(t testing.TB, cfg relay.Config, st store.Store) *Relay {
	t.Helper()
	return StartOnWrapped(t, cfg, st, nil)
}

// StartOnWrapped is StartWrapped on st.
func StartOnWrapped(t testing.TB, cfg relay.Config, st store.Store, wrap func(*relay.Service) server.Backend) *Relay {
	t.Helper()
	cfg.Store = st
	svc := relay.New(cfg)
	var backend server.Backend = svc
	if wrap != nil {
		backend = wrap(svc)
	}
	ln := Listen(t, "127.0.0.1:0")
	m := server.NewMetrics()
	Serve(t, ln, server.New(server.Config{Backend: backend, Metrics: m}))
	return &Relay{URL: "ws://" + ln.Addr().String() + "/v1/ws", Service: svc, Metrics: m}
}

// Listen listens on addr ("127.0.0.1:0" for any port), retrying for up to a
// second while a listener that just closed on the same address lingers (a
// test restarting its relay where its clients expect it).
func Listen(t testing.TB, addr string) net.Listener {
	t.Helper()
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal(err)
	return nil
}

// Serve serves srv on ln until the test ends or stop is called; stop closes
// the server and its listener and waits until serving has ended. Calling it
// more than once is harmless.
func Serve(t testing.TB, ln net.Listener, srv *server.Server) (stop func()) {
	hs := &http.Server{Handler: srv}
	done := make(chan struct{})
	go func() { hs.Serve(ln); close(done) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			srv.Close()
			hs.Close()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}
