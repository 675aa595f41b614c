package racetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every test that reads Enabled runs smaller (or in part) under -race, so
// make test must run it once more at full size: it is named in .ci/test.sh's
// full_size, which that step runs in backend/engine, without -race.
func TestReadersAreRunAtFullSize(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	script, err := os.ReadFile(filepath.Join(root, ".ci", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^full_size='([^']*)'$`).FindSubmatch(script)
	if m == nil {
		t.Fatal(".ci/test.sh has no full_size='…' line")
	}
	fullSize, err := regexp.Compile(string(m[1]))
	if err != nil {
		t.Fatalf("full_size: %v", err)
	}
	if !strings.Contains(string(script), `-run "$full_size" ./backend/engine`) {
		t.Fatal(".ci/test.sh no longer runs full_size in ./backend/engine")
	}
	readers := 0
	err = filepath.WalkDir(filepath.Join(root, "backend"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || !readsEnabled(fn) {
				continue
			}
			readers++
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if filepath.ToSlash(rel) != "backend/engine" {
				t.Errorf("%s (%s) reads racetest.Enabled: make test runs full_size in backend/engine only", fn.Name.Name, rel)
			}
			if !fullSize.MatchString(fn.Name.Name) {
				t.Errorf("%s reads racetest.Enabled but is not in .ci/test.sh's full_size", fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if readers == 0 {
		t.Fatal("no test reads racetest.Enabled: this check looks in the wrong place")
	}
}

// readsEnabled reports whether fn mentions racetest.Enabled.
func readsEnabled(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok && s.Sel.Name == "Enabled" {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == "racetest" {
				found = true
			}
		}
		return !found
	})
	return found
}
