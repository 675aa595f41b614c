package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"path/filepath"
)

// The app database's schema: numbered files appschema/NNNN_name.sql, run by
// the same migration runner as a workspace's.
//
//go:embed appschema/*.sql
var appSchemaFS embed.FS

// App is the app database, <data>/app.db: what the desktop app (or the CLI,
// in its home directory) keeps on this device outside any workspace
// (workspace UI preferences, project folders, the profile name, the current
// workspace). Its methods are each one transaction.
type App struct{ s *Store }

// AppPath is where the app database of data directory dataDir lives.
func AppPath(dataDir string) string { return filepath.Join(dataDir, "app.db") }

// OpenApp opens (creating if needed) the app database under dataDir.
func OpenApp(ctx context.Context, dataDir string) (*App, error) {
	ms, err := loadMigrations(appSchemaFS, "appschema")
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, AppPath(dataDir), ms)
	if err != nil {
		return nil, err
	}
	return &App{s: s}, nil
}

// Close closes the database.
func (a *App) Close() error { return a.s.Close() }

// Prefs returns the UI preferences stored for workspace ws (64 hex digits)
// and whether there are any.
func (a *App) Prefs(ctx context.Context, ws string) (prefs []byte, ok bool, err error) {
	err = a.s.View(ctx, func(tx *Tx) error {
		err := tx.row(`SELECT prefs FROM workspace_prefs WHERE workspace = ?`, ws).Scan(&prefs)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return prefs, ok, err
}

// PutPrefs stores the UI preferences of workspace ws.
func (a *App) PutPrefs(ctx context.Context, ws string, prefs []byte) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO workspace_prefs (workspace, prefs) VALUES (?, ?)
			ON CONFLICT (workspace) DO UPDATE SET prefs = excluded.prefs`, ws, prefs)
		return err
	})
}

// DeletePrefs forgets the UI preferences of workspace ws.
func (a *App) DeletePrefs(ctx context.Context, ws string) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`DELETE FROM workspace_prefs WHERE workspace = ?`, ws)
		return err
	})
}

// ProjectFolders returns the project folders in order.
func (a *App) ProjectFolders(ctx context.Context) (folders []string, err error) {
	err = a.s.View(ctx, func(tx *Tx) error {
		rows, err := tx.query(`SELECT path FROM project_folders ORDER BY pos`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				return err
			}
			folders = append(folders, p)
		}
		return rows.Err()
	})
	return folders, err
}

// SetProjectFolders replaces the list of project folders.
func (a *App) SetProjectFolders(ctx context.Context, folders []string) error {
	return a.s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`DELETE FROM project_folders`); err != nil {
			return err
		}
		for i, p := range folders {
			if _, err := tx.exec(`INSERT INTO project_folders (pos, path) VALUES (?, ?)`, i, p); err != nil {
				return err
			}
		}
		return nil
	})
}
