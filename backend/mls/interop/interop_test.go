// Package interop drives two MLS implementations that speak the mlspeer command
// line (backend/cmd/mlspeer and a Node driver over the npm package ts-mls in
// js/) through the same story, and checks that every party agrees on the epoch
// authenticator and exporter outputs at every epoch (RFC 9420 §8.5, §8.7).
package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tsImpl returns the ts-mls driver, failing (never skipping) when its
// dependencies have not been installed.
func tsImpl(t *testing.T) impl {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the MLS interop test needs Node.js 20+ to run the ts-mls peer")
	}
	dir, err := filepath.Abs("js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ts-mls", "package.json")); err != nil {
		t.Fatalf("ts-mls is not installed: run `npm ci` in backend/mls/interop/js (make test does) before go test")
	}
	return impl{name: "ts-mls", argv: []string{node, filepath.Join(dir, "peer.mjs")}}
}

func TestTSMLSWithItself(t *testing.T) {
	ts := tsImpl(t)
	scenario(t, ts, ts)
}

func TestTSMLSErrorCodes(t *testing.T) {
	errorCodes(t, tsImpl(t))
}
