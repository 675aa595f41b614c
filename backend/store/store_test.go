package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"weald/backend/wire"
)

func id(s string) wire.ID { return sha256.Sum256([]byte(s)) }

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := OpenWorkspace(context.Background(), t.TempDir(), id("ws"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func update(t *testing.T, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func testMigrations(t *testing.T, files map[string]string) []migration {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, sql := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(sql)}
	}
	ms, err := loadMigrations(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestOpenWorkspacePathAndWAL(t *testing.T) {
	dir := t.TempDir()
	ws := id("ws")
	s, err := OpenWorkspace(context.Background(), dir, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := filepath.Join(dir, "workspaces", ws.String(), "weald.db")
	if s.Path() != want {
		t.Fatalf("path %s, want %s", s.Path(), want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatal(err)
	}
	var mode string
	var fk int
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
	if err := s.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign keys %d %v", fk, err)
	}
	ms, _ := embeddedMigrations()
	if v, err := s.SchemaVersion(context.Background()); err != nil || v != len(ms) {
		t.Fatalf("version %d %v, want %d", v, err, len(ms))
	}
}

func TestMigrateIdempotentAndRefusesNewer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "weald.db")
	two := testMigrations(t, map[string]string{
		"0001_a.sql": "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);",
		"0002_b.sql": "CREATE TABLE b (y INTEGER);",
	})
	for range 3 { // the same migrations again change nothing
		s, err := open(ctx, path, two)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.db.QueryRow("SELECT count(*) FROM a").Scan(&n); err != nil || n != 1 {
			t.Fatalf("rows in a: %d %v", n, err)
		}
		var uv int
		s.db.QueryRow("PRAGMA user_version").Scan(&uv)
		if v, _ := s.SchemaVersion(ctx); v != 2 || uv != 2 {
			t.Fatalf("version %d, user_version %d", v, uv)
		}
		s.Close()
	}
	if _, err := open(ctx, path, two[:1]); !errors.Is(err, ErrTooNew) {
		t.Fatalf("older build opened a newer database: %v", err)
	}
	changed := testMigrations(t, map[string]string{
		"0001_a.sql": "CREATE TABLE a (x TEXT);",
		"0002_b.sql": "CREATE TABLE b (y INTEGER);",
	})
	if _, err := open(ctx, path, changed); !errors.Is(err, ErrMigrationChanged) {
		t.Fatalf("edited migration: %v", err)
	}
	// A failing migration leaves the previous version.
	bad := append(append([]migration{}, two...), testMigrations(t, map[string]string{
		"0001_a.sql": "x", "0002_b.sql": "x", "0003_c.sql": "CREATE TABLE c (z INTEGER); SELECT * FROM nowhere;",
	})[2])
	if _, err := open(ctx, path, bad); err == nil {
		t.Fatal("failing migration succeeded")
	}
	s, err := open(ctx, path, two)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	s.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'c'").Scan(&n)
	if v, _ := s.SchemaVersion(ctx); v != 2 || n != 0 {
		t.Fatalf("after a failed migration: version %d, table c exists %d", v, n)
	}
}

func TestLoadMigrationsRejectsGaps(t *testing.T) {
	fsys := fstest.MapFS{"m/0001_a.sql": {Data: []byte("")}, "m/0003_c.sql": {Data: []byte("")}}
	if _, err := loadMigrations(fsys, "m"); err == nil {
		t.Fatal("gap accepted")
	}
	fsys = fstest.MapFS{"m/first.sql": {Data: []byte("")}}
	if _, err := loadMigrations(fsys, "m"); err == nil {
		t.Fatal("unnumbered file accepted")
	}
}

func TestUpdateRollsBackOnError(t *testing.T) {
	s := openTest(t)
	boom := errors.New("boom")
	err := s.Update(context.Background(), func(tx *Tx) error {
		if _, err := tx.AppendRosterOps([]byte("op")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	s.View(context.Background(), func(tx *Tx) error {
		n, _, err := tx.RosterHead()
		if err != nil || n != 0 {
			t.Fatalf("rolled-back append is visible: %d %v", n, err)
		}
		return nil
	})
	func() {
		defer func() { recover() }()
		s.Update(context.Background(), func(tx *Tx) error {
			tx.AppendRosterOps([]byte("op"))
			panic("mid-transaction")
		})
	}()
	s.View(context.Background(), func(tx *Tx) error {
		if n, _, _ := tx.RosterHead(); n != 0 {
			t.Fatal("panicked transaction committed")
		}
		return nil
	})
}

func TestListWorkspaces(t *testing.T) {
	dir := t.TempDir()
	if ws, err := ListWorkspaces(dir); err != nil || len(ws) != 0 {
		t.Fatalf("empty data dir: %v %v", ws, err)
	}
	for _, name := range []string{"b", "a"} {
		s, err := OpenWorkspace(context.Background(), dir, id(name))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	os.MkdirAll(filepath.Join(dir, "workspaces", "not-an-id"), 0o700)
	os.MkdirAll(filepath.Join(dir, "workspaces", id("empty").String()), 0o700)
	ws, err := ListWorkspaces(dir)
	if err != nil || len(ws) != 2 {
		t.Fatalf("workspaces %v %v", ws, err)
	}
	if ws[0].String() > ws[1].String() || (ws[0] != id("a") && ws[0] != id("b")) {
		t.Fatalf("order or ids: %v", ws)
	}
}

// Data written in one session is there in the next.
func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := OpenWorkspace(ctx, dir, id("ws"))
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *Tx) error {
		_, err := tx.AppendRosterOps([]byte("genesis"))
		return err
	})
	s.Close()
	s, err = OpenWorkspace(ctx, dir, id("ws"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(ctx, func(tx *Tx) error {
		if n, h, err := tx.RosterHead(); err != nil || n != 1 || h != id("genesis") {
			t.Fatalf("after reopen: %d %v", n, err)
		}
		return nil
	})
}

// A database at schema 1 with queued work upgrades to the current schema
// with the work still queued.
func TestUpgradeFromSchema1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "weald.db")
	ms, err := embeddedMigrations()
	if err != nil {
		t.Fatal(err)
	}
	old, err := open(ctx, path, ms[:1])
	if err != nil {
		t.Fatal(err)
	}
	g, me := id("g"), id("me")
	if _, err := old.db.Exec(`INSERT INTO groups (id, kind, name) VALUES (?, 'channel', 'general')`, g[:]); err != nil {
		t.Fatal(err)
	}
	h := id("h")
	if _, err := old.db.Exec(`INSERT INTO outbox (group_id, idempotency_key, kind, author, ctr, hash, envelope)
		VALUES (?, x'6b', 16, ?, 1, ?, x'01')`, g[:], me[:], h[:]); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := open(ctx, path, ms)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(ctx, func(tx *Tx) error {
		out, err := tx.Outbox(10)
		if err != nil || len(out) != 1 || out[0].Ctr != 1 {
			t.Fatalf("queued work after the upgrade: %+v %v", out, err)
		}
		return nil
	})
	if v, _ := s.SchemaVersion(ctx); v != len(ms) {
		t.Fatalf("version %d", v)
	}
}
