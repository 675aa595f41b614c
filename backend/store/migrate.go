package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"weald/backend/errcode"
)

// The schema: numbered files schema/NNNN_name.sql, applied in order, each in
// its own transaction together with the row that records it.
//
//go:embed schema/*.sql
var schemaFS embed.FS

// migration is one numbered schema file.
type migration struct {
	version int
	name    string
	sql     string
	sum     [32]byte
	step    func(*Tx) error // Go part, run after sql in the same transaction
}

// steps are the Go parts of migrations, by file name without ".sql": what
// SQL cannot do (sealing needs the key). A step is part of its migration
// and, like the file, never changes once released.
var steps = map[string]func(*Tx) error{
	"0002_typed": moveKV,
}

// Errors of the migration runner.
var (
	ErrTooNew           = errcode.New("store/too_new", "this database was written by a newer version of Weald; update Weald to open it")
	ErrMigrationChanged = errcode.New("store/migration_changed", "an applied schema migration differs from the one in this build")
)

// loadMigrations reads NNNN_name.sql files from dir of fsys and checks that
// they are numbered 1, 2, 3, … without gaps.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration file %q is not NNNN_name.sql", e.Name())
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b), sum: sha256.Sum256(b),
			step: steps[strings.TrimSuffix(e.Name(), ".sql")]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: migrations are not numbered 1..%d without gaps (found %04d)", len(out), m.version)
		}
	}
	return out, nil
}

func embeddedMigrations() ([]migration, error) { return loadMigrations(schemaFS, "schema") }

// testOnlyBeforeCommit, when set, runs after a migration's statements and
// before its commit (the crash-safety test kills the process there).
var testOnlyBeforeCommit func(version int)

// migrate brings db to the newest of ms. Each migration runs in one
// transaction with the schema_migrations row that records it (and
// PRAGMA user_version), so a crash leaves either the old version or the new
// one. Running it again on an up-to-date database changes nothing. A
// database recording a version this build does not know is refused with
// [ErrTooNew] and left untouched.
func migrate(ctx context.Context, s *Store, ms []migration) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, sha256 BLOB NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	for {
		done, err := migrateOne(ctx, s, ms)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next migration, or reports done when there is none.
func migrateOne(ctx context.Context, s *Store, ms []migration) (done bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	applied, err := appliedMigrations(ctx, tx)
	if err != nil {
		return false, err
	}
	if n := len(applied); n > len(ms) {
		return false, fmt.Errorf("%w (schema %d, this build knows %d)", ErrTooNew, applied[n-1].version, len(ms))
	}
	for i, a := range applied {
		if a.version != i+1 || a.sum != ms[i].sum {
			return false, fmt.Errorf("%w (version %d)", ErrMigrationChanged, a.version)
		}
	}
	if len(applied) == len(ms) {
		return true, tx.Commit()
	}
	m := ms[len(applied)]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("store: migration %04d_%s: %w", m.version, m.name, err)
	}
	if m.step != nil {
		if err := m.step(&Tx{ctx: ctx, tx: tx, s: s}); err != nil {
			return false, fmt.Errorf("store: migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, sha256) VALUES (?, ?, ?)`,
		m.version, m.name, m.sum[:]); err != nil {
		return false, fmt.Errorf("store: record migration %d: %w", m.version, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return false, fmt.Errorf("store: user_version: %w", err)
	}
	if testOnlyBeforeCommit != nil {
		testOnlyBeforeCommit(m.version)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: commit migration %d: %w", m.version, err)
	}
	return false, nil
}

func appliedMigrations(ctx context.Context, tx *sql.Tx) ([]migration, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version, name, sha256 FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	defer rows.Close()
	var out []migration
	for rows.Next() {
		var m migration
		var sum []byte
		if err := rows.Scan(&m.version, &m.name, &sum); err != nil {
			return nil, fmt.Errorf("store: read migrations: %w", err)
		}
		copy(m.sum[:], sum)
		out = append(out, m)
	}
	return out, rows.Err()
}

// SchemaVersion returns the newest applied migration (0 for a new database).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}
