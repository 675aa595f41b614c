package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// db is the client's local state for one workspace: a key-value table and
// the roster operations, in one SQLite file. Every multi-key change is one
// transaction, so a crash leaves either the old or the new state.
type db struct{ sql *sql.DB }

const schema = `
CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS roster (idx INTEGER PRIMARY KEY, op BLOB NOT NULL);
`

func openDB(ctx context.Context, path string) (*db, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	s, err := sql.Open("sqlite", "file:"+abs+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	s.SetMaxOpenConns(1)
	if _, err := s.ExecContext(ctx, schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("engine: local state %s: %w", path, err)
	}
	return &db{sql: s}, nil
}

func (d *db) close() error { return d.sql.Close() }

type txn struct {
	ctx context.Context
	tx  *sql.Tx
}

func (d *db) update(ctx context.Context, fn func(t *txn) error) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(&txn{ctx: ctx, tx: tx}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (t *txn) put(k string, v []byte) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	return err
}

func (t *txn) addRosterOp(idx int, op []byte) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT OR IGNORE INTO roster (idx, op) VALUES (?, ?)`, idx, op)
	return err
}

func (d *db) get(ctx context.Context, k string) ([]byte, bool, error) {
	var v []byte
	err := d.sql.QueryRowContext(ctx, `SELECT v FROM kv WHERE k = ?`, k).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return v, err == nil, err
}

func (d *db) prefix(ctx context.Context, p string) (map[string][]byte, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT k, v FROM kv WHERE k >= ? AND k < ?`, p, p+"\xff")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

func (d *db) rosterOps(ctx context.Context) ([][]byte, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT op FROM roster ORDER BY idx`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var op []byte
		if err := rows.Scan(&op); err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, rows.Err()
}
