package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestAppDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := OpenApp(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Repeat("0f", 32)
	if _, ok, err := a.Prefs(ctx, ws); err != nil || ok {
		t.Fatalf("prefs of a new database: %v %v", ok, err)
	}
	if err := a.PutPrefs(ctx, ws, []byte(`{"you":"Dana"}`)); err != nil {
		t.Fatal(err)
	}
	if err := a.PutPrefs(ctx, "not-an-id", []byte(`{}`)); err == nil {
		t.Fatal("prefs stored under a malformed workspace id")
	}
	if err := a.SetProjectFolders(ctx, []string{"/b", "/a"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetProjectFolders(ctx, []string{"/a", "/a"}); err == nil {
		t.Fatal("a folder listed twice was stored")
	}
	a.Close()
	a, err = OpenApp(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if p, ok, err := a.Prefs(ctx, ws); err != nil || !ok || string(p) != `{"you":"Dana"}` {
		t.Fatalf("prefs after reopen: %q %v %v", p, ok, err)
	}
	if f, err := a.ProjectFolders(ctx); err != nil || !slices.Equal(f, []string{"/b", "/a"}) {
		t.Fatalf("folders after reopen (and a refused replace): %q %v", f, err)
	}
}
