package app

import "time"

// SetEngineClock sets the clock of the engines w opens from now on (a test
// posts messages dated days ago with it).
func SetEngineClock(w *Workspaces, clock func() time.Time) { w.app.clock = clock }
