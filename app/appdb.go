package app

import (
	"context"
	"fmt"

	"weald/backend/store"
)

// db returns the app database (<data>/app.db, backend/store), opening it on
// first use.
func (a *App) db() (*store.App, *Error) {
	a.dbMu.Lock()
	defer a.dbMu.Unlock()
	if a.appDB != nil {
		return a.appDB, nil
	}
	db, err := store.OpenApp(context.Background(), a.dataDir)
	if err != nil {
		return nil, &Error{Code: "storage/unreadable", Message: fmt.Sprintf("Weald cannot open its database in %s (%v); check that the data directory is writable.", a.dataDir, err)}
	}
	a.appDB = db
	return db, nil
}

// closeDB closes the app database (Shutdown); a later call reopens it.
func (a *App) closeDB() {
	a.dbMu.Lock()
	defer a.dbMu.Unlock()
	if a.appDB != nil {
		a.appDB.Close()
		a.appDB = nil
	}
}
