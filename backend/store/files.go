package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Every file the store writes is 0600 in a 0700 directory, whatever the
// process umask (issue 11 finding 6): the database is created 0600 before
// SQLite opens it, SQLite gives its -wal and -shm files the database file's
// mode, and privateSidecars checks that they got it.

// PrivateDir creates dir (and its parents) if needed and makes dir itself
// 0700, so that a directory left by an older version or created under a
// loose umask is closed too.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// createPrivate makes path's directory 0700 and the file 0600, creating an
// empty file if there is none (SQLite then initialises it).
func createPrivate(path string) error {
	if err := PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("store: %s: %w", path, err)
	}
	return f.Close()
}

// privateSidecars makes SQLite's -wal and -shm files 0600 if they exist.
func privateSidecars(path string) error {
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: %s: %w", p, err)
		}
	}
	return nil
}
