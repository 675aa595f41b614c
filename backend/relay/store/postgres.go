package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
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
	return &pgStore{sqlStore: s, url: url, reconnectDelay: 500 * time.Millisecond}, nil
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
