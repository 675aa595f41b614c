package store

import (
	"database/sql"
	"errors"
)

// The engine's values by string key (schema 0001: table kv) and its roster
// operations (table roster).

// Get returns the value stored under k and whether there is one.
func (t *Tx) Get(k string) ([]byte, bool, error) {
	var v []byte
	err := t.row(`SELECT v FROM kv WHERE k = ?`, k).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// Put stores v under k, replacing any value there.
func (t *Tx) Put(k string, v []byte) error {
	_, err := t.exec(`INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	return err
}

// Delete removes the value under k, if any.
func (t *Tx) Delete(k string) error {
	_, err := t.exec(`DELETE FROM kv WHERE k = ?`, k)
	return err
}

// DeletePrefix removes every value whose key starts with p.
func (t *Tx) DeletePrefix(p string) error {
	_, err := t.exec(`DELETE FROM kv WHERE k >= ? AND k < ?`, p, p+"\xff")
	return err
}

// Prefix returns every value whose key starts with p, by key.
func (t *Tx) Prefix(p string) (map[string][]byte, error) {
	rows, err := t.query(`SELECT k, v FROM kv WHERE k >= ? AND k < ?`, p, p+"\xff")
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

// AddRosterOp stores the roster operation with index idx (1 for the first
// one applied); an index already stored keeps its operation.
func (t *Tx) AddRosterOp(idx int, op []byte) error {
	_, err := t.exec(`INSERT OR IGNORE INTO roster (idx, op) VALUES (?, ?)`, idx, op)
	return err
}

// RosterOps returns the stored roster operations in order.
func (t *Tx) RosterOps() ([][]byte, error) {
	rows, err := t.query(`SELECT op FROM roster ORDER BY idx`)
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
