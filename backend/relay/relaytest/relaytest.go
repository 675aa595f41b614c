// Package relaytest starts a real relay in process for the tests of its
// clients: the accept path (backend/relay) over the WebSocket transport
// (backend/relay/server) on a SQLite store, listening on 127.0.0.1.
package relaytest

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
)

// Relay is a running relay; it stops when the test ends.
type Relay struct {
	URL     string // ws://127.0.0.1:PORT/v1/ws
	Service *relay.Service
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
	cfg.Store = st
	svc := relay.New(cfg)
	var backend server.Backend = svc
	if wrap != nil {
		backend = wrap(svc)
	}
	srv := server.New(server.Config{Backend: backend})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
		st.Close()
	})
	return &Relay{URL: "ws://" + ln.Addr().String() + "/v1/ws", Service: svc}
}
