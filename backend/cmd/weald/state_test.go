package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weald/backend/engine"
	"weald/backend/store"
)

// A home an earlier version wrote (profile.json, current) is moved into
// app.db by the first command and the files are removed.
func TestLegacyProfileAndCurrentMovedIntoAppDB(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	ws := strings.Repeat("ab", 32)
	for name, body := range map[string]string{"profile.json": `{"name":"Dana"}`, "current": ws + "\n"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := &cli{home: home}
	for range 2 { // moved, then read from app.db
		if pr, err := c.profile(ctx); err != nil || pr.Name != "Dana" {
			t.Fatalf("profile: %+v %v", pr, err)
		}
		if id, err := c.current(ctx); err != nil || id != ws {
			t.Fatalf("current: %q %v", id, err)
		}
		for _, name := range []string{"profile.json", "current"} {
			if _, err := os.Stat(filepath.Join(home, name)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s is still there: %v", name, err)
			}
		}
	}
	a, err := store.OpenApp(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if id, ok, err := a.CurrentWorkspace(ctx); err != nil || !ok || id != ws {
		t.Fatalf("app.db's current workspace: %q %v %v", id, ok, err)
	}
}

// Before init, reading commands say what to do and write nothing.
func TestNoProfileLeavesHomeUntouched(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	c := &cli{home: home}
	if _, err := c.profile(ctx); !errors.Is(err, errNoProfile) {
		t.Fatalf("profile before init: %v", err)
	}
	if _, err := c.current(ctx); !errors.Is(err, engine.ErrNoWorkspace) {
		t.Fatalf("current before init: %v", err)
	}
	if err := c.forgetCurrent(ctx, strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("home created by reading commands: %v", err)
	}
}
