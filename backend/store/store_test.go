package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
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

func TestOpenWALAndVersion(t *testing.T) {
	s := openTest(t)
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
	ctx := context.Background()
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.AddRosterOp(1, []byte("op")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	rosterLen := func() int {
		var n int
		s.View(ctx, func(tx *Tx) error {
			ops, err := tx.RosterOps()
			if err != nil {
				t.Fatal(err)
			}
			n = len(ops)
			return nil
		})
		return n
	}
	if n := rosterLen(); n != 0 {
		t.Fatalf("rolled-back append is visible: %d", n)
	}
	func() {
		defer func() { recover() }()
		s.Update(ctx, func(tx *Tx) error {
			tx.AddRosterOp(1, []byte("op"))
			panic("mid-transaction")
		})
	}()
	if n := rosterLen(); n != 0 {
		t.Fatal("panicked transaction committed")
	}
}

// Data written in one session is there in the next.
func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *Tx) error { return tx.AddRosterOp(1, []byte("genesis")) })
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.View(ctx, func(tx *Tx) error {
		if ops, err := tx.RosterOps(); err != nil || len(ops) != 1 || string(ops[0]) != "genesis" {
			t.Fatalf("after reopen: %q %v", ops, err)
		}
		return nil
	})
}
