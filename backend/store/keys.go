package store

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"weald/backend/errcode"
)

// Each database has its own 32-byte key, made when the database is created
// (migration 0002) and named by a random 16-byte key id kept in the
// database's sealing_key row, with where the key is:
//
//   - "keyring": the OS keyring (Secret Service on Linux, the Keychain on
//     macOS, the Credential Manager on Windows), service "weald", account
//     "store/<key id hex>";
//   - "file": a key file beside the database, <database>.key, 0600, holding
//     "<key id hex> <key hex>". Used where there is no keyring: no D-Bus
//     session bus (a headless CLI, CI), a keyring that refuses or does not
//     answer within keyringTimeout, WEALD_KEYRING=file, or a test binary.
//     The process logs one warning line the first time it makes one (not
//     in tests): such a key protects only against a reader of the database
//     file alone.
//
// The account names the key id, not a path, so a workspace directory can be
// renamed (the app and the CLI create it under a temporary name).

const (
	keyringService = "weald"
	placeKeyring   = "keyring"
	placeFile      = "file"
)

// keyringTimeout bounds each keyring call (a variable for tests).
var keyringTimeout = 5 * time.Second

// ErrKeyUnavailable is returned when the database's key cannot be read.
var ErrKeyUnavailable = errcode.New("store/key_unavailable", "the key that encrypts this workspace's local state cannot be read")

// secretStore is the OS keyring (a fake in tests).
type secretStore interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }
func (osKeyring) Set(service, user, secret string) error   { return keyring.Set(service, user, secret) }
func (osKeyring) Delete(service, user string) error        { return keyring.Delete(service, user) }

// keyringBackend is the keyring in use; tests replace it.
var keyringBackend secretStore = osKeyring{}

// keyringUnavailable says why the OS keyring is not to be tried, or "".
func keyringUnavailable() string {
	if v := os.Getenv("WEALD_KEYRING"); v == placeFile {
		return "WEALD_KEYRING=file"
	}
	if _, sys := keyringBackend.(osKeyring); !sys {
		return ""
	}
	if testing.Testing() {
		return "a test binary" // never touch a developer's real keyring
	}
	return systemKeyringMissing(runtime.GOOS, os.Getenv)
}

// systemKeyringMissing says why goos with this environment has no keyring
// to try, or "". Secret Service is a D-Bus service: without a session bus
// the D-Bus library would try to launch one, so there is none to ask.
func systemKeyringMissing(goos string, getenv func(string) string) string {
	switch goos {
	case "darwin", "windows", "ios":
		return ""
	}
	if getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return "no D-Bus session bus"
	}
	return ""
}

// withTimeout runs f on the keyring backend of the moment, giving up after
// keyringTimeout (a locked keyring may wait for a prompt nobody answers).
// f gets the backend as an argument: the goroutine it runs on may outlive
// the call, and must not read keyringBackend after a test put it back.
func withTimeout(f func(kb secretStore) error) error {
	kb := keyringBackend
	done := make(chan error, 1)
	go func() { done <- f(kb) }()
	select {
	case err := <-done:
		return err
	case <-time.After(keyringTimeout):
		return fmt.Errorf("the keyring did not answer within %v", keyringTimeout)
	}
}

func keyringAccount(id []byte) string { return "store/" + hex.EncodeToString(id) }

func keyFilePath(dbPath string) string { return dbPath + ".key" }

var warnOnce sync.Once

// warnFileKey logs the one warning line of a process that keeps a key in a
// file.
func warnFileKey(why, path string) {
	if testing.Testing() {
		return
	}
	warnOnce.Do(func() {
		log.Printf("weald: warning: no OS keyring (%s); the key that encrypts local secrets is kept in a 0600 file beside the database (%s), readable by anyone who can read that directory", why, filepath.Base(path))
	})
}

// createKey makes the key of a new database: in the OS keyring when there is
// one, otherwise in a key file beside the database.
func createKey(dbPath string) (id, key []byte, place string, err error) {
	id, key = make([]byte, 16), make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return nil, nil, "", fmt.Errorf("store: key: %w", err)
	}
	if _, err := rand.Read(key); err != nil {
		return nil, nil, "", fmt.Errorf("store: key: %w", err)
	}
	why := keyringUnavailable()
	if why == "" {
		err := withTimeout(func(kb secretStore) error { return kb.Set(keyringService, keyringAccount(id), hex.EncodeToString(key)) })
		if err == nil {
			return id, key, placeKeyring, nil
		}
		why = err.Error()
	}
	p := keyFilePath(dbPath)
	if err := writeKeyFile(p, id, key); err != nil {
		return nil, nil, "", err
	}
	warnFileKey(why, p)
	return id, key, placeFile, nil
}

func writeKeyFile(p string, id, key []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("store: key file: %w", err)
	}
	_, err = fmt.Fprintf(f, "%x %x\n", id, key)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: key file: %w", err)
	}
	return nil
}

// loadKey reads the key with id from where the database says it is.
func loadKey(dbPath string, id []byte, place string) ([]byte, error) {
	var text string
	switch place {
	case placeFile:
		p := keyFilePath(dbPath)
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: the key file %s: %v", ErrKeyUnavailable, p, err)
		}
		fid, k, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
		if !ok || fid != hex.EncodeToString(id) {
			return nil, fmt.Errorf("%w: %s holds the key of another database", ErrKeyUnavailable, p)
		}
		text = k
	case placeKeyring:
		err := withTimeout(func(kb secretStore) (err error) {
			text, err = kb.Get(keyringService, keyringAccount(id))
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%w from the OS keyring (%v); unlock the keyring, or run Weald in the desktop session, and try again", ErrKeyUnavailable, err)
		}
	default:
		return nil, fmt.Errorf("%w: unknown key place %q", ErrKeyUnavailable, place)
	}
	key, err := hex.DecodeString(text)
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%w: the stored key is malformed", ErrKeyUnavailable)
	}
	return key, nil
}

// sealer returns the database's sealer, reading its key (or, in the
// migration that introduces it, making one) on first use.
func (t *Tx) sealer() (*sealer, error) {
	s := t.s
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.seal != nil {
		return s.seal, nil
	}
	var id []byte
	var place string
	err := t.row(`SELECT key_id, place FROM sealing_key`).Scan(&id, &place)
	var key []byte
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if id, key, place, err = createKey(s.path); err != nil {
			return nil, err
		}
		if _, err := t.exec(`INSERT INTO sealing_key (singleton, key_id, place) VALUES (1, ?, ?)`, id, place); err != nil {
			return nil, fmt.Errorf("store: record key: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("store: read key id: %w", err)
	default:
		if key, err = loadKey(s.path, id, place); err != nil {
			return nil, err
		}
	}
	sl, err := newSealer(key)
	if err != nil {
		return nil, err
	}
	clear(key)
	s.seal = sl
	return sl, nil
}

// Remove deletes the closed database at path for good: its key's keyring
// entry, then the database, its WAL, shared-memory and key files. The
// keyring entry is removed on a best-effort basis (a locked or absent
// keyring leaves it: a key without its data); the files are removed in any
// case.
func Remove(path string) error {
	if db, err := sql.Open("sqlite", "file:"+path+"?mode=ro"); err == nil {
		var id []byte
		var place string
		if db.QueryRow(`SELECT key_id, place FROM sealing_key`).Scan(&id, &place) == nil && place == placeKeyring {
			_ = withTimeout(func(kb secretStore) error { return kb.Delete(keyringService, keyringAccount(id)) })
		}
		db.Close()
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", keyFilePath(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store: remove %s: %w", p, err)
		}
	}
	return nil
}
