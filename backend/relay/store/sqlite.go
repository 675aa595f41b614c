package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
)

// OpenSQLite opens (creating if needed) the SQLite database at path and
// applies the schema. The database runs in WAL mode with synchronous=FULL, so
// a committed transaction survives a crash or power loss, and every write
// transaction begins IMMEDIATE. One connection serializes all access, which
// is how SQLite serializes writers anyway. Temporary files stay in memory
// (temp_store=MEMORY): the statement journal every envelope INSERT keeps
// (its trigger makes it a multi-row write) only serves rolling that statement
// back inside its transaction, and in a file it cost a write per page and
// reached the disk with the next fsync (accepts 20–25 k → 30–36 k envelopes/s
// in batches of 100; BenchmarkAcceptVsRaw).
func OpenSQLite(ctx context.Context, path string) (Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: sqlite path: %w", err)
	}
	if err := privateFile(abs); err != nil {
		return nil, fmt.Errorf("store: sqlite %s: %w", path, err)
	}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(FULL)", "foreign_keys(1)", "temp_store(MEMORY)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + abs + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	s := newSQLStore(db, sqliteDialect)
	if err := migrateSQLite(ctx, s); err != nil {
		db.Close()
		return nil, err
	}
	var mode string
	if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("store: sqlite %s: journal_mode is %q, want wal (%v)", path, mode, err)
	}
	return s, nil
}

// privateFile creates the database file at path readable by its owner only
// (0600), so SQLite, which gives its -wal and -shm files the database
// file's mode, creates them 0600 too; an existing file (and its -wal and
// -shm) that others may read is narrowed to 0600.
func privateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// migrateSQLite runs the migration, once more (at most four times) when
// SQLite answered SQLITE_BUSY at once. Relays opening one new file together
// meet that while one of them switches it to WAL: SQLite then refuses a
// waiting connection without calling its busy handler, to break the
// deadlock, and documents rolling back and retrying as the remedy. The
// migration is one transaction, so a retry starts clean.
func migrateSQLite(ctx context.Context, s *sqlStore) error {
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = s.migrate(ctx); err == nil || !isSQLiteBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		}
	}
	return err
}

func isSQLiteBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

const sqliteBusy = 5 // SQLITE_BUSY, the primary code of every busy answer
