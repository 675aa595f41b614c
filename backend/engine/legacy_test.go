package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A state.db written by an earlier Weald (testdata/state-0478711.db: a
// joiner's state at commit 0478711, before backend/store owned it: kv and
// roster tables, values in plaintext) opens: the workspace, its channels and
// messages are there, and afterwards none of its secrets is left in
// plaintext in the files.
func TestLegacyStateDBOpens(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile(filepath.Join("testdata", "state-0478711.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.db"), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Open(testCtx(t), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.WorkspaceID(); len(got) != 64 || e.meta.Invite == nil || !e.Ready() {
		t.Fatalf("workspace %q, invite %v, ready %v", got, e.meta.Invite, e.Ready())
	}
	if n := len(e.Channels()); n != 3 {
		t.Fatalf("%d channels, want 3", n)
	}
	ms, err := e.Messages(testCtx(t), "general", 0)
	if err != nil || len(ms) != 2 || ms[0].Text != "written by an earlier Weald" || ms[1].Text != "hello from sam" {
		t.Fatalf("messages %+v, %v", ms, err)
	}
	secrets := secretsOf(e)
	secrets["message text"] = []byte("written by an earlier Weald")
	found := 0
	for _, s := range secrets {
		for _, enc := range encodings(s) {
			if len(s) >= 16 && bytes.Contains(fixture, enc) {
				found++
				break
			}
		}
	}
	if found < 4 {
		t.Fatalf("the fixture shows only %d of the secrets in plaintext; it proves less than it claims", found)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	scanFiles(t, dir, secrets)
	checkModes(t, dir)
}
