package app

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The JSON files of an earlier version (ui/<ws>.json, projects.json) are
// moved into the app database on first use and removed; what they held is
// there in the next session, from the database; the database is 0600 in a
// 0700 directory.
func TestLegacyJSONMovedIntoAppDB(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := strings.Repeat("ab", 32)
	folder := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "ui"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacyPrefsPath(data, ws), []byte(`{"you":"Dana","names":{"g":"lobby"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacyKnownFoldersPath(data), []byte(`{"version":1,"folders":["`+folder+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for session := range 2 {
		a := New(data, io.Discard, nil)
		a.Startup(context.Background())
		if p := a.loadPrefs(ws); p.You != "Dana" || p.Names["g"] != "lobby" {
			t.Fatalf("session %d: prefs %+v", session, p)
		}
		list, err := a.projects.List()
		if err != nil || len(list) != 1 || list[0].Folder != folder {
			t.Fatalf("session %d: projects %+v %v", session, list, err)
		}
		a.Shutdown(context.Background())
		for _, gone := range []string{legacyPrefsPath(data, ws), legacyKnownFoldersPath(data), filepath.Join(data, "ui")} {
			if _, err := os.Stat(gone); !os.IsNotExist(err) {
				t.Fatalf("session %d: %s is still there (%v)", session, gone, err)
			}
		}
	}
	for p, want := range map[string]os.FileMode{data: 0o700, filepath.Join(data, "app.db"): 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", p, fi.Mode().Perm(), want)
		}
	}
}
