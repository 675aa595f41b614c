package project

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Event reports that a watched folder's `.weald` file appeared, changed,
// became invalid or went away.
type Event struct {
	Folder  string
	File    *File // the new content; nil when Removed or Err is set
	Err     error // the file exists but cannot be used (an *Error)
	Removed bool
}

// Watcher watches the `.weald` files of a set of folders. It watches each
// folder rather than the file, because editors save by writing a temporary
// file and renaming it over the old one, which a watch on the file would lose.
type Watcher struct {
	fsw    *fsnotify.Watcher
	events chan Event
	settle time.Duration

	mu      sync.Mutex
	folders map[string]*watched
	closed  bool
	done    chan struct{}
}

type watched struct {
	last    []byte // raw bytes last reported; nil for "no file"
	present bool
	timer   *time.Timer
}

// NewWatcher starts a watcher. Changes within settle of each other (an
// editor's write-then-rename) are reported once, after the last.
func NewWatcher(settle time.Duration) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{fsw: fsw, events: make(chan Event, 64), settle: settle, folders: map[string]*watched{}, done: make(chan struct{})}
	go w.loop()
	return w, nil
}

// Events delivers the changes. It is closed by Close.
func (w *Watcher) Events() <-chan Event { return w.events }

// Add starts watching folder and returns its current `.weald` file, or nil
// with an *Error of CodeNotFound when it has none yet (it is then reported
// when it appears).
func (w *Watcher) Add(folder string) (*File, error) {
	folder, err := filepath.Abs(folder)
	if err != nil {
		return nil, err
	}
	raw, rerr := os.ReadFile(filepath.Join(folder, FileName))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("project: watcher is closed")
	}
	if _, ok := w.folders[folder]; !ok {
		if err := w.fsw.Add(folder); err != nil {
			return nil, err
		}
		w.folders[folder] = &watched{}
	}
	st := w.folders[folder]
	st.present = rerr == nil
	st.last = raw
	if rerr != nil {
		return Read(folder)
	}
	return Parse(filepath.Join(folder, FileName), raw)
}

// Remove stops watching folder.
func (w *Watcher) Remove(folder string) error {
	folder, _ = filepath.Abs(folder)
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.folders[folder]
	if !ok {
		return nil
	}
	if st.timer != nil {
		st.timer.Stop()
	}
	delete(w.folders, folder)
	return w.fsw.Remove(folder)
}

// Close stops the watcher and closes Events.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	for _, st := range w.folders {
		if st.timer != nil {
			st.timer.Stop()
		}
	}
	w.mu.Unlock()
	err := w.fsw.Close()
	<-w.done
	w.mu.Lock()
	close(w.events)
	w.mu.Unlock()
	return err
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if filepath.Base(ev.Name) != FileName {
				continue
			}
			w.schedule(filepath.Dir(ev.Name))
		case _, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: re-read every folder to catch up.
			w.mu.Lock()
			folders := make([]string, 0, len(w.folders))
			for f := range w.folders {
				folders = append(folders, f)
			}
			w.mu.Unlock()
			for _, f := range folders {
				w.schedule(f)
			}
		}
	}
}

func (w *Watcher) schedule(folder string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.folders[folder]
	if !ok || w.closed {
		return
	}
	if st.timer != nil {
		st.timer.Stop()
	}
	st.timer = time.AfterFunc(w.settle, func() { w.check(folder) })
}

// check re-reads folder's file and reports it if it differs from the last report.
func (w *Watcher) check(folder string) {
	path := filepath.Join(folder, FileName)
	raw, err := os.ReadFile(path)
	present := err == nil
	w.mu.Lock()
	defer w.mu.Unlock()
	st, ok := w.folders[folder]
	if !ok || w.closed {
		return
	}
	if present == st.present && bytes.Equal(raw, st.last) {
		return
	}
	ev := Event{Folder: folder}
	switch {
	case !present:
		ev.Removed = true
	default:
		ev.File, ev.Err = Parse(path, raw)
	}
	select {
	case w.events <- ev:
		st.present, st.last = present, raw
	default:
		// The reader is behind: try again shortly rather than block the
		// watcher or lose the change.
		st.timer = time.AfterFunc(w.settle, func() { w.check(folder) })
	}
}
