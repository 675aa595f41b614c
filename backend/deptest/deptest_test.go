// Package deptest checks the import rules of architecture.md "Layers" on the
// real import graphs (go list), in the manner of tailscale's deptest: imports
// point down the layer order only (layers_test.go), nothing under backend/
// imports Wails, and the relay cannot read content, so backend/relay (and the
// weald-relay binary) never imports backend/mls or backend/documents.
package deptest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "weald"

type pkg struct {
	ImportPath string
	Imports    []string // direct imports
	Deps       []string // every package it depends on, transitively
}

// listDeps returns every package matching pattern with its transitive deps,
// for the given build tags.
func listDeps(t *testing.T, tags, pattern string) []pkg {
	t.Helper()
	args := []string{"list", "-deps=false", "-json=ImportPath,Imports,Deps", "-e"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, strings.Fields(pattern)...)
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// forbidden reports each (package, dependency) pair where a package matching
// from depends on a package for which bad returns true.
func forbidden(pkgs []pkg, bad func(dep string) bool) []string {
	var hits []string
	for _, p := range pkgs {
		if bad(p.ImportPath) {
			hits = append(hits, p.ImportPath+" is itself forbidden here")
		}
		for _, d := range p.Deps {
			if bad(d) {
				hits = append(hits, p.ImportPath+" imports "+d)
			}
		}
	}
	return hits
}

func TestBackendNeverImportsWails(t *testing.T) {
	for _, tags := range []string{"", "desktop,production", "e2e"} {
		pkgs := listDeps(t, tags, "./...")
		if len(pkgs) == 0 {
			t.Fatalf("go list found no packages under backend/")
		}
		hits := forbidden(pkgs, func(d string) bool { return strings.HasPrefix(d, "github.com/wailsapp/") })
		for _, h := range hits {
			t.Errorf("tags %q: %s", tags, h)
		}
		t.Logf("tags %q: %d backend packages checked", tags, len(pkgs))
	}
}

func TestRelayCannotReadContent(t *testing.T) {
	pkgs := listDeps(t, "", "./relay/... ./cmd/weald-relay")
	if len(pkgs) == 0 {
		t.Fatal("go list found no relay packages")
	}
	hits := forbidden(pkgs, func(d string) bool {
		return d == module+"/backend/mls" || strings.HasPrefix(d, module+"/backend/mls/") ||
			d == module+"/backend/documents" || strings.HasPrefix(d, module+"/backend/documents/")
	})
	for _, h := range hits {
		t.Error(h)
	}
	t.Logf("%d relay packages checked", len(pkgs))
}

// TestRuleCatchesViolation proves the checker can fail: a package graph that
// breaks the rule is reported.
func TestRuleCatchesViolation(t *testing.T) {
	pkgs := []pkg{{ImportPath: module + "/backend/relay", Deps: []string{"fmt", module + "/backend/mls/suite"}}}
	hits := forbidden(pkgs, func(d string) bool { return strings.HasPrefix(d, module+"/backend/mls") })
	if len(hits) != 1 {
		t.Fatalf("want one violation, got %v", hits)
	}
}
