//go:build e2e

// The e2e build serves the same frontend and bound methods over plain HTTP on
// loopback, for browser tests (package app/shim).
package main

import (
	"context"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"time"

	"weald/app"
	"weald/app/shim"
)

//go:embed all:frontend/dist
var assets embed.FS

// shimEvents is the app.Emitter of the e2e build: the shim's server-sent
// events to every open page.
type shimEvents struct{ srv *shim.Server }

func (e *shimEvents) Emit(_ context.Context, name string, data ...any) {
	if e.srv != nil {
		e.srv.Emit(name, data...)
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	flag.Parse()
	dir, err := app.DefaultDataDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e: no data directory:", err)
		os.Exit(1)
	}
	dist, _ := fs.Sub(assets, "frontend/dist")
	events := &shimEvents{}
	a := app.New(dir, os.Stderr, events)
	srv, err := shim.New(dist, app.Services(a), app.Lifecycle...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
	if err := srv.ServeOn(ln.Addr().String()); err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
	events.srv = srv
	fmt.Printf("weald-e2e listening on http://%s\n", ln.Addr())
	a.Startup(context.Background())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /__weald/seed", seed)
	mux.HandleFunc("POST /__weald/clock", clock)
	mux.Handle("/", srv)
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
}

// seed is the e2e build's seeding hook: POST {"workspace", "channel", "n",
// "mixed"} gives that channel n synthetic messages (app.SeedHistory), for the
// benchmark of opening a long channel (frontend/e2e/longchannel.bench.mjs)
// and the check that rows never overlap (frontend/e2e/rows.test.mjs).
func seed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Workspace string `json:"workspace"`
		Channel   string `json:"channel"`
		N         int    `json:"n"`
		Mixed     bool   `json:"mixed"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, "seed: bad request", http.StatusBadRequest)
		return
	}
	if err := app.SeedHistory(req.Workspace, req.Channel, req.N, req.Mixed); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// clock is the e2e build's clock hook: POST {"offsetHours"} shifts every
// engine's clock that far back (app.SetClockOffset; 0 puts the real time
// back), for messages dated days ago (frontend/e2e/retention.test.mjs).
func clock(w http.ResponseWriter, r *http.Request) {
	var req struct {
		OffsetHours int `json:"offsetHours"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, "clock: bad request", http.StatusBadRequest)
		return
	}
	if err := app.SetClockOffset(time.Duration(req.OffsetHours) * time.Hour); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
