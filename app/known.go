package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// maxKnownFolders bounds the project folders one device watches (each costs
// an inotify watch).
const maxKnownFolders = 256

// knownFolders is the persisted list of project folders:
// <data>/projects.json = {"version": 1, "folders": ["/abs/path", …]}.
type knownFolders struct {
	path    string
	Folders []string
}

type knownFile struct {
	Version int      `json:"version"`
	Folders []string `json:"folders"`
}

func knownFoldersPath(dataDir string) string { return filepath.Join(dataDir, "projects.json") }

// loadKnownFolders reads the list; a missing file is an empty list. A file
// that cannot be used is an error and is left untouched (never overwritten).
func loadKnownFolders(dataDir string) (*knownFolders, *Error) {
	k := &knownFolders{path: knownFoldersPath(dataDir)}
	b, err := os.ReadFile(k.path)
	if errors.Is(err, os.ErrNotExist) {
		return k, nil
	}
	bad := func(why string) *Error {
		return &Error{Code: "projects/unreadable", Message: fmt.Sprintf("The list of project folders in %s %s; fix or delete that file and restart Weald.", k.path, why)}
	}
	if err != nil {
		return nil, bad(fmt.Sprintf("cannot be read (%v)", err))
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
	seen := map[string]bool{}
	for _, d := range f.Folders {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d || seen[d] {
			return nil, bad(fmt.Sprintf("holds %q, which is not a clean absolute path or is listed twice", d))
		}
		seen[d] = true
	}
	if len(f.Folders) > maxKnownFolders {
		return nil, bad(fmt.Sprintf("lists %d folders, more than %d", len(f.Folders), maxKnownFolders))
	}
	k.Folders = f.Folders
	return k, nil
}

// save replaces the list atomically; on failure the list in memory is unchanged.
func (k *knownFolders) save(folders []string) *Error {
	b, _ := json.MarshalIndent(knownFile{Version: 1, Folders: folders}, "", "  ")
	fail := func(err error) *Error {
		return &Error{Code: "projects/write_failed", Message: fmt.Sprintf("The list of project folders could not be saved (%v); check that the data directory is writable.", err)}
	}
	if err := os.MkdirAll(filepath.Dir(k.path), 0o700); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(k.path), ".projects.json.tmp-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), k.path); err != nil {
		return fail(err)
	}
	k.Folders = folders
	return nil
}
