package store

import (
	"context"
	"database/sql"
	"errors"
)

// Profile returns the name given at init and whether one was given.
func (a *App) Profile(ctx context.Context) (name string, ok bool, err error) {
	return a.single(ctx, `SELECT name FROM profile WHERE id = 1`)
}

// SetProfile stores the name given at init.
func (a *App) SetProfile(ctx context.Context, name string) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO profile (id, name) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name`, name)
		return err
	})
}

// CurrentWorkspace returns the id of the workspace commands act on when none
// is named, and whether there is one.
func (a *App) CurrentWorkspace(ctx context.Context) (ws string, ok bool, err error) {
	return a.single(ctx, `SELECT workspace FROM current_workspace WHERE id = 1`)
}

// SetCurrentWorkspace makes ws the current workspace.
func (a *App) SetCurrentWorkspace(ctx context.Context, ws string) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO current_workspace (id, workspace) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET workspace = excluded.workspace`, ws)
		return err
	})
}

// ClearCurrentWorkspace forgets the current workspace if it is ws, in one
// transaction, so a concurrent SetCurrentWorkspace of another is kept.
func (a *App) ClearCurrentWorkspace(ctx context.Context, ws string) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`DELETE FROM current_workspace WHERE workspace = ?`, ws)
		return err
	})
}

// single reads one text column of a one-row table.
func (a *App) single(ctx context.Context, query string) (v string, ok bool, err error) {
	err = a.s.View(ctx, func(tx *Tx) error {
		err := tx.row(query).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return v, ok, err
}
