// Package interop drives two MLS implementations that speak the mlspeer command
// line (backend/cmd/mlspeer and a Node driver over the npm package ts-mls in
// js/) through the same story, and checks that every party agrees on the epoch
// authenticator and exporter outputs at every epoch (RFC 9420 §8.5, §8.7).
package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

var mlspeerBin string // built by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mlspeer-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mlspeerBin = filepath.Join(dir, "mlspeer")
	if runtime.GOOS == "windows" {
		mlspeerBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", mlspeerBin, "weald/backend/cmd/mlspeer")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mlspeer:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func goImpl() impl { return impl{name: "go", argv: []string{mlspeerBin}} }

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

// TestGoWithTSMLS is the interop proof: Go creates group 1 and ts-mls joins
// it by Welcome and by external commit; ts-mls creates group 2 and Go joins
// it by Welcome with an out-of-band tree. It runs under -short too: through
// one serve process per implementation it takes seconds, not minutes.
func TestGoWithTSMLS(t *testing.T) {
	t.Parallel()
	scenario(t, goImpl().served(t), tsImpl(t).served(t))
}

func TestGoWithItself(t *testing.T) {
	t.Parallel()
	g := goImpl().served(t)
	scenario(t, g, g)
}

func TestErrorCodes(t *testing.T) {
	t.Parallel()
	for _, im := range []impl{goImpl(), tsImpl(t)} {
		errorCodes(t, im)
	}
}
