// Package hostrelay runs the Weald relay inside the desktop app: "Host on
// this computer" in the create flow (issue 15, "First run with nobody
// else"). It is the same relay code as weald-relay (backend/relay over
// backend/relay/server) on SQLite in the app's data directory, listening on
// loopback, or on every interface when the user lets other computers on the
// network connect. The app is the relay's operator: it provisions its own
// workspaces in process (Provision), so the relay stays in operator mode
// and nobody else can create workspaces on it.
package hostrelay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Host is a running embedded relay.
type Host struct {
	svc  *relay.Service
	st   store.Store
	srv  *server.Server
	hs   *http.Server
	done chan struct{}
	port int
	lan  bool
	// URL is the address this computer's clients dial (loopback).
	URL string
}

// Options say where the relay keeps its database and listens.
type Options struct {
	Dir string // the relay's directory (relay.db inside)
	// Port is the TCP port; 0 picks a free one (Port() says which, to
	// keep for the next start: workspaces store their relay's address).
	Port int
	// LAN listens on every interface instead of loopback only.
	LAN    bool
	Logger *slog.Logger
}

// Start opens the database and starts serving; it returns once the relay
// accepts connections (or ctx ends).
func Start(ctx context.Context, o Options) (*Host, error) {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("hostrelay: %w", err)
	}
	st, err := store.OpenSQLite(ctx, filepath.Join(o.Dir, "relay.db"))
	if err != nil {
		return nil, fmt.Errorf("hostrelay: open the relay database: %w", err)
	}
	bind := "127.0.0.1"
	if o.LAN {
		bind = "0.0.0.0"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(o.Port)))
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("hostrelay: listen on port %d: %w", o.Port, err)
	}
	svc := relay.New(relay.Config{Store: st})
	srv := server.New(server.Config{Backend: svc, Logger: o.Logger})
	h := &Host{svc: svc, st: st, srv: srv, hs: &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}), port: ln.Addr().(*net.TCPAddr).Port, lan: o.LAN}
	h.URL = fmt.Sprintf("ws://127.0.0.1:%d/v1/ws", h.port)
	go func() {
		defer close(h.done)
		if err := h.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && o.Logger != nil {
			o.Logger.Warn("embedded relay stopped serving", "err", err)
		}
	}()
	select {
	case <-srv.Ready():
	case <-ctx.Done():
		h.Close()
		return nil, ctx.Err()
	}
	return h, nil
}

// Port is the port the relay listens on.
func (h *Host) Port() int { return h.port }

// LAN reports whether other computers may connect.
func (h *Host) LAN() bool { return h.lan }

// LANURL is the address to give teammates on the network: this computer's
// first non-loopback IPv4 address; "" when the relay is loopback only or
// the computer has none.
func (h *Host) LANURL() string {
	if !h.lan {
		return ""
	}
	ip := LANAddress()
	if ip == "" {
		return ""
	}
	return fmt.Sprintf("ws://%s/v1/ws", net.JoinHostPort(ip, strconv.Itoa(h.port)))
}

// LANAddress is this computer's first non-loopback IPv4 address, or "".
func LANAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// Provision records a workspace and its genesis key: the app is this
// relay's operator (engine.Options.Provision).
func (h *Host) Provision(ctx context.Context, ws wire.ID, genesisPub []byte) error {
	return h.svc.ProvisionWorkspace(ctx, ws, genesisPub)
}

// Close stops serving (open connections are told relay/shutting_down) and
// closes the database.
func (h *Host) Close() error {
	h.srv.Close()
	err := h.hs.Close()
	<-h.done
	if cerr := h.st.Close(); err == nil {
		err = cerr
	}
	return err
}
