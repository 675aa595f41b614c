package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"weald/backend/roster"
)

// secretsOf lists the secrets an engine holds in memory that its state.db
// must not show to someone who reads the files (issue 11 finding 6): the
// device seed, the genesis seed while kept, the invite secret and update
// key of a joiner, every group's MLS epoch authenticator (kept with the
// epoch secrets in the MLS state), history keys and enrolment secrets.
func secretsOf(e *Engine) map[string][]byte {
	out := map[string][]byte{"device seed": e.meta.DeviceSeed}
	if len(e.meta.GenesisSeed) > 0 {
		out["genesis seed"] = e.meta.GenesisSeed
	}
	if iu := e.meta.Invite; iu != nil {
		out["invite secret"], out["invite update key"] = iu.Secret, iu.UpdatePriv
	}
	for id, g := range e.groups {
		name := hexID(id).hex()[:8]
		if g.mls != nil {
			out["MLS epoch authenticator of "+name] = g.mls.EpochAuthenticator()
		}
		for i, hk := range g.history {
			out["history key "+name+"/"+string(rune('0'+i))] = hk.Key
		}
		for ep, s := range g.rec.Enrol {
			out["enrolment secret "+name+"@"+ep] = s
		}
	}
	return out
}

// encodings returns the forms a secret takes in the files: raw, hex, and
// base64 (JSON's form of bytes) at each of the three alignments it can have
// inside a longer encoded value.
func encodings(s []byte) [][]byte {
	out := [][]byte{s, []byte(hex.EncodeToString(s))}
	for k := 0; k < 3; k++ {
		c := s[k:]
		c = c[:len(c)/3*3]
		out = append(out, []byte(base64.StdEncoding.EncodeToString(c)))
	}
	return out
}

// scanFiles reads dir's files as an attacker with the disk would and
// reports each secret found in any of them, in any of its encodings.
func scanFiles(t *testing.T, dir string, secrets map[string][]byte) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for what, s := range secrets {
			if len(s) < 16 {
				continue
			}
			for _, enc := range encodings(s) {
				if bytes.Contains(b, enc) {
					t.Errorf("%s holds the %s in plaintext", ent.Name(), what)
					break
				}
			}
		}
	}
}

// checkModes fails unless dir is 0700 and every file in it 0600.
func checkModes(t *testing.T, dir string) {
	t.Helper()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o700 {
		t.Errorf("%s: mode %o, want 700", filepath.Base(dir), m)
	}
	ents, _ := os.ReadDir(dir)
	for _, ent := range ents {
		fi, err := ent.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", ent.Name(), m)
		}
	}
}

// An attacker who can read a device's disk (a backup, a stolen laptop,
// another local user) reads state.db and its WAL: none of the device's
// secrets, nor a message's text, is there in plaintext; the files are 0600
// in a 0700 directory even under a permissive umask.
func TestSecretsNotReadableAtRest(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	r := startRelay(t)
	dana := createWorkspace(t, r, 60)
	ctx := testCtx(t)
	const text = "the launch code is 0000-swordfish-0000"
	if _, err := dana.Send(ctx, "general", text); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 61)
	for name, e := range map[string]*Engine{"dana": dana, "sam": sam} {
		t.Run(name, func(t *testing.T) {
			secrets := secretsOf(e)
			secrets["message text"] = []byte(text)
			if len(secrets) < 4 {
				t.Fatalf("too few secrets to look for: %d", len(secrets))
			}
			t.Logf("looking for %d secrets", len(secrets))
			dir := e.opts.Dir
			scanFiles(t, dir, secrets) // while open: the WAL holds the newest pages
			checkModes(t, dir)
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			scanFiles(t, dir, secrets) // after the checkpoint on close
			checkModes(t, dir)
		})
	}
}
