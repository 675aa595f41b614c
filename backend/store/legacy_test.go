package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// legacyStateDB writes a state.db as the engine created it before the store
// owned its schema (engine/store.go at 0478711): the kv and roster tables,
// no schema_migrations, no user_version.
func legacyStateDB(t *testing.T, path string, kv map[string]string, roster []string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS roster (idx INTEGER PRIMARY KEY, op BLOB NOT NULL);`); err != nil {
		t.Fatal(err)
	}
	for k, v := range kv {
		if _, err := db.Exec(`INSERT INTO kv (k, v) VALUES (?, ?)`, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	for i, op := range roster {
		if _, err := db.Exec(`INSERT INTO roster (idx, op) VALUES (?, ?)`, i+1, []byte(op)); err != nil {
			t.Fatal(err)
		}
	}
}

// A state.db of an earlier version opens, and what it held is there.
func TestLegacyStateDBOpens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	legacyStateDB(t, path, map[string]string{"meta": `{"name":"acme"}`, "group/00": "g"}, []string{"genesis", "op2"})
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(ctx); err != nil || v < 1 {
		t.Fatalf("version %d %v", v, err)
	}
	s.View(ctx, func(tx *Tx) error {
		if v, ok, err := tx.Get("meta"); err != nil || !ok || string(v) != `{"name":"acme"}` {
			t.Fatalf("meta after the upgrade: %q %v %v", v, ok, err)
		}
		if ops, err := tx.RosterOps(); err != nil || len(ops) != 2 || string(ops[1]) != "op2" {
			t.Fatalf("roster after the upgrade: %q %v", ops, err)
		}
		return nil
	})
}
