package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// prefs is what this device keeps about a workspace for the UI only, never
// sent anywhere: your display name, local channel names (defaults may be
// renamed), the sidebar order, and the last message read per channel.
// Stored in <data>/ui/<workspace>.json, replaced atomically.
type prefs struct {
	You      string            `json:"you"`
	Names    map[string]string `json:"names"`     // group id → local name
	Order    []string          `json:"order"`     // group ids, sidebar order
	LastRead map[string]int64  `json:"last_read"` // group id → unix ms of the newest message read
}

func prefsPath(dataDir, ws string) string { return filepath.Join(dataDir, "ui", ws+".json") }

func loadPrefs(dataDir, ws string) prefs {
	p := prefs{Names: map[string]string{}, LastRead: map[string]int64{}}
	b, err := os.ReadFile(prefsPath(dataDir, ws))
	if err != nil || len(b) > 1<<20 {
		return p
	}
	var q prefs
	if json.Unmarshal(b, &q) != nil {
		return p // unreadable preferences fall back to defaults; they hold nothing that matters
	}
	if q.Names == nil {
		q.Names = map[string]string{}
	}
	if q.LastRead == nil {
		q.LastRead = map[string]int64{}
	}
	return q
}

func savePrefs(dataDir, ws string, p prefs) *Error {
	path := prefsPath(dataDir, ws)
	fail := func(err error) *Error {
		return &Error{Code: "storage/write_failed", Message: fmt.Sprintf("Weald could not save your settings for this workspace (%v); check that the data directory is writable.", err)}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fail(err)
	}
	b, _ := json.MarshalIndent(p, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fail(err)
	}
	return nil
}
