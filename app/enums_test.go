package app_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestEnumTagsMatchConstants reads the package's source: every string type
// declared in enums.go is an enum whose values are its constants, in order.
// Each struct field of an enum type must carry a ts_type tag that lists
// exactly those values as a TypeScript union, and no other field may carry a
// ts_type tag, so the unions in the generated models are the Go constants.
func TestEnumTagsMatchConstants(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		if files[n], err = parser.ParseFile(fset, n, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	values := map[string][]string{} // enum type → its values in order
	enums := files["enums.go"]
	if enums == nil {
		t.Fatal("enums.go not found")
	}
	for _, d := range enums.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range gd.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if id, ok := s.Type.(*ast.Ident); ok && id.Name == "string" {
					values[s.Name.Name] = values[s.Name.Name][:0:0]
				}
			case *ast.ValueSpec:
				typ, ok := s.Type.(*ast.Ident)
				if !ok || len(s.Values) != 1 {
					t.Fatalf("%s: an enum constant has its type and one value", fset.Position(s.Pos()))
				}
				lit, ok := s.Values[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: an enum constant is a string literal", fset.Position(s.Pos()))
				}
				v, _ := strconv.Unquote(lit.Value)
				values[typ.Name] = append(values[typ.Name], v)
			}
		}
	}
	if len(values) < 8 {
		t.Fatalf("found %d enum types in enums.go, want at least 8", len(values))
	}
	used := map[string]int{}
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				tag := ""
				if fld.Tag != nil {
					raw, _ := strconv.Unquote(fld.Tag.Value)
					tag = reflect.StructTag(raw).Get("ts_type")
				}
				where := fset.Position(fld.Pos()).String()
				id, _ := fld.Type.(*ast.Ident)
				vals, isEnum := values[identName(id)]
				switch {
				case isEnum:
					used[id.Name]++
					want := "'" + strings.Join(vals, "' | '") + "'"
					if tag != want {
						t.Errorf("%s: a %s field has ts_type %q, want %q", where, id.Name, tag, want)
					}
				case tag != "":
					t.Errorf("%s (%s): ts_type is kept for the enums of enums.go", where, name)
				}
			}
			return true
		})
	}
	for typ, vals := range values {
		if len(vals) < 2 {
			t.Errorf("enum %s has %d values", typ, len(vals))
		}
		if used[typ] == 0 {
			t.Errorf("enum %s is the type of no bound field", typ)
		}
	}
}

func identName(id *ast.Ident) string {
	if id == nil {
		return ""
	}
	return id.Name
}
