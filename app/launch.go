package app

import (
	"strings"
	"sync"
)

// maxLinkLen bounds a link taken from the command line; invite links are
// a few hundred bytes.
const maxLinkLen = 8 << 10

// launch holds the invite link the app was opened with, until the
// frontend takes it.
type launch struct {
	mu   sync.Mutex
	link string
}

// LinkArg returns the first weald:// link among a program's arguments (the
// desktop entry's %u, so that opening an invite link starts Weald on the
// join screen), or "" when there is none or it is too long. The link is
// not parsed here: the join screen shows it and says what is wrong with it.
func LinkArg(args []string) string {
	for _, a := range args {
		if len(a) > len("weald://") && len(a) <= maxLinkLen && strings.EqualFold(a[:len("weald://")], "weald://") {
			return a
		}
	}
	return ""
}

// OpenLink records a link for the join screen; the host calls it before
// the window starts. (A second launch while the window is open starts a
// second window: there is no single-instance hand-over yet.)
func (a *App) OpenLink(link string) {
	if link == "" {
		return
	}
	a.launch.mu.Lock()
	a.launch.link = link
	a.launch.mu.Unlock()
	a.logger.Printf("opened with an invite link")
}

// TakeLaunchLink returns the weald:// link the app was opened with, once;
// "" when there is none (or it was taken).
func (a *App) TakeLaunchLink() string {
	a.launch.mu.Lock()
	defer a.launch.mu.Unlock()
	l := a.launch.link
	a.launch.link = ""
	if l != "" {
		a.logger.Printf("invite link handed to the join screen")
	}
	return l
}
