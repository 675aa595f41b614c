// Command weald-relay runs the Weald relay: store-and-forward of signed
// ciphertext envelopes over WebSocket, on SQLite (the default, a file in its
// data directory) or PostgreSQL (several relay processes may share one
// database). Issue 4; design/gaps.md "Relay protocol"; spec/lifecycle.md
// "The workspace byte budget" and "What the relay never does".
//
// Usage:
//
//	weald-relay [flags]                                  serve (prints the database, then "listening on ADDR")
//	weald-relay provision -workspace HEX -genesis HEX    record a workspace and its genesis key
//	weald-relay token create [-uses N] [-expires D]      print a relay link that creates workspaces (token mode)
//	weald-relay version (or --version)                   print the version and commit
//	weald-relay help [COMMAND]                           the commands, or one command's flags
//	weald-relay completion SHELL                         a shell completion script
//
// Configuration: flags override WEALD_RELAY_LISTEN, WEALD_RELAY_DB,
// WEALD_RELAY_MAX_LOG_GB, WEALD_RELAY_MAX_STORAGE_GB and
// WEALD_RELAY_RETENTION_DAYS. Bad values exit with status 2.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
	"weald/backend/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program; it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintf(stdout, "weald-relay %s\n", version.Get())
		return 0
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		// The commands and the serving flags, not only the flags.
		args = []string{"help"}
	}
	code := 0
	root := commands(ctx, getenv, stdout, stderr, &code)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		fmt.Fprintf(stderr, "weald-relay: %v\n", err)
		return 2
	}
	return code
}

// runServe parses the serving flags and serves until ctx ends.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "weald-relay: %v\n", err)
		return 2
	}
	if err := serve(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "weald-relay: %v\n", err)
		return 1
	}
	return 0
}

// openStore opens the configured database, creating the SQLite file's
// directory if needed.
func openStore(ctx context.Context, c config) (store.Store, error) {
	if !isPostgres(c.DB) {
		if err := os.MkdirAll(filepath.Dir(c.DB), 0o700); err != nil {
			return nil, fmt.Errorf("create the database directory: %w", err)
		}
	}
	octx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	st, err := store.Open(octx, c.DB)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", describeDB(c.DB), err)
	}
	return st, nil
}

// describeDB names the database for people, without a password.
func describeDB(db string) string {
	if !isPostgres(db) {
		abs, err := filepath.Abs(db)
		if err != nil {
			abs = db
		}
		return "sqlite " + abs
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres (unparsable URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return "postgres " + u.Redacted()
}

func serve(ctx context.Context, c config, stdout, stderr io.Writer) error {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	st, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := relay.New(relay.Config{Store: st, MaxLogBytes: uint64(c.MaxLogBytes), MaxRosterBytes: uint64(c.MaxRoster),
		RetentionDays: uint32(c.RetentionDays), MaxBatch: c.Limits.MaxEnvelopes, Provisioning: c.Provisioning})
	srv := server.New(server.Config{Backend: svc, Logger: log, PublicHosts: c.PublicHosts, Limits: server.Limits{
		MaxFrameBytes:          c.Limits.MaxFrameBytes,
		MaxEnvelopesPerRequest: c.Limits.MaxEnvelopes,
		MaxConnsPerKey:         c.Limits.MaxConnsPerKey,
		RequestsPerSecond:      c.Limits.RequestsPerSec,
		RequestBurst:           c.Limits.RequestBurst,
	}})
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listen on %s: %w", c.Listen, err)
	}
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "weald-relay: database %s\n", describeDB(c.DB))
	fmt.Fprintf(stdout, "weald-relay: log budget %s per workspace, retention warning %s\n",
		gbText(c.MaxLogBytes), daysText(c.RetentionDays))
	if c.MaxStorage > 0 {
		fmt.Fprintf(stdout, "weald-relay: blob storage ceiling %s (this relay version stores no blobs, so nothing counts against it)\n",
			gbText(c.MaxStorage))
	}
	if len(c.PublicHosts) > 0 {
		fmt.Fprintf(stdout, "weald-relay: public host %s (an AUTH made for another host is refused)\n", strings.Join(c.PublicHosts, ", "))
	} else {
		fmt.Fprintf(stdout, "weald-relay: no public host set: an AUTH must name the Host header of its request (set -public-host behind a proxy that rewrites Host)\n")
	}
	fmt.Fprintf(stdout, "weald-relay: provisioning %s (%s)\n", c.Provisioning, provisioningText(c.Provisioning))
	fmt.Fprintf(stdout, "weald-relay: listening on %s (WebSocket ws://%s/v1/ws, http://%s/healthz, http://%s/metrics)\n",
		addr, addr, addr, addr)
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		srv.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "weald-relay: shutting down")
	// Stop accepting, close WebSockets (hijacked, so Shutdown does not wait
	// for them), then wait for plain HTTP requests up to the grace period.
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownGrace)
	defer cancel()
	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- hs.Shutdown(sctx) }()
	srv.Close()
	if err := <-shutdownErr; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	fmt.Fprintln(stdout, "weald-relay: stopped")
	return nil
}

func gbText(b int64) string {
	if b == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%d bytes (%.3g GB)", b, float64(b)/bytesPerGB)
}

func daysText(d int) string {
	if d == 0 {
		return "off"
	}
	return fmt.Sprintf("%d days (warns only; never deletes)", d)
}

func provisioningText(m relay.ProvisionMode) string {
	switch m {
	case relay.ProvisionToken:
		return "a relay link from weald-relay token create creates a workspace"
	case relay.ProvisionOpen:
		return "anyone who reaches this relay can create a workspace"
	}
	return "only weald-relay provision creates a workspace"
}
