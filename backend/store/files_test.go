package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The database, its WAL and shared-memory files are 0600 and its directory
// 0700 even under a permissive umask and in a directory that was left open.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	update(t, s, func(tx *Tx) error { return tx.PutRecord(RecordWorkspace, []byte("v")) })
	checkMode(t, dir, 0o700)
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".key"} {
		checkMode(t, p, 0o600)
	}
}

func checkMode(t *testing.T, p string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %o, want %o", filepath.Base(p), got, want)
	}
}
