package store

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// crashMigrations: the second one writes enough rows that its uncommitted
// pages reach the WAL file before the process is killed.
func crashMigrations(t *testing.T) []migration {
	return testMigrations(t, map[string]string{
		"0001_a.sql": "CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);",
		"0002_b.sql": `CREATE TABLE b (y BLOB);
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
			INSERT INTO b SELECT randomblob(200) FROM n;
			DROP TABLE a;`,
	})
}

// TestCrashHelper is the child process of TestMigrationKilledMidway: it
// migrates and stops inside the transaction of the version it is told to.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv("WEALD_STORE_CRASH_DB")
	if path == "" {
		return // run only as the child process
	}
	stopAt, _ := strconv.Atoi(os.Getenv("WEALD_STORE_CRASH_AT"))
	testOnlyDSN = "&_pragma=cache_size(8)" // spill uncommitted pages into the WAL
	testOnlyBeforeCommit = func(v int) {
		if v == stopAt {
			os.WriteFile(path+".ready", nil, 0o600)
			time.Sleep(30 * time.Second) // the parent kills us long before
		}
	}
	open(context.Background(), path, crashMigrations(t))
	t.Fatal("migration was not stopped")
}

// A process killed (SIGKILL) inside a migration's transaction leaves the
// database at the previous version, with nothing of the new one; the next
// open completes the migration.
func TestMigrationKilledMidway(t *testing.T) {
	for _, stopAt := range []int{1, 2} {
		t.Run(strconv.Itoa(stopAt), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "weald.db")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "WEALD_STORE_CRASH_DB="+path, "WEALD_STORE_CRASH_AT="+strconv.Itoa(stopAt))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for {
				if _, err := os.Stat(path + ".ready"); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("child never reached the migration")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			fi, err := os.Stat(path + "-wal")
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("WAL file left by the killed process: %d bytes", fi.Size())
			if stopAt == 2 && fi.Size() < 500_000 {
				t.Fatalf("the killed migration's pages did not reach the WAL (%d bytes); the test proves less than it claims", fi.Size())
			}

			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			var version, tables int
			db.QueryRow(`SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version)
			db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN ('a', 'b')`).Scan(&tables)
			db.Close()
			wantTables := 0
			if stopAt == 2 {
				wantTables = 1 // a, and no b
			}
			if version != stopAt-1 || tables != wantTables {
				t.Fatalf("after a kill in migration %d: version %d, tables %d", stopAt, version, tables)
			}

			s, err := open(context.Background(), path, crashMigrations(t))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var rows int
			if err := s.db.QueryRow(`SELECT count(*) FROM b`).Scan(&rows); err != nil || rows != 5000 {
				t.Fatalf("after recovery: %d rows, %v", rows, err)
			}
			if v, _ := s.SchemaVersion(context.Background()); v != 2 {
				t.Fatalf("after recovery: version %d", v)
			}
		})
	}
}
