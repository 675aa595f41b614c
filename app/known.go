package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// maxKnownFolders bounds the project folders one device watches (each costs
// an inotify watch).
const maxKnownFolders = 256

// knownFolders is the list of project folders, kept in the app database
// (store.App.ProjectFolders).
type knownFolders struct {
	app     *App
	Folders []string
}

// knownFile is the list as versions before the app database kept it:
// <data>/projects.json = {"version": 1, "folders": ["/abs/path", …]}.
type knownFile struct {
	Version int      `json:"version"`
	Folders []string `json:"folders"`
}

func legacyKnownFoldersPath(dataDir string) string { return filepath.Join(dataDir, "projects.json") }

// parseKnownFolders reads a projects.json of an earlier version: a list of
// clean, distinct absolute paths, or projects/unreadable.
func parseKnownFolders(b []byte, where string) ([]string, *Error) {
	bad := func(why string) *Error {
		return &Error{Code: "projects/unreadable", Message: fmt.Sprintf("The list of project folders in %s %s; fix or delete that file and restart Weald.", where, why)}
	}
	if len(b) > 1<<20 {
		return nil, bad("is larger than 1 MiB")
	}
	var f knownFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, bad("is not valid JSON")
	}
	if f.Version != 1 {
		return nil, bad(fmt.Sprintf("has version %d, which this Weald does not read", f.Version))
	}
	if why := checkFolders(f.Folders); why != "" {
		return nil, bad(why)
	}
	return f.Folders, nil
}

// checkFolders says what is wrong with a list of folders, or "".
func checkFolders(folders []string) string {
	seen := map[string]bool{}
	for _, d := range folders {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d || seen[d] {
			return fmt.Sprintf("holds %q, which is not a clean absolute path or is listed twice", d)
		}
		seen[d] = true
	}
	if len(folders) > maxKnownFolders {
		return fmt.Sprintf("lists %d folders, more than %d", len(folders), maxKnownFolders)
	}
	return ""
}

// loadKnownFolders reads the list from the app database. The first time
// after an upgrade it comes from the projects.json of an earlier version,
// which is moved into the database and removed; a file that cannot be used
// is an error and is left untouched.
func (a *App) loadKnownFolders() (*knownFolders, *Error) {
	db, err := a.db()
	if err != nil {
		return nil, err
	}
	k := &knownFolders{app: a}
	legacy := legacyKnownFoldersPath(a.dataDir)
	b, rerr := os.ReadFile(legacy)
	switch {
	case rerr == nil:
		folders, err := parseKnownFolders(b, legacy)
		if err != nil {
			return nil, err
		}
		if err := k.save(folders); err != nil {
			return nil, err
		}
		os.Remove(legacy)
		return k, nil
	case !errors.Is(rerr, os.ErrNotExist):
		return nil, &Error{Code: "projects/unreadable", Message: fmt.Sprintf("The list of project folders in %s cannot be read (%v); fix or delete that file and restart Weald.", legacy, rerr)}
	}
	folders, serr := db.ProjectFolders(context.Background())
	if serr != nil {
		return nil, &Error{Code: "projects/unreadable", Message: fmt.Sprintf("The list of project folders cannot be read from %s (%v).", a.dataDir, serr)}
	}
	if why := checkFolders(folders); why != "" {
		return nil, &Error{Code: "projects/unreadable", Message: "The stored list of project folders " + why + "."}
	}
	k.Folders = folders
	return k, nil
}

// save replaces the list; on failure the list in memory is unchanged.
func (k *knownFolders) save(folders []string) *Error {
	db, err := k.app.db()
	if err != nil {
		return err
	}
	if serr := db.SetProjectFolders(context.Background(), folders); serr != nil {
		return &Error{Code: "projects/write_failed", Message: fmt.Sprintf("The list of project folders could not be saved (%v); check that the data directory is writable.", serr)}
	}
	k.Folders = folders
	return nil
}
