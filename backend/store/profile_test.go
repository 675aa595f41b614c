package store

import (
	"context"
	"strings"
	"testing"
)

func TestProfileAndCurrentWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := OpenApp(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Profile(ctx); err != nil || ok {
		t.Fatalf("profile of a new database: %v %v", ok, err)
	}
	if _, ok, err := a.CurrentWorkspace(ctx); err != nil || ok {
		t.Fatalf("current workspace of a new database: %v %v", ok, err)
	}
	ws1, ws2 := strings.Repeat("1", 64), strings.Repeat("2", 64)
	for _, step := range []func() error{
		func() error { return a.SetProfile(ctx, "Dan") },
		func() error { return a.SetProfile(ctx, "Dana") },
		func() error { return a.SetCurrentWorkspace(ctx, ws1) },
		func() error { return a.SetCurrentWorkspace(ctx, ws2) },
		func() error { return a.ClearCurrentWorkspace(ctx, ws1) }, // not current: kept
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.SetCurrentWorkspace(ctx, ""); err == nil {
		t.Fatal("an empty workspace id was stored as current")
	}
	a.Close()
	if a, err = OpenApp(ctx, dir); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n, ok, err := a.Profile(ctx); err != nil || !ok || n != "Dana" {
		t.Fatalf("profile after reopen: %q %v %v", n, ok, err)
	}
	if w, ok, err := a.CurrentWorkspace(ctx); err != nil || !ok || w != ws2 {
		t.Fatalf("current workspace after reopen: %q %v %v", w, ok, err)
	}
	if err := a.ClearCurrentWorkspace(ctx, ws2); err != nil {
		t.Fatal(err)
	}
	if w, ok, err := a.CurrentWorkspace(ctx); err != nil || ok {
		t.Fatalf("current workspace after clearing it: %q %v %v", w, ok, err)
	}
}
