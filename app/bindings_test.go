package app_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"weald/app"
	"weald/app/shim"
)

// TestCommittedBindingsMatchServices fails when a bound method was added,
// removed or renamed without regenerating frontend/wailsjs (make bindings).
func TestCommittedBindingsMatchServices(t *testing.T) {
	t.Parallel()
	srv, err := shim.New(os.DirFS("."), app.Services(app.New(t.TempDir(), os.Stderr, nil)), app.Lifecycle...)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]string{}
	for _, m := range srv.Methods() {
		parts := strings.Split(m, ".")
		f := filepath.Join("..", "frontend", "wailsjs", "go", parts[0], parts[1]+".d.ts")
		byFile[f] = append(byFile[f], parts[2])
	}
	fn := regexp.MustCompile(`(?m)^export function (\w+)\(`)
	for f, want := range byFile {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("%v (run make bindings)", err)
		}
		var got []string
		for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
			got = append(got, m[1])
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s declares %v, the Go services bind %v: run make bindings", f, got, want)
		}
	}
}
