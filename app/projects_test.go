package app_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"weald/app"
)

const wsA = "aa00000000000000000000000000000000000000000000000000000000000001"
const wsB = "bb00000000000000000000000000000000000000000000000000000000000002"

// recorder is an app.Emitter that keeps what it was given.
type recorder struct {
	events chan app.Project
}

func newRecorder() *recorder { return &recorder{events: make(chan app.Project, 64)} }

func (r *recorder) Emit(_ context.Context, name string, data ...any) {
	if name != app.EventProjectChanged || len(data) != 1 {
		return
	}
	r.events <- data[0].(app.Project)
}

// next waits (bounded) for the next change of folder.
func (r *recorder) next(t *testing.T, folder string) app.Project {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case p := <-r.events:
			if p.Folder == folder {
				return p
			}
		case <-deadline:
			t.Fatalf("no project:changed for %s within 5 s", folder)
		}
	}
}

func code(err error) string {
	var e *app.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return ""
}

func started(t *testing.T, dataDir string) (*app.Projects, *recorder) {
	p, _, rec := startedAll(t, dataDir)
	return p, rec
}

func startedAll(t *testing.T, dataDir string) (*app.Projects, *app.Workspaces, *recorder) {
	t.Helper()
	rec := newRecorder()
	a := app.New(dataDir, io.Discard, rec)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	svc := app.Services(a)
	return svc[1].(*app.Projects), svc[2].(*app.Workspaces), rec
}

