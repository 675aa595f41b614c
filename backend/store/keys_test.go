package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeKeyring is an OS keyring held in memory.
type fakeKeyring struct {
	mu    sync.Mutex
	m     map[string]string
	err   error         // returned by every call when set
	block chan struct{} // every call waits on it when set
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return "", f.err
	}
	v, ok := f.m[service+"/"+user]
	if !ok {
		return "", errors.New("secret not found in keyring")
	}
	return v, nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, service+"/"+user)
	return nil
}

func (f *fakeKeyring) Set(service, user, secret string) error {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.m[service+"/"+user] = secret
	return nil
}

func useKeyring(t *testing.T, k secretStore) {
	old := keyringBackend
	keyringBackend = k
	t.Cleanup(func() { keyringBackend = old })
}

func place(t *testing.T, s *Store) string {
	t.Helper()
	var p string
	if err := s.db.QueryRow(`SELECT place FROM sealing_key`).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func roundTrip(t *testing.T, path string) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *Tx) error { return tx.PutRecord(RecordWorkspace, []byte("hello")) })
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.View(ctx, func(tx *Tx) error {
		if v, ok, err := tx.Record(RecordWorkspace); err != nil || !ok || string(v) != "hello" {
			t.Fatalf("after reopen: %q %v %v", v, ok, err)
		}
		return nil
	})
	return s
}

// With a keyring, the key is kept there under service "weald" and no key
// file is written.
func TestKeyInKeyring(t *testing.T) {
	t.Setenv("WEALD_KEYRING", "")
	k := &fakeKeyring{m: map[string]string{}}
	useKeyring(t, k)
	path := filepath.Join(t.TempDir(), "state.db")
	s := roundTrip(t, path)
	if p := place(t, s); p != placeKeyring || len(k.m) != 1 {
		t.Fatalf("place %q, keyring %v", p, k.m)
	}
	if _, err := os.Stat(keyFilePath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("key file written beside a keyring key: %v", err)
	}
	// The keyring loses the key: the store says so and reads nothing.
	clear(k.m)
	s.Close()
	s2, err := Open(context.Background(), path) // opening reads no sealed value
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	err = s2.View(context.Background(), func(tx *Tx) error { _, _, err := tx.Record(RecordWorkspace); return err })
	if !errors.Is(err, ErrKeyUnavailable) {
		t.Fatalf("read without the key: %v", err)
	}
}

// A keyring that refuses, or does not answer, falls back to a 0600 key file
// beside the database.
func TestKeyFileFallback(t *testing.T) {
	t.Setenv("WEALD_KEYRING", "")
	old := keyringTimeout
	keyringTimeout = 50 * time.Millisecond
	t.Cleanup(func() { keyringTimeout = old })
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	for name, k := range map[string]*fakeKeyring{
		"refuses": {m: map[string]string{}, err: errors.New("the name org.freedesktop.secrets was not provided")},
		"hangs":   {m: map[string]string{}, block: block},
	} {
		t.Run(name, func(t *testing.T) {
			useKeyring(t, k)
			path := filepath.Join(t.TempDir(), "state.db")
			s := roundTrip(t, path)
			if p := place(t, s); p != placeFile {
				t.Fatalf("place %q", p)
			}
			checkMode(t, keyFilePath(path), 0o600)
		})
	}
}

// WEALD_KEYRING=file forces the key file even where a keyring answers.
func TestKeyringForcedOff(t *testing.T) {
	t.Setenv("WEALD_KEYRING", "file")
	k := &fakeKeyring{m: map[string]string{}}
	useKeyring(t, k)
	s := roundTrip(t, filepath.Join(t.TempDir(), "state.db"))
	if p := place(t, s); p != placeFile || len(k.m) != 0 {
		t.Fatalf("place %q, keyring %v", p, k.m)
	}
}

// Without a D-Bus session bus Linux has no keyring to ask: the store does not
// try (the D-Bus library would try to launch a bus).
func TestNoSessionBusNoKeyring(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if why := systemKeyringMissing("linux", env(nil)); why == "" {
		t.Fatal("linux without a session bus: keyring tried")
	}
	if why := systemKeyringMissing("linux", env(map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"})); why != "" {
		t.Fatalf("linux with a session bus: %s", why)
	}
	if why := systemKeyringMissing("darwin", env(nil)); why != "" {
		t.Fatalf("darwin: %s", why)
	}
}

// A sealed value moved to another row (one group's state under another
// group's id) does not open there.
func TestSealedValueBoundToItsRow(t *testing.T) {
	s := openTest(t)
	a, b := [32]byte{1}, [32]byte{2}
	update(t, s, func(tx *Tx) error {
		if err := tx.PutGroup(a, []byte("state of a")); err != nil {
			return err
		}
		return tx.PutGroup(b, []byte("state of b"))
	})
	if _, err := s.db.Exec(`UPDATE groups SET sealed = (SELECT sealed FROM groups WHERE id = ?) WHERE id = ?`, a[:], b[:]); err != nil {
		t.Fatal(err)
	}
	err := s.View(context.Background(), func(tx *Tx) error { _, err := tx.Groups(); return err })
	if !errors.Is(err, ErrUnreadable) {
		t.Fatalf("swapped value: %v", err)
	}
}

// Removing a database removes its key from the keyring and every file.
func TestRemoveDeletesKeyAndFiles(t *testing.T) {
	t.Setenv("WEALD_KEYRING", "")
	k := &fakeKeyring{m: map[string]string{}}
	useKeyring(t, k)
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	s := roundTrip(t, path)
	s.Close()
	if len(k.m) != 1 {
		t.Fatalf("keyring before removal: %v", k.m)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if len(k.m) != 0 {
		t.Fatalf("keyring after removal: %v", k.m)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}
