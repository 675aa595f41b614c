package deptest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// layers is architecture.md "Layers" as a table: a package may import only
// packages of a lower rank (arrows point down only), never one of its own
// rank in another component:
//
//	app → engine → {groups, lifecycle, retention, health, attest}
//	    → {roster, mls, documents, store, relayclient} → {identity, wire}
//
// A component is a package path under backend/ with everything below it
// (mls covers mls/tree, mls/framing, ...). The relay, the project files and
// the shared low packages are placed where their imports put them; the
// binaries sit on top. A new package under backend/ needs a row here: the test
// names it until it has one.
var layers = []struct {
	rank       int
	components []string
}{
	{0, []string{"errcode", "version"}},
	{1, []string{"internal/codec", "internal/ed25519batch", "internal/manpage"}},
	{2, []string{"identity", "wire"}},
	{3, []string{"roster", "mls", "documents", "store", "relayclient", "project"}},
	{4, []string{"groups", "lifecycle", "retention", "health", "attest", "relay"}},
	{5, []string{"engine"}},
	{6, []string{"app"}},
	{7, []string{"cmd/weald", "cmd/weald-relay", "cmd/mlspeer", "."}},
}

// testOnly are packages that exist for tests (fixtures, harnesses, this
// package); they may import anything and nothing but tests may import them.
var testOnly = []string{"deptest", "internal/hostilerelay", "internal/pgtest", "internal/racetest", "relay/relaytest", "relay/store/storetest", "mls/internal/mlstest", "mls/interop"}

// component returns the component of a package path of this module ("" for
// one outside it) and whether it is in the table.
func component(path string) (string, int, bool) {
	rel, ok := strings.CutPrefix(path, module+"/backend/")
	switch {
	case path == module:
		rel = "."
	case path == module+"/app" || strings.HasPrefix(path, module+"/app/"):
		rel = "app"
	case !ok:
		return "", 0, false
	}
	best, rank := "", 0
	for _, l := range layers {
		for _, c := range l.components {
			if (rel == c || strings.HasPrefix(rel, c+"/")) && len(c) > len(best) {
				best, rank = c, l.rank
			}
		}
	}
	return best, rank, best != ""
}

func isTestOnly(path string) bool {
	rel, ok := strings.CutPrefix(path, module+"/backend/")
	return ok && slices.ContainsFunc(testOnly, func(c string) bool { return rel == c || strings.HasPrefix(rel, c+"/") })
}

// layerViolations returns one line per import that does not point down.
func layerViolations(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		if isTestOnly(p.ImportPath) || !strings.HasPrefix(p.ImportPath, module) {
			continue
		}
		from, fromRank, ok := component(p.ImportPath)
		if !ok {
			bad = append(bad, p.ImportPath+" has no layer: add it to the layers table (architecture.md \"Layers\")")
			continue
		}
		for _, d := range p.Imports {
			if !strings.HasPrefix(d, module) {
				continue
			}
			if isTestOnly(d) {
				bad = append(bad, fmt.Sprintf("%s imports the test-only package %s", p.ImportPath, d))
				continue
			}
			to, toRank, ok := component(d)
			switch {
			case !ok, to == from:
			case toRank > fromRank:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports point down only", p.ImportPath, fromRank, d, toRank))
			case toRank == fromRank:
				bad = append(bad, fmt.Sprintf("%s imports %s, beside it in layer %d: imports point down only", p.ImportPath, d, fromRank))
			}
		}
	}
	return bad
}

// TestLayerOrder checks every package of the module (non-test files, all
// build tags the project uses) against the layers table.
func TestLayerOrder(t *testing.T) {
	for _, tags := range []string{"", "desktop,production", "e2e"} {
		pkgs := listDeps(t, tags, "../... ./...")
		if len(pkgs) < 20 {
			t.Fatalf("tags %q: go list found only %d packages", tags, len(pkgs))
		}
		for _, v := range layerViolations(pkgs) {
			t.Errorf("tags %q: %s", tags, v)
		}
		t.Logf("tags %q: %d packages checked", tags, len(pkgs))
	}
}

// TestLayerRuleCatchesViolations proves the checker fails each way it can.
func TestLayerRuleCatchesViolations(t *testing.T) {
	b := module + "/backend/"
	for _, c := range []struct {
		name string
		p    pkg
		want string
	}{
		{"upward", pkg{ImportPath: b + "roster", Imports: []string{b + "engine"}}, "imports point down only"},
		{"upward from a subpackage", pkg{ImportPath: b + "mls/tree", Imports: []string{b + "groups"}}, "imports point down only"},
		{"sideways", pkg{ImportPath: b + "lifecycle", Imports: []string{b + "retention"}}, "beside it in layer 4"},
		{"unplaced package", pkg{ImportPath: b + "newthing"}, "has no layer"},
		{"test fixture in code", pkg{ImportPath: b + "engine", Imports: []string{b + "internal/hostilerelay"}}, "test-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := layerViolations([]pkg{c.p})
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Fatalf("want one violation containing %q, got %q", c.want, got)
			}
		})
	}
	ok := []pkg{
		{ImportPath: module + "/app", Imports: []string{b + "engine", b + "roster", "fmt"}},
		{ImportPath: b + "mls/tree", Imports: []string{b + "mls/treemath", b + "internal/codec"}},
		{ImportPath: b + "relay", Imports: []string{b + "roster", b + "relay/store"}},
	}
	if got := layerViolations(ok); len(got) != 0 {
		t.Fatalf("downward imports reported: %q", got)
	}
}
