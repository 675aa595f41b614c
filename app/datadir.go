package app

import (
	"os"
	"path/filepath"
)

// DefaultDataDir is where the app keeps its state: $WEALD_HOME when set,
// otherwise $XDG_DATA_HOME/weald (~/.local/share/weald).
func DefaultDataDir() (string, error) {
	if d := os.Getenv("WEALD_HOME"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "weald"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "weald"), nil
}

// Services lists every bound service, in the order the window binds them.
func Services(a *App) []any { return []any{a, a.projects, a.workspaces} }

// Lifecycle lists the methods of the bound services that the host calls
// itself and that are therefore not bound (Wails exempts OnStartup and
// OnShutdown; the e2e shim is given these names).
var Lifecycle = []string{"Startup", "Shutdown"}
