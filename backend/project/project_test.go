package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"weald/backend/errcode"
)

const wsA = "aa00000000000000000000000000000000000000000000000000000000000001"
const wsB = "bb00000000000000000000000000000000000000000000000000000000000002"

func code(err error) errcode.Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestParseRejectsBadFilesWithCodes(t *testing.T) {
	cases := map[string]errcode.Code{
		`[]`:                               CodeInvalid,
		`{"version": 2}`:                   CodeInvalid,
		`{"transport": "carrier-pigeon"}`:  CodeInvalid,
		`{"transport": "relay"}`:           CodeInvalid,
		`{"workspace": "xyz"}`:             CodeInvalid,
		`{"relay": "http://example.test"}`: CodeInvalid,
		`{"name": 7}`:                      CodeInvalid,
		`{"name": "a"} {"name": "b"}`:      CodeInvalid,
		`{`:                                CodeInvalid,
		strings.Repeat(" ", MaxFileSize+1): CodeTooLarge,
	}
	for in, want := range cases {
		if _, err := Parse("x/.weald", []byte(in)); code(err) != want {
			t.Errorf("Parse(%.40q) = %v, want code %s", in, err, want)
		}
	}
	f, err := Parse("x/.weald", []byte(`{"name":"demo"}`))
	if err != nil || f.Transport != TransportLocal || f.Version != 1 || f.Name != "demo" {
		t.Fatalf("minimal file: %+v %v", f, err)
	}
}

func TestBindWritesWorkspaceFlipsTransportAndKeepsUnknownFields(t *testing.T) {
	dir := t.TempDir()
	orig := `{"name":"site","transport":"local","editor":{"tabs":2},"z":[1,2]}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Bind(dir, strings.ToUpper(wsA), "ws://127.0.0.1:7777")
	if err != nil {
		t.Fatal(err)
	}
	if f.Transport != TransportRelay || f.Workspace != wsA {
		t.Fatalf("bound file: %+v", f)
	}
	back, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Workspace != wsA || back.Relay != "ws://127.0.0.1:7777" || back.Name != "site" || back.Transport != TransportRelay {
		t.Fatalf("re-read: %+v", back)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !strings.Contains(string(raw), `"editor": {"tabs":2}`) || !strings.Contains(string(raw), `"z": [1,2]`) {
		t.Fatalf("unknown fields lost:\n%s", raw)
	}
	// Binding again to the same workspace changes nothing; another is refused and leaves the file as it was.
	if _, err := Bind(dir, wsA, "ws://127.0.0.1:7777"); err != nil {
		t.Fatal(err)
	}
	if _, err := Bind(dir, wsB, "ws://127.0.0.1:7777"); code(err) != CodeBoundElsewhere {
		t.Fatalf("rebinding elsewhere: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, FileName))
	if string(after) != string(raw) {
		t.Fatalf("refused bind changed the file")
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".weald.tmp-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}

func TestBindCreatesFileInUnboundFolder(t *testing.T) {
	dir := t.TempDir()
	f, err := Bind(dir, wsA, "wss://relay.example.test")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != filepath.Base(dir) || f.Transport != TransportRelay {
		t.Fatalf("%+v", f)
	}
	if _, err := Read(t.TempDir()); code(err) != CodeNotFound {
		t.Fatalf("missing file: %v", err)
	}
}

func next(t *testing.T, w *Watcher) Event {
	t.Helper()
	select {
	case ev := <-w.Events():
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no watcher event within 5 s")
		return Event{}
	}
}

func TestWatcherSeesAppearChangeAtomicSaveInvalidAndRemove(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWatcher(30 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Add(dir); code(err) != CodeNotFound {
		t.Fatalf("Add on a folder without .weald: %v", err)
	}
	path := filepath.Join(dir, FileName)

	os.WriteFile(path, []byte(`{"name":"one"}`), 0o644)
	if ev := next(t, w); ev.File == nil || ev.File.Name != "one" {
		t.Fatalf("appear: %+v", ev)
	}
	// An editor's atomic save: write elsewhere, rename over.
	tmp := filepath.Join(dir, "x.swp")
	os.WriteFile(tmp, []byte(`{"name":"two","workspace":"`+wsA+`"}`), 0o644)
	os.Rename(tmp, path)
	if ev := next(t, w); ev.File == nil || ev.File.Name != "two" || ev.File.Workspace != wsA {
		t.Fatalf("atomic save: %+v", ev)
	}
	os.WriteFile(path, []byte(`{"name":`), 0o644)
	if ev := next(t, w); code(ev.Err) != CodeInvalid || ev.File != nil {
		t.Fatalf("invalid: %+v", ev)
	}
	if _, err := Bind(dir, wsA, "ws://127.0.0.1:1"); code(err) != CodeInvalid {
		t.Fatalf("bind over an invalid file must refuse, got %v", err)
	}
	os.Remove(path)
	if ev := next(t, w); !ev.Removed {
		t.Fatalf("remove: %+v", ev)
	}
	// Our own Bind is seen like any other change.
	if _, err := Bind(dir, wsB, "ws://127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, w); ev.File == nil || ev.File.Workspace != wsB || ev.File.Transport != TransportRelay {
		t.Fatalf("bind: %+v", ev)
	}
	// Unrelated files in the folder are not reported.
	os.WriteFile(filepath.Join(dir, "README"), []byte("hi"), 0o644)
	select {
	case ev := <-w.Events():
		t.Fatalf("unrelated change reported: %+v", ev)
	case <-time.After(200 * time.Millisecond):
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"name":"x","transport":"relay","workspace":"` + wsA + `","relay":"ws://a"}`))
	f.Add([]byte(`{"extra":{"deep":[1,{"a":null}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse("f", b)
		if err != nil {
			if code(err) == "" {
				t.Fatalf("error without a code: %v", err)
			}
			return
		}
		out, err := file.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse("f", out)
		if err != nil {
			t.Fatalf("re-parse of own output failed: %v\n%s", err, out)
		}
		if again.Name != file.Name || again.Workspace != file.Workspace || again.Transport != file.Transport || len(again.extra) != len(file.extra) {
			t.Fatalf("round trip changed the file")
		}
	})
}
