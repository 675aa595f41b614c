package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

var (
	gHex = strings.Repeat("ab", 32)
	gID  = [32]byte(bytes.Repeat([]byte{0xab}, 32))
)

// legacyKV is one value of every kind schema 0001 held, each carrying a
// secret an attacker would look for.
var legacyKV = map[string]string{
	"meta":                                   `{"device_seed":"SECRET-device-seed-0001"}`,
	"alerts":                                 `[{"code":"roster/invalid"}]`,
	"group/" + gHex:                          "SECRET-mls-epoch-secret-0001",
	"kp/0102":                                "SECRET-key-package-private-0001",
	"shard/" + gHex + "/20000/0":             "SECRET-shard-base-0001",
	"shardlog/" + gHex + "/20000/0/00000000": "SECRET-shard-change-0000",
	"shardlog/" + gHex + "/20000/0/00000001": "SECRET-shard-change-0001",
}

// A state.db of an earlier version opens, everything it held is carried into
// the typed tables, and none of it is left in plaintext in the files.
func TestLegacyStateDBCarriedOver(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	legacyStateDB(t, path, legacyKV, []string{"genesis", "op2"})
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := embeddedMigrations()
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
		t.Fatalf("version %d %v", v, err)
	}
	err = s.View(ctx, func(tx *Tx) error {
		if v, ok, err := tx.Record(RecordWorkspace); err != nil || !ok || string(v) != legacyKV["meta"] {
			t.Errorf("workspace record: %q %v %v", v, ok, err)
		}
		if v, ok, err := tx.Record(RecordAlerts); err != nil || !ok || string(v) != legacyKV["alerts"] {
			t.Errorf("alerts: %q %v %v", v, ok, err)
		}
		if gs, err := tx.Groups(); err != nil || len(gs) != 1 || string(gs[gID]) != "SECRET-mls-epoch-secret-0001" {
			t.Errorf("groups: %q %v", gs, err)
		}
		if kps, err := tx.KeyPackages(); err != nil || len(kps) != 1 || !bytes.Equal(kps[0].Ref, []byte{1, 2}) ||
			string(kps[0].Private) != "SECRET-key-package-private-0001" {
			t.Errorf("key packages: %q %v", kps, err)
		}
		id := ShardID{Group: gID, Day: 20000}
		if ids, err := tx.Shards(gID); err != nil || len(ids) != 1 || ids[0] != id {
			t.Errorf("shards: %v %v", ids, err)
		}
		base, changes, ok, err := tx.Shard(id)
		if err != nil || !ok || string(base) != "SECRET-shard-base-0001" || len(changes) != 2 ||
			string(changes[0]) != "SECRET-shard-change-0000" || string(changes[1]) != "SECRET-shard-change-0001" {
			t.Errorf("shard: %q %q %v %v", base, changes, ok, err)
		}
		if ops, err := tx.RosterOps(); err != nil || len(ops) != 2 || string(ops[1]) != "op2" {
			t.Errorf("roster: %q %v", ops, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	assertNoneOnDisk(t, path, "SECRET-")
}

// assertNoneOnDisk reads the database's files as an attacker with the disk
// would and fails if needle is in any of them.
func assertNoneOnDisk(t *testing.T, path string, needles ...string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			if i := bytes.Index(b, []byte(n)); i >= 0 {
				t.Errorf("%s holds %q in plaintext at offset %d", filepath.Base(p), n, i)
			}
		}
	}
}

// A value of schema 0001 that 0002 does not know stops the migration and
// leaves the database as it was.
func TestLegacyUnknownKeyRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	legacyStateDB(t, path, map[string]string{"meta": "{}", "outbox/1": "x"}, nil)
	if _, err := Open(ctx, path); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("open with an unknown key: %v", err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, v int
	db.QueryRow(`SELECT count(*) FROM kv`).Scan(&n)
	db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v)
	if n != 2 || v != 1 {
		t.Fatalf("after the refused migration: %d kv rows, version %d", n, v)
	}
}
