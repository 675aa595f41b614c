package app_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// TestCommittedModelsMatchGo fails when frontend/wailsjs differs from what
// `make bindings` writes for the Go services as they are now: a struct field,
// tag or enum changed (models.ts), a bound method changed (the go/app files),
// or Wails was upgraded (runtime). It builds the bindings generator as the
// Makefile does and runs it in a scratch folder; the committed files are not
// touched. It needs frontend/dist, as every build of the root package does.
func TestCommittedModelsMatchGo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the bindings generator (about 30 s); run without -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "frontend", "dist")); err != nil {
		t.Fatalf("frontend/dist is missing (run make frontend): %v", err)
	}
	scratch := t.TempDir()
	bin := filepath.Join(scratch, "weald-bindings")
	// go test puts its own GOROOT/bin first on the PATH of what a test runs.
	build := exec.Command("go", "build", "-tags", "bindings", "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags bindings: %v\n%s", err, out)
	}
	conf, err := os.ReadFile(filepath.Join(root, "wails.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(scratch, "wails.json"), conf, 0o600); err != nil {
		t.Fatal(err)
	}
	gen := exec.Command(bin)
	gen.Dir = scratch
	gen.Env = append(os.Environ(), "HOME="+scratch, "XDG_DATA_HOME="+filepath.Join(scratch, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(scratch, "config"))
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("weald-bindings: %v\n%s", err, out)
	}
	want := readTree(t, filepath.Join(scratch, "frontend", "wailsjs"))
	got := readTree(t, filepath.Join(root, "frontend", "wailsjs"))
	if len(want) < 5 {
		t.Fatalf("the generator wrote %d files, want the models, the services and the runtime", len(want))
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			t.Errorf("frontend/wailsjs/%s is missing: run make bindings", n)
		case !inWant:
			t.Errorf("frontend/wailsjs/%s is not generated from Go: run make bindings", n)
		case !bytes.Equal(w, g):
			t.Errorf("frontend/wailsjs/%s differs from what the Go services generate: run make bindings", n)
		}
	}
}

// readTree reads every file under dir, by its slash-separated path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
