package app

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"weald/backend/store"
	"weald/backend/version"
)

// App is the bound service for application-wide state.
type App struct {
	dataDir string
	logger  *log.Logger
	events  Emitter

	projects   *Projects
	workspaces *Workspaces

	dbMu  sync.Mutex
	appDB *store.App // nil until first used (appdb.go)

	firstCall sync.Once
	readyMu   sync.Mutex
	readyLog  map[string]bool

	launch launch // the weald:// link opened with (launch.go)

	hosting hosting // the relay this app runs itself (hosting.go)

	// clock is the engines' time source; nil: testClock (the e2e build's),
	// else the real clock. Tests set it (export_test.go).
	clock func() time.Time
}

// New returns the App service rooted at dataDir. Log lines go to logOut;
// events for the frontend go to events (nil drops them).
func New(dataDir string, logOut io.Writer, events Emitter) *App {
	if events == nil {
		events = discard{}
	}
	a := &App{dataDir: dataDir, logger: log.New(logOut, "weald: ", log.LstdFlags), events: events}
	a.projects = newProjects(a)
	a.workspaces = newWorkspaces(a)
	return a
}

// Startup is called by the host (the window or the e2e server) once the
// frontend runtime exists: it loads the known project folders and starts
// watching them. Events are emitted with ctx.
func (a *App) Startup(ctx context.Context) {
	a.logger.Printf("starting, data directory %s", a.dataDir)
	a.startHosting(ctx)
	a.workspaces.start(ctx)
	a.projects.start(ctx)
}

// Shutdown is called by the host when the window closes: it stops the watchers.
func (a *App) Shutdown(ctx context.Context) {
	a.projects.stop()
	a.workspaces.stop()
	a.stopHosting()
	a.closeDB()
}

func (a *App) emit(ctx context.Context, name string, data ...any) {
	if ctx == nil {
		return
	}
	a.events.Emit(ctx, name, data...)
}

// hasWorkspace reports whether this device holds workspace id (hex).
func (a *App) hasWorkspace(id string) bool { return a.workspaces.has(id) }

// Ready is called by the frontend when it shows a channel of a workspace
// with its Send button enabled: the ready state of onboarding (gaps.md
// "Onboarding and projects"). It only logs, once per workspace, so that the
// desktop smoke test can wait for it.
func (a *App) Ready(workspace, channel string) {
	a.readyMu.Lock()
	defer a.readyMu.Unlock()
	if a.readyLog == nil {
		a.readyLog = map[string]bool{}
	}
	if a.readyLog[workspace] || len(workspace) > 64 || len(channel) > 200 {
		return
	}
	a.readyLog[workspace] = true
	a.logger.Printf("frontend ready: #%s of workspace %s shown with Send enabled", channel, workspace)
}

// DataDir reports where this installation keeps its state.
func (a *App) DataDir() string { return a.dataDir }

// Status reports the application state the shell renders: the version, the
// data directory and the workspaces that exist on this machine.
func (a *App) Status() (Status, error) {
	a.firstCall.Do(func() {
		a.logger.Printf("frontend connected: first bound call App.Status")
	})
	ws, err := a.listWorkspaces()
	if err != nil {
		return Status{}, err
	}
	return Status{
		Version:      version.Get().Version,
		Commit:       version.Get().Short(),
		DataDir:      a.dataDir,
		HasWorkspace: len(ws) > 0,
		Workspaces:   ws,
	}, nil
}

// workspacesDir is where each workspace keeps its own folder (one folder a
// workspace, named by its id).
func (a *App) workspacesDir() string { return filepath.Join(a.dataDir, "workspaces") }

func (a *App) listWorkspaces() ([]WorkspaceSummary, error) {
	entries, err := os.ReadDir(a.workspacesDir())
	if os.IsNotExist(err) {
		return []WorkspaceSummary{}, nil
	}
	if err != nil {
		return nil, &Error{Code: "storage/unreadable", Message: fmt.Sprintf("The data directory %s cannot be read: %v.", a.dataDir, err)}
	}
	out := []WorkspaceSummary{}
	for _, e := range entries {
		if e.IsDir() && isWorkspaceID(e.Name()) {
			out = append(out, WorkspaceSummary{ID: e.Name()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// exportDir is where exported files go: the Downloads folder of the
// person's home when it exists, else the data directory's receipts folder.
func (a *App) exportDir() string {
	if home, err := os.UserHomeDir(); err == nil {
		d := filepath.Join(home, "Downloads")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return filepath.Join(a.dataDir, "receipts")
}