// localWorkspace creates a real workspace whose relay does not answer: it is
// stored on this device (its setup waits for the relay), which is all that
// binding a project needs.
func localWorkspace(t *testing.T, w *app.Workspaces, name string) string {
	t.Helper()
	c, err := w.Create(name, "Ada", "ws://127.0.0.1:1")
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if c.Workspace.Ready || c.Workspace.Name != name {
		t.Fatalf("created: %+v", c.Workspace)
	}
	return c.Workspace.ID
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProjectsWatchLiveAndRemember(t *testing.T) {
	t.Parallel()
	data, folder := t.TempDir(), t.TempDir()
	p, rec := started(t, data)

	pr, err := p.Add(folder)
	if err != nil || pr.State != app.ProjectNone || pr.Name != filepath.Base(folder) {
		t.Fatalf("Add of a folder without .weald: %+v %v", pr, err)
	}
	rec.next(t, folder) // Add itself is announced
	weald := filepath.Join(folder, ".weald")

	write(t, weald, `{"name":"site"}`)
	if got := rec.next(t, folder); got.State != app.ProjectLocal || got.Name != "site" {
		t.Fatalf("appear: %+v", got)
	}
	// An editor's atomic save (temporary file renamed over) naming a workspace we are not in.
	write(t, filepath.Join(folder, "tmp~"), `{"name":"site","transport":"relay","workspace":"`+wsB+`","relay":"ws://127.0.0.1:9"}`)
	if err := os.Rename(filepath.Join(folder, "tmp~"), weald); err != nil {
		t.Fatal(err)
	}
	if got := rec.next(t, folder); got.State != app.ProjectBound || got.Workspace != wsB || got.Member {
		t.Fatalf("atomic save: %+v", got)
	}
	write(t, weald, `{"name":`)
	if got := rec.next(t, folder); got.State != app.ProjectInvalid || got.Problem == nil || got.Problem.Code != "project/invalid" {
		t.Fatalf("invalid: %+v", got)
	}
	os.Remove(weald)
	if got := rec.next(t, folder); got.State != app.ProjectNone {
		t.Fatalf("removed: %+v", got)
	}

	// A second start on the same data directory knows the folder.
	write(t, weald, `{"name":"again"}`)
	rec.next(t, folder)
	p2, _ := started(t, data)
	list, err := p2.List()
	if err != nil || len(list) != 1 || list[0].Folder != folder || list[0].Name != "again" {
		t.Fatalf("after restart: %+v %v", list, err)
	}
	if err := p2.Forget(folder); err != nil {
		t.Fatal(err)
	}
	if list, _ := p2.List(); len(list) != 0 {
		t.Fatalf("after Forget: %+v", list)
	}
	if _, err := os.Stat(weald); err != nil {
		t.Fatalf("Forget must leave the .weald file: %v", err)
	}
	if code(p2.Forget(folder)) != "projects/unknown_folder" {
		t.Fatal("forgetting twice must say the folder is unknown")
	}
}

func TestProjectsBindOnlyToYourWorkspace(t *testing.T) {
	t.Parallel()
	data, folder := t.TempDir(), t.TempDir()
	p, w, rec := startedAll(t, data)
	weald := filepath.Join(folder, ".weald")
	write(t, weald, `{"name":"site","editor":{"tabs":2}}`)
	if _, err := p.Add(folder); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(weald)

	if _, err := p.Bind(folder, wsA, "ws://127.0.0.1:7777"); code(err) != "projects/not_member" {
		t.Fatalf("bind to a workspace we are not in: %v", err)
	}
	if _, err := p.Bind(folder, "nope", "ws://127.0.0.1:7777"); code(err) != "projects/bad_workspace" {
		t.Fatalf("bad id: %v", err)
	}
	if _, err := p.Bind(t.TempDir(), wsA, "ws://127.0.0.1:7777"); code(err) != "projects/unknown_folder" {
		t.Fatalf("unknown folder: %v", err)
	}
	wsA := localWorkspace(t, w, "Acme")
	if _, err := p.Bind(folder, wsA, "ftp://127.0.0.1:7777"); code(err) != "projects/bad_relay" {
		t.Fatalf("bad relay: %v", err)
	}
	if after, _ := os.ReadFile(weald); string(after) != string(before) {
		t.Fatal("a refused bind changed the file")
	}

	pr, err := p.Bind(folder, strings.ToUpper(wsA), "127.0.0.1:7777")
	if err != nil || pr.State != app.ProjectBound || pr.Workspace != wsA || !pr.Member || pr.Relay != "ws://127.0.0.1:7777/v1/ws" {
		t.Fatalf("bind: %+v %v", pr, err)
	}
	raw, _ := os.ReadFile(weald)
	if !strings.Contains(string(raw), `"transport": "relay"`) || !strings.Contains(string(raw), `"editor": {"tabs":2}`) {
		t.Fatalf("bound file:\n%s", raw)
	}
	// The watcher reports our own write too, as bound.
	for {
		if got := rec.next(t, folder); got.State == app.ProjectBound {
			break
		}
	}
	wsB := localWorkspace(t, w, "Beta")
	if _, err := p.Bind(folder, wsB, "ws://127.0.0.1:7777"); code(err) != "project/bound_elsewhere" {
		t.Fatalf("rebinding elsewhere: %v", err)
	}
	if after, _ := os.ReadFile(weald); string(after) != string(raw) {
		t.Fatal("a refused rebind changed the file")
	}
}

func TestProjectsAddRefusesWhatIsNotAFolder(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	p, _ := started(t, data)
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, "x")
	cases := map[string]string{
		"":                      "projects/bad_folder",
		"relative/path":         "projects/bad_folder",
		"/no/such/folder/here1": "projects/no_folder",
		file:                    "projects/not_a_folder",
	}
	for in, want := range cases {
		if _, err := p.Add(in); code(err) != want {
			t.Errorf("Add(%q) = %v, want %s", in, err, want)
		}
	}
	if list, err := p.List(); err != nil || len(list) != 0 {
		t.Fatalf("refused adds left %+v %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(data, "projects.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("refused adds wrote the list: %v", err)
	}
}

func TestProjectsUnreadableListIsReportedAndKept(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	list := filepath.Join(data, "projects.json")
	for _, bad := range []string{`{`, `{"version":2,"folders":[]}`, `{"version":1,"folders":["rel"]}`, `{"version":1,"folders":["/a","/a"]}`} {
		write(t, list, bad)
		p, _ := started(t, data)
		if _, err := p.List(); code(err) != "projects/unreadable" {
			t.Fatalf("%s: List = %v", bad, err)
		}
		if _, err := p.Add(t.TempDir()); code(err) != "projects/unreadable" {
			t.Fatalf("%s: Add = %v", bad, err)
		}
		if b, _ := os.ReadFile(list); string(b) != bad {
			t.Fatalf("%s: the file was overwritten with %s", bad, b)
		}
	}
}

func TestProjectsBeforeStartup(t *testing.T) {
	t.Parallel()
	a := app.New(t.TempDir(), io.Discard, nil)
	p := app.Services(a)[1].(*app.Projects)
	if _, err := p.List(); code(err) != "app/not_started" {
		t.Fatalf("List before Startup: %v", err)
	}
}
