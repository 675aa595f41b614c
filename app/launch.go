package app

import (
	"context"
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

// OpenLink records a link for the join screen (or the pairing screen, for
// weald://pair); the host calls it before the window starts.
func (a *App) OpenLink(link string) {
	if link == "" {
		return
	}
	a.launch.mu.Lock()
	a.launch.link = link
	a.launch.mu.Unlock()
	a.logger.Printf("opened with an invite link")
}

// Reopened takes a later launch that the host handed to this running app
// (package app/instance: the desktop entry opened a weald:// link while
// Weald was open): its link, if any, is recorded as OpenLink does and the
// frontend is told (EventLaunchLink) to take it. ctx is the host's. A
// function, not a method, so that it is not bound to the frontend.
func Reopened(ctx context.Context, a *App, args []string) {
	link := LinkArg(args)
	if link == "" {
		a.logger.Printf("opened again: the running window is raised")
		return
	}
	a.launch.mu.Lock()
	a.launch.link = link
	a.launch.mu.Unlock()
	a.logger.Printf("opened again with an invite link: handed to the running window")
	a.emit(ctx, EventLaunchLink)
}

// TakeLaunchLink returns the weald:// link the app was opened with, once;
// "" when there is none (or it was taken).
func (a *App) TakeLaunchLink() string {
	a.launch.mu.Lock()
	defer a.launch.mu.Unlock()
	l := a.launch.link
	a.launch.link = ""
	switch {
	case len(l) >= len("weald://pair") && strings.EqualFold(l[:len("weald://pair")], "weald://pair"):
		a.logger.Printf("pairing link handed to the pairing screen")
	case l != "":
		a.logger.Printf("invite link handed to the join screen")
	}
	return l
}
