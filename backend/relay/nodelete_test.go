package relay

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOnlyDropDeletesEnvelopes proves "No other code path deletes envelopes"
// (issue 4; spec/lifecycle.md "What the relay never does") by reading the
// source: in every .go and .sql file under backend/, the only statements
// that delete from, truncate or drop the envelope table are the one in
// store's DropEnvelopesBelow and the one in DeleteRecoveryWraps (the
// member-signed deletion of a removed person's recovery wraps), and their
// only callers outside tests are Service.DropBefore and Service.DeleteWraps.
func TestOnlyDropDeletesEnvelopes(t *testing.T) {
	t.Parallel()
	deleting := regexp.MustCompile(`(?is)\b(delete\s+from|truncate(\s+table)?|drop\s+table(\s+if\s+exists)?)\s+["']?envelopes\b`)
	root := filepath.Join("..")
	var deletes, calls, wrapCalls []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".sql" {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(path, "_test.go")
		if ext == ".sql" || !isTest {
			for _, m := range deleting.FindAllIndex(body, -1) {
				deletes = append(deletes, enclosing(t, fset, path, body, m[0]))
			}
		}
		if ext == ".go" && !isTest && strings.Contains(string(body), "DropEnvelopesBelow(") {
			calls = append(calls, callersOf(t, fset, path, body, "DropEnvelopesBelow")...)
		}
		if ext == ".go" && !isTest && strings.Contains(string(body), "DeleteRecoveryWraps(") {
			wrapCalls = append(wrapCalls, callersOf(t, fset, path, body, "DeleteRecoveryWraps")...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The one table rebuild: SQLite cannot change a primary key in place, so
	// migration 0005 (groups keyed by workspace) copies every envelope into
	// the new table, then drops the old one (store.TestGroupsByWorkspaceMigration
	// checks the rows survive).
	rebuild := filepath.Join("..", "relay", "store", "schema", "sqlite", "0005_groups_by_workspace.sql")
	if body, err := os.ReadFile(rebuild); err != nil {
		t.Fatal(err)
	} else if c, d := strings.Index(string(body), "INSERT INTO envelopes_new"), strings.Index(string(body), "DROP TABLE envelopes;"); c < 0 || d < c {
		t.Errorf("%s drops the envelope table without copying it first", rebuild)
	}
	deletes = slices.DeleteFunc(deletes, func(d string) bool { return d == rebuild })
	sqltx := filepath.Join("..", "relay", "store", "sqltx.go")
	wantDeletes := []string{sqltx + ":DropEnvelopesBelow", sqltx + ":DeleteRecoveryWraps"}
	if !slices.Equal(deletes, wantDeletes) {
		t.Errorf("statements deleting envelopes = %v, want exactly %v", deletes, wantDeletes)
	}
	wantCall := filepath.Join("..", "relay", "drop.go") + ":DropBefore"
	if len(calls) != 1 || calls[0] != wantCall {
		t.Errorf("callers of DropEnvelopesBelow = %v, want exactly [%s]", calls, wantCall)
	}
	// DeleteWraps executes one instruction through DeleteWrapsBatch, which
	// checks every instruction of a batch the same way.
	wantWraps := filepath.Join("..", "relay", "wraps.go") + ":DeleteWrapsBatch"
	if len(wrapCalls) != 1 || wrapCalls[0] != wantWraps {
		t.Errorf("callers of DeleteRecoveryWraps = %v, want exactly [%s]", wrapCalls, wantWraps)
	}
}

// enclosing names the Go function containing offset (or the .sql file).
func enclosing(t *testing.T, fset *token.FileSet, path string, body []byte, offset int) string {
	if filepath.Ext(path) != ".go" {
		return path
	}
	f, err := parser.ParseFile(fset, path, body, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	base := fset.File(f.Pos()).Base()
	for _, decl := range f.Decls {
		if fn, ok := decl.(*ast.FuncDecl); ok && int(fn.Pos())-base <= offset && offset < int(fn.End())-base {
			return path + ":" + fn.Name.Name
		}
	}
	return path + ":<top level>"
}

// callersOf lists the functions in the file that call a method or function
// named name (the interface declaration itself is not a call).
func callersOf(t *testing.T, fset *token.FileSet, path string, body []byte, name string) []string {
	f, err := parser.ParseFile(fset, path, body, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		found := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				switch x := c.Fun.(type) {
				case *ast.SelectorExpr:
					found = found || x.Sel.Name == name
				case *ast.Ident:
					found = found || x.Name == name
				}
			}
			return true
		})
		if found {
			out = append(out, path+":"+fn.Name.Name)
		}
	}
	return out
}
