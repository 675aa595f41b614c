// Package storetest hands tests a relay store on PostgreSQL already at the
// newest schema: a fresh database of the shared pgtest cluster, copied from
// one that was migrated once per test binary, instead of migrating every
// test's database from empty (about a second each on a loaded machine).
// Tests of the migration itself start from pgtest.NewDatabase.
package storetest

import (
	"context"
	"testing"

	"weald/backend/internal/pgtest"
	"weald/backend/relay/store"
)

// PostgresURL returns the URL of a fresh database holding the relay's
// schema at its newest version; it is dropped when t ends. The package's
// TestMain must call pgtest.Main.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return pgtest.NewDatabaseFrom(t, "relay-store", migrate)
}

// Postgres opens a store on a fresh PostgresURL database and closes it when
// t ends (register it before a relay that uses it, so the relay stops
// first).
func Postgres(t testing.TB) store.Store {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// migrate brings an empty database to the newest schema and lets go of it.
func migrate(ctx context.Context, url string) error {
	st, err := store.OpenPostgres(ctx, url)
	if err != nil {
		return err
	}
	return st.Close()
}
