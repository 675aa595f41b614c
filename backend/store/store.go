package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// Store is one workspace's database.
type Store struct {
	db   *sql.DB
	path string

	stmts sync.Map // query text → *sql.Stmt kept for later transactions (stmts.go)

	keyMu sync.Mutex
	seal  *sealer // nil until the key is first needed
	moved bool    // migration 0002 moved plaintext values: rewrite the file
}

// Open opens the database file at path, creating it if needed, in WAL mode
// with foreign keys on and full synchronous commits, and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	ms, err := embeddedMigrations()
	if err != nil {
		return nil, err
	}
	return open(ctx, path, ms)
}

func open(ctx context.Context, path string, ms []migration) (*Store, error) {
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(FULL)&_pragma=secure_delete(1)&_txlock=immediate" + testOnlyDSN
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// One connection: SQLite has one writer anyway, and every transaction
	// begins IMMEDIATE, so callers queue instead of failing with SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if mode != "wal" {
		db.Close()
		return nil, fmt.Errorf("store: open %s: journal mode is %q, not wal", path, mode)
	}
	s := &Store{db: db, path: path}
	if err := migrate(ctx, s, ms); err != nil {
		db.Close()
		return nil, err
	}
	if s.moved {
		// The moved values' plaintext pages are free pages now; VACUUM
		// rewrites the file without them and the checkpoint empties the WAL.
		for _, q := range []string{"VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				db.Close()
				return nil, fmt.Errorf("store: open %s: %s: %w", path, q, err)
			}
		}
	}
	if err := privateSidecars(path); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// testOnlyDSN is appended to the DSN (the crash test shrinks the page cache
// so that uncommitted pages spill into the WAL before the kill).
var testOnlyDSN string

// Close closes the database.
func (s *Store) Close() error {
	s.closeStmts()
	return s.db.Close()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Tx is one transaction. Its methods are the only way to read or write the
// store; none may be used after the function given to Update or View
// returns.
type Tx struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store

	stmts  map[string]*sql.Stmt // the statements this transaction ran (stmts.go)
	missed []string             // those the Store did not keep yet
}

// Update runs fn in a write transaction, committing if fn returns nil and
// rolling back otherwise (or if fn panics). Update must not be called from
// inside fn.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) (err error) {
	stx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = stx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = stx.Rollback()
		}
	}()
	t := &Tx{ctx: ctx, tx: stx, s: s}
	if err = fn(t); err != nil {
		return err
	}
	if err = stx.Commit(); err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, sql.ErrTxDone) {
			// ctx ended while Commit ran: database/sql rolled the
			// transaction back and says only that it is done.
			err = cerr
		}
		return fmt.Errorf("store: commit: %w", err)
	}
	s.keep(ctx, t.missed)
	return nil
}

// View runs fn in a transaction that is always rolled back: a consistent
// read. Writes made inside it are discarded.
func (s *Store) View(ctx context.Context, fn func(tx *Tx) error) error {
	stx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	t := &Tx{ctx: ctx, tx: stx, s: s}
	func() {
		defer stx.Rollback() //nolint:errcheck // read-only
		err = fn(t)
	}()
	s.keep(ctx, t.missed)
	return err
}
