package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed schema
var schemaFS embed.FS

// dialect holds what differs between the engines; the SQL is otherwise shared.
type dialect struct {
	name      string
	dollar    bool   // placeholders are $1, $2, … instead of ?
	forUpdate string // row-lock suffix for SELECT
	notify    bool   // emit pg_notify inside the transaction
}

var (
	sqliteDialect   = dialect{name: "sqlite"}
	postgresDialect = dialect{name: "postgres", dollar: true, forUpdate: " FOR UPDATE", notify: true}
)

// sqlStore implements Store over database/sql for both engines.
type sqlStore struct {
	db *sql.DB
	d  dialect

	rebound sync.Map // query with ? → engine form
	stmts   sync.Map // query → *sql.Stmt (SQLite only)

	mu   sync.Mutex
	subs map[int]func(Change)
	next int
}

func newSQLStore(db *sql.DB, d dialect) *sqlStore {
	return &sqlStore{db: db, d: d, subs: map[int]func(Change){}}
}

func (s *sqlStore) Engine() string { return s.d.name }
func (s *sqlStore) Close() error {
	s.stmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	return s.db.Close()
}

// q returns query in the engine's placeholder style. Queries are written with
// ? placeholders and contain no ? inside literals.
func (s *sqlStore) q(query string) string {
	if !s.d.dollar {
		return query
	}
	if v, ok := s.rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	s.rebound.Store(query, out)
	return out
}

// prepare makes store-wide prepared statements for queries a transaction
// ran unprepared. It runs outside any transaction (SQLite has one
// connection). A query that fails to prepare simply stays unprepared.
func (s *sqlStore) prepare(ctx context.Context, queries []string) {
	for _, q := range queries {
		if _, ok := s.stmts.Load(q); ok {
			continue
		}
		st, err := s.db.PrepareContext(ctx, s.q(q))
		if err != nil {
			continue
		}
		if _, loaded := s.stmts.LoadOrStore(q, st); loaded {
			st.Close()
		}
	}
}

func (s *sqlStore) Subscribe(fn func(Change)) func() {
	s.mu.Lock()
	id := s.next
	s.next++
	s.subs[id] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.subs, id)
		s.mu.Unlock()
	}
}

func (s *sqlStore) deliver(changes []Change) {
	if len(changes) == 0 {
		return
	}
	s.mu.Lock()
	fns := make([]func(Change), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, c := range changes {
		for _, fn := range fns {
			fn(c)
		}
	}
}

func (s *sqlStore) Update(ctx context.Context, fn func(Tx) error) error {
	return s.run(ctx, false, fn)
}

func (s *sqlStore) View(ctx context.Context, fn func(Tx) error) error {
	return s.run(ctx, true, fn)
}

func (s *sqlStore) run(ctx context.Context, readOnly bool, fn func(Tx) error) error {
	var opts *sql.TxOptions
	if readOnly && s.d.name == "postgres" {
		opts = &sql.TxOptions{ReadOnly: true}
	}
	// The transaction lives on a context the request's cancellation does
	// not end. Its statements still stop when the request is cancelled
	// (they take ctx), but BEGIN, ROLLBACK and COMMIT run to their answer.
	// On ctx itself, a cancellation while COMMIT was on its way broke off
	// the wait for PostgreSQL's answer: the server had committed, and the
	// store said the write failed, so the relay skipped what follows a
	// write (the changes pushed to subscribers). SQLite answered "sql:
	// transaction has already been committed or rolled back" instead
	// (TestCancelledCommitSaysSo).
	tx, err := s.db.BeginTx(context.WithoutCancel(ctx), opts)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	t := &sqlTx{s: s, tx: tx, readOnly: readOnly}
	defer func() { s.prepare(context.WithoutCancel(ctx), t.unprepared) }()
	if err := fn(t); err != nil {
		_ = tx.Rollback()
		return cancelled(ctx, err)
	}
	if err := t.flushNotify(ctx); err != nil {
		_ = tx.Rollback()
		return cancelled(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	s.deliver(t.changes)
	return nil
}

// cancelled says that a statement failed because ctx ended, when it did:
// the PostgreSQL driver answers a statement it broke off with
// driver.ErrBadConn, which says nothing of the cancellation. Both errors
// stay readable (errors.Is, errors.As).
func cancelled(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// migrate applies the engine's numbered schema files that are not yet
// recorded in schema_migrations.
func (s *sqlStore) migrate(ctx context.Context) error { return s.migrateTo(ctx, math.MaxInt) }

// migrateTo is migrate up to version max (tests build older databases).
func (s *sqlStore) migrateTo(ctx context.Context, max int) error {
	dir := path.Join("schema", s.d.name)
	entries, err := fs.ReadDir(schemaFS, dir)
	if err != nil {
		return fmt.Errorf("store: read schema: %w", err)
	}
	type file struct {
		version int
		name    string
	}
	var files []file
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return fmt.Errorf("store: schema file %s is not NNNN_name.sql", e.Name())
		}
		files = append(files, file{v, e.Name()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].version < files[j].version })
	// One transaction for the whole migration: several relay processes may
	// start at once on one database (PostgreSQL: an advisory lock serializes
	// them; SQLite: BEGIN IMMEDIATE does).
	err = s.run(ctx, false, func(t Tx) error {
		tx := t.(*sqlTx).tx
		if s.d.name == "postgres" {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7210011)`); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		for _, f := range files {
			if f.version > max {
				break
			}
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT count(*) FROM schema_migrations WHERE version = ?`), f.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			body, err := fs.ReadFile(schemaFS, path.Join(dir, f.name))
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("apply %s/%s: %w", s.d.name, f.name, err)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version) VALUES (?)`), f.version); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// rawDB and rebind are for tests that must bypass the Tx methods.
func (s *sqlStore) rawDB() *sql.DB             { return s.db }
func (s *sqlStore) rebind(query string) string { return s.q(query) }
