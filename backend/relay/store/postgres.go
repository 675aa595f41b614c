package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// OpenPostgres connects to the PostgreSQL database at url (postgres://…) and
// applies the schema. Several relay processes may share one database:
// workspace-scoped writes lock the workspace row, and every change is also
// NOTIFYed on [NotifyChannel].
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect postgres: %w", err)
	}
	s := newSQLStore(db, postgresDialect)
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// The fast-send statements take array parameters, for which PostgreSQL
	// plans every execution afresh (its estimate for a generic plan is
	// worse than for the actual arrays), and planning them costs more than
	// running them. Their generic plans are index lookups throughout, so
	// they run on a pool of their own that always uses them.
	fcfg, err := pgx.ParseConfig(url)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	fcfg.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	fast := stdlib.OpenDB(*fcfg)
	fast.SetMaxOpenConns(8)
	fast.SetMaxIdleConns(8)
	fast.SetConnMaxIdleTime(5 * time.Minute)
	return &pgStore{sqlStore: s, fast: fast, url: url, reconnectDelay: 500 * time.Millisecond}, nil
}

// Close closes both pools.
func (s *pgStore) Close() error {
	s.fast.Close()
	return s.sqlStore.Close()
}

// URL returns the database URL the store was opened with.
func (s *pgStore) URL() string { return s.url }

// Open opens a PostgreSQL store for a postgres:// or postgresql:// URL and a
// SQLite store for anything else (a file path).
func Open(ctx context.Context, dsn string) (Store, error) {
	if isPostgresURL(dsn) {
		return OpenPostgres(ctx, dsn)
	}
	return OpenSQLite(ctx, dsn)
}

func isPostgresURL(s string) bool {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}
