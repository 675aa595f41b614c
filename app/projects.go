package app

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"weald/backend/project"
	"weald/backend/relayclient"
)

// Project is what the frontend knows of one project folder on this machine.
type Project struct {
	Folder string `json:"folder"`
	// State is "none" (no .weald file yet), "local" (not bound), "bound"
	// (bound to a workspace on a relay) or "invalid" (the file cannot be used;
	// Problem says why).
	State     ProjectState `json:"state" ts_type:"'none' | 'local' | 'bound' | 'invalid'"`
	Name      string       `json:"name"`
	Workspace string       `json:"workspace"`
	Relay     string       `json:"relay"`
	// Member is true when Workspace names a workspace this device is in.
	// A bound project whose workspace is not one of yours is offered for
	// joining (design/gaps.md "Onboarding and projects").
	Member  bool   `json:"member"`
	Problem *Error `json:"problem"`
}

// watchSettle is how long the watcher waits after the last change of a file
// before reporting it (an editor's write-then-rename is one change).
const watchSettle = 60 * time.Millisecond

// Projects is the bound service for project folders: it remembers the folders
// this device knows (persisted in the data directory), binds one to a
// workspace (project.Bind) and watches their `.weald` files, pushing every
// change to the frontend as EventProjectChanged.
type Projects struct {
	app *App

	mu      sync.Mutex
	loaded  bool
	loadErr *Error
	known   *knownFolders
	state   map[string]Project
	watcher *project.Watcher
	ctx     context.Context
	stopped chan struct{}
}

func newProjects(a *App) *Projects {
	return &Projects{app: a, state: map[string]Project{}}
}

// start loads the known folders and starts watching them. Called once from
// App.Startup; events go to emit with ctx.
func (p *Projects) start(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loaded {
		return
	}
	p.loaded = true
	p.ctx = ctx
	known, err := p.app.loadKnownFolders()
	if err != nil {
		p.loadErr = err
		p.app.logger.Printf("projects: %s", err.Message)
		known = &knownFolders{app: p.app}
	}
	p.known = known
	w, werr := project.NewWatcher(watchSettle)
	if werr != nil {
		p.loadErr = &Error{Code: "projects/watch_failed", Message: fmt.Sprintf("Weald cannot watch project folders (%v); restart it to try again.", werr)}
		p.app.logger.Printf("projects: %s", p.loadErr.Message)
		return
	}
	p.watcher = w
	p.stopped = make(chan struct{})
	for _, f := range known.Folders {
		file, err := w.Add(f)
		p.state[f] = p.describe(f, file, err)
	}
	go p.forward(w, p.stopped)
}

// stop closes the watcher (App.Shutdown).
func (p *Projects) stop() {
	p.mu.Lock()
	w, done := p.watcher, p.stopped
	p.watcher = nil
	p.mu.Unlock()
	if w != nil {
		w.Close()
		<-done
	}
}

func (p *Projects) forward(w *project.Watcher, done chan struct{}) {
	defer close(done)
	for ev := range w.Events() {
		p.mu.Lock()
		if _, known := p.state[ev.Folder]; !known {
			p.mu.Unlock()
			continue
		}
		var pr Project
		switch {
		case ev.Removed:
			pr = p.describe(ev.Folder, nil, &project.Error{Code: project.CodeNotFound})
		case ev.Err != nil:
			pr = p.describe(ev.Folder, nil, ev.Err)
		default:
			pr = p.describe(ev.Folder, ev.File, nil)
		}
		p.state[ev.Folder] = pr
		ctx := p.ctx
		p.mu.Unlock()
		p.app.emit(ctx, EventProjectChanged, pr)
	}
}

// describe turns what project.Read or Watcher.Add returned into a Project.
func (p *Projects) describe(folder string, f *project.File, err error) Project {
	pr := Project{Folder: folder, Name: filepath.Base(folder)}
	var pe *project.Error
	switch {
	case err != nil && errors.As(err, &pe) && pe.Code == project.CodeNotFound:
		pr.State = ProjectNone
	case err != nil && errors.As(err, &pe):
		pr.State = ProjectInvalid
		pr.Problem = &Error{Code: pe.Code, Message: sentence(pe.Msg)}
	case err != nil:
		pr.State = ProjectInvalid
		pr.Problem = &Error{Code: "projects/unreadable", Message: fmt.Sprintf("The .weald file cannot be read (%v); check the folder's permissions.", err)}
	default:
		if f.Name != "" {
			pr.Name = f.Name
		}
		pr.Workspace, pr.Relay = f.Workspace, f.Relay
		pr.State = ProjectLocal
		if f.Transport == project.TransportRelay {
			pr.State = ProjectBound
		}
		if f.Workspace != "" {
			pr.Member = p.app.hasWorkspace(f.Workspace)
		}
	}
	return pr
}

