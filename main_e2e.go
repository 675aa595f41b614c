//go:build e2e

// The e2e build serves the same frontend and bound methods over plain HTTP on
// loopback, for browser tests (package app/shim).
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"

	"weald/app"
	"weald/app/shim"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	flag.Parse()
	dir, err := app.DefaultDataDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e: no data directory:", err)
		os.Exit(1)
	}
	dist, _ := fs.Sub(assets, "frontend/dist")
	a := app.New(dir, os.Stderr)
	srv, err := shim.New(dist, app.Services(a), "Startup")
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
	fmt.Printf("weald-e2e listening on http://%s\n", ln.Addr())
	a.Startup(context.Background())
	if err := http.Serve(ln, srv); err != nil {
		fmt.Fprintln(os.Stderr, "weald-e2e:", err)
		os.Exit(1)
	}
}
