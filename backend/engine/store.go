package engine

import (
	"context"
	"os"
	"path/filepath"

	"weald/backend/store"
)

// db is the client's local state for one workspace, kept by backend/store
// (docs/protocol/store.md): the workspace record and alerts, one state per
// group, key packages, chat shards and the roster, each through its typed
// accessor. Every multi-row change is one transaction, so a crash leaves
// either the old or the new state.
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

// view runs fn in a read transaction.
func (d *db) view(ctx context.Context, fn func(tx *store.Tx) error) error { return d.s.View(ctx, fn) }

func (t *txn) putRecord(r store.Record, v []byte) error { return t.tx.PutRecord(r, v) }
func (t *txn) addRosterOp(idx int, op []byte) error     { return t.tx.AddRosterOp(idx, op) }

func (d *db) record(ctx context.Context, r store.Record) (v []byte, ok bool, err error) {
	err = d.view(ctx, func(tx *store.Tx) error {
		v, ok, err = tx.Record(r)
		return err
	})
	return v, ok, err
}

func (d *db) rosterOps(ctx context.Context) (ops [][]byte, err error) {
	err = d.view(ctx, func(tx *store.Tx) error {
		ops, err = tx.RosterOps()
		return err
	})
	return ops, err
}

// Remove deletes the local state of a closed workspace in dir for good: its
// database with its key (the keyring entry too) and the directory.
func Remove(dir string) error {
	if err := store.Remove(filepath.Join(dir, "state.db")); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}