// sentence makes one of package project's lower-case messages a sentence.
func sentence(s string) string {
	if s == "" {
		return "The .weald file cannot be used."
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (p *Projects) ready() *Error {
	if !p.loaded {
		return &Error{Code: "app/not_started", Message: "Weald is still starting; try again in a moment."}
	}
	return nil
}

// List returns every known project folder with its current `.weald` state,
// in the order they were added.
func (p *Projects) List() ([]Project, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.ready(); err != nil {
		return nil, err
	}
	if p.loadErr != nil {
		return nil, p.loadErr
	}
	out := make([]Project, 0, len(p.known.Folders))
	for _, f := range p.known.Folders {
		out = append(out, p.state[f])
	}
	return out, nil
}

// Add remembers folder (an absolute path to a directory) as a project folder
// and starts watching it. A folder without a `.weald` file is accepted; the
// file is reported when it appears. Adding a known folder returns it as is.
func (p *Projects) Add(folder string) (Project, error) {
	clean, verr := checkFolder(folder)
	if verr != nil {
		return Project{}, verr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return Project{}, err
	}
	if pr, ok := p.state[clean]; ok {
		return pr, nil
	}
	if len(p.known.Folders) >= maxKnownFolders {
		return Project{}, &Error{Code: "projects/too_many", Message: fmt.Sprintf("Weald watches at most %d project folders; forget one first.", maxKnownFolders)}
	}
	f, err := p.watcher.Add(clean)
	var pe *project.Error
	if err != nil && !errors.As(err, &pe) {
		return Project{}, &Error{Code: "projects/watch_failed", Message: fmt.Sprintf("Weald cannot watch %s (%v); check the folder's permissions.", clean, err)}
	}
	next := append(append([]string(nil), p.known.Folders...), clean)
	if serr := p.known.save(next); serr != nil {
		p.watcher.Remove(clean)
		return Project{}, serr
	}
	pr := p.describe(clean, f, err)
	p.state[clean] = pr
	p.app.emit(p.ctx, EventProjectChanged, pr)
	return pr, nil
}

// Forget stops watching folder and removes it from the known folders. Its
// `.weald` file is left as it is.
func (p *Projects) Forget(folder string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return err
	}
	clean := filepath.Clean(folder)
	if _, ok := p.state[clean]; !ok {
		return &Error{Code: "projects/unknown_folder", Message: fmt.Sprintf("%s is not one of your project folders.", folder)}
	}
	next := make([]string, 0, len(p.known.Folders))
	for _, f := range p.known.Folders {
		if f != clean {
			next = append(next, f)
		}
	}
	if err := p.known.save(next); err != nil {
		return err
	}
	delete(p.state, clean)
	p.watcher.Remove(clean)
	return nil
}

// Bind binds a known project folder to a workspace this device is in, on the
// relay that workspace uses: it writes the `workspace` and `relay` fields of
// the folder's `.weald` (creating the file if there is none) and switches its
// transport from local to relay. It creates no groups (spec/channels.md
// "Default channels"). A project bound to another workspace is refused and
// its file left as it was.
func (p *Projects) Bind(folder, workspaceID, relayURL string) (Project, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.usable(); err != nil {
		return Project{}, err
	}
	clean := filepath.Clean(folder)
	if _, ok := p.state[clean]; !ok {
		return Project{}, &Error{Code: "projects/unknown_folder", Message: fmt.Sprintf("%s is not one of your project folders; add it first.", folder)}
	}
	ws := strings.ToLower(strings.TrimSpace(workspaceID))
	if b, err := hex.DecodeString(ws); err != nil || len(b) != 32 {
		return Project{}, &Error{Code: "projects/bad_workspace", Message: "That is not a workspace id (64 hexadecimal digits)."}
	}
	if !p.app.hasWorkspace(ws) {
		return Project{}, &Error{Code: "projects/not_member", Message: "You are not in that workspace; join it with an invite first."}
	}
	relay, rerr := relayclient.NormalizeAddress(relayURL)
	if rerr != nil {
		return Project{}, &Error{Code: "projects/bad_relay", Message: toError(rerr).Message}
	}
	f, err := project.Bind(clean, ws, relay)
	if err != nil {
		var pe *project.Error
		if errors.As(err, &pe) {
			return Project{}, &Error{Code: pe.Code, Message: sentence(pe.Msg)}
		}
		return Project{}, &Error{Code: "projects/write_failed", Message: fmt.Sprintf("The .weald file could not be written (%v); check the folder's permissions.", err)}
	}
	pr := p.describe(clean, f, nil)
	p.state[clean] = pr
	return pr, nil
}

func (p *Projects) usable() *Error {
	if err := p.ready(); err != nil {
		return err
	}
	if p.loadErr != nil {
		return p.loadErr
	}
	if p.watcher == nil {
		return &Error{Code: "app/stopped", Message: "Weald is shutting down."}
	}
	return nil
}

// checkFolder validates a folder path typed or chosen in the UI.
func checkFolder(folder string) (string, *Error) {
	folder = strings.TrimSpace(folder)
	if folder == "" {
		return "", &Error{Code: "projects/bad_folder", Message: "Type the path of a project folder."}
	}
	if !filepath.IsAbs(folder) {
		return "", &Error{Code: "projects/bad_folder", Message: "Type the full path of the folder, starting with /."}
	}
	clean := filepath.Clean(folder)
	st, err := os.Stat(clean)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", &Error{Code: "projects/no_folder", Message: fmt.Sprintf("There is no folder at %s; check the path.", clean)}
	case err != nil:
		return "", &Error{Code: "projects/no_folder", Message: fmt.Sprintf("%s cannot be read (%v); check its permissions.", clean, err)}
	case !st.IsDir():
		return "", &Error{Code: "projects/not_a_folder", Message: fmt.Sprintf("%s is a file, not a folder; choose the folder that holds the project.", clean)}
	}
	return clean, nil
}
