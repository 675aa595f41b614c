package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// prefs is what this device keeps about a workspace for the UI only, never
// sent anywhere: your display name, local channel names (defaults may be
// renamed), the sidebar order, the last message read per channel, and
// which messages notify.
// Stored as JSON in the app database (store.App.PutPrefs).
type prefs struct {
	You      string            `json:"you"`
	Names    map[string]string `json:"names"`     // group id → local name
	Order    []string          `json:"order"`     // group ids, sidebar order
	LastRead map[string]int64  `json:"last_read"` // group id → unix ms of the newest message read
	Notify   string            `json:"notify"`    // notifications: all, mentions (and DMs; "" too) or none
	// Acked: the alerts acknowledged on this device (security.go), by id.
	Acked map[string]ack `json:"acked,omitempty"`
	// RotationShown: when a new recovery phrase from a rotation was
	// handed to the UI and not yet confirmed (unix ms; 0: none).
	RotationShown int64 `json:"rotation_shown,omitempty"`
}

// ack is how and when an alert was acknowledged.
type ack struct {
	At      int64  `json:"at"`      // unix ms
	Outcome string `json:"outcome"` // an AlertOutcome
}

// legacyPrefsPath is where versions before the app database kept a
// workspace's preferences.
func legacyPrefsPath(dataDir, ws string) string { return filepath.Join(dataDir, "ui", ws+".json") }

// parsePrefs reads stored preferences; unreadable ones fall back to the
// defaults (they hold nothing that matters).
func parsePrefs(b []byte) prefs {
	p := prefs{Names: map[string]string{}, LastRead: map[string]int64{}}
	if len(b) > 1<<20 {
		return p
	}
	var q prefs
	if json.Unmarshal(b, &q) != nil {
		return p
	}
	if q.Names == nil {
		q.Names = map[string]string{}
	}
	if q.LastRead == nil {
		q.LastRead = map[string]int64{}
	}
	return q
}

// loadPrefs returns the preferences of workspace ws. The first time after
// an upgrade they come from the JSON file an earlier version kept, which is
// then moved into the app database and removed.
func (a *App) loadPrefs(ws string) prefs {
	db, err := a.db()
	if err != nil {
		a.logger.Printf("preferences of %s: %s", ws, err.Message)
		return parsePrefs(nil)
	}
	ctx := context.Background()
	legacy := legacyPrefsPath(a.dataDir, ws)
	if b, rerr := os.ReadFile(legacy); rerr == nil {
		p := parsePrefs(b)
		if a.savePrefs(ws, p) == nil {
			os.Remove(legacy)
			os.Remove(filepath.Dir(legacy)) // only once empty
		}
		return p
	}
	b, ok, serr := db.Prefs(ctx, ws)
	if serr != nil || !ok {
		return parsePrefs(nil)
	}
	return parsePrefs(b)
}

func (a *App) savePrefs(ws string, p prefs) *Error {
	db, err := a.db()
	if err != nil {
		return err
	}
	b, _ := json.Marshal(p)
	if serr := db.PutPrefs(context.Background(), ws, b); serr != nil {
		return &Error{Code: "storage/write_failed", Message: fmt.Sprintf("Weald could not save your settings for this workspace (%v); check that the data directory is writable.", serr)}
	}
	return nil
}

// deletePrefs forgets the preferences of a removed workspace.
func (a *App) deletePrefs(ws string) {
	if db, err := a.db(); err == nil {
		if serr := db.DeletePrefs(context.Background(), ws); serr != nil {
			a.logger.Printf("preferences of %s: %v", ws, serr)
		}
	}
}
