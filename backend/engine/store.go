package engine

import (
	"context"

	"weald/backend/store"
)

// db is the client's local state for one workspace, kept by backend/store
// (docs/protocol/store.md). Every multi-key change is one transaction, so a
// crash leaves either the old or the new state.
type db struct{ s *store.Store }

func openDB(ctx context.Context, path string) (*db, error) {
	s, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &db{s: s}, nil
}

func (d *db) close() error { return d.s.Close() }

// txn is one write transaction.
type txn struct{ tx *store.Tx }

func (d *db) update(ctx context.Context, fn func(t *txn) error) error {
	return d.s.Update(ctx, func(tx *store.Tx) error { return fn(&txn{tx: tx}) })
}

func (t *txn) put(k string, v []byte) error         { return t.tx.Put(k, v) }
func (t *txn) del(k string) error                   { return t.tx.Delete(k) }
func (t *txn) delPrefix(p string) error             { return t.tx.DeletePrefix(p) }
func (t *txn) addRosterOp(idx int, op []byte) error { return t.tx.AddRosterOp(idx, op) }

func (d *db) get(ctx context.Context, k string) (v []byte, ok bool, err error) {
	err = d.s.View(ctx, func(tx *store.Tx) error {
		v, ok, err = tx.Get(k)
		return err
	})
	return v, ok, err
}

func (d *db) prefix(ctx context.Context, p string) (m map[string][]byte, err error) {
	err = d.s.View(ctx, func(tx *store.Tx) error {
		m, err = tx.Prefix(p)
		return err
	})
	return m, err
}

func (d *db) rosterOps(ctx context.Context) (ops [][]byte, err error) {
	err = d.s.View(ctx, func(tx *store.Tx) error {
		ops, err = tx.RosterOps()
		return err
	})
	return ops, err
}
