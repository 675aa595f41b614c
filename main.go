//go:build !e2e

// Command weald-desktop is the desktop app: it embeds the built frontend and
// binds the services of package app into a Wails window. `weald-desktop
// --version` prints the version and commit and exits.
package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"weald/app"
	"weald/app/instance"
	"weald/app/notify"
	"weald/app/raise"
	"weald/backend/version"
)

//go:embed all:frontend/dist
var assets embed.FS

// icon is the window's icon (build/icons.sh renders it from build/appicon.svg).
//
//go:embed build/appicon.png
var icon []byte

// windowEvents is the app.Emitter of the desktop window: the Wails runtime's
// events, with the context Wails passed to OnStartup.
type windowEvents struct{}

func (windowEvents) Emit(ctx context.Context, name string, data ...any) {
	runtime.EventsEmit(ctx, name, data...)
}

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Printf("weald-desktop %s\n", version.Get())
		return
	}
	dir, err := app.DefaultDataDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald: no data directory:", err)
		os.Exit(1)
	}
	// One app per data directory: a launch while Weald is open (the desktop
	// entry opening a weald:// link) hands its arguments to the open window
	// and exits here, before it opens the store or starts a relay.
	single, err := instance.Claim("", dir, os.Args[1:])
	switch {
	case errors.Is(err, instance.ErrHandedOver):
		fmt.Fprintln(os.Stderr, "weald: Weald is already open; handed to its window")
		return
	case err != nil:
		fmt.Fprintln(os.Stderr, "weald: no hand-over to a running Weald:", err)
	default:
		defer single.Close()
	}
	a := app.New(dir, os.Stderr, windowEvents{})
	// Desktop notifications through the freedesktop service on the session
	// bus; a click on one raises the window and opens its channel.
	var window atomic.Pointer[context.Context]
	app.UseNotifier(a, &notify.DBus{OnOpen: func(n notify.Notification) {
		ctx := window.Load()
		if ctx == nil {
			return
		}
		// On Wayland the window may come forward only with the click's
		// activation token; GTK takes it from its display (app/raise).
		raise.WithToken(n.ActivationToken)
		runtime.WindowUnminimise(*ctx)
		runtime.WindowShow(*ctx)
		app.OpenFromNotification(a, n)
	}})
	// Opened through the desktop entry's weald:// handler (Exec=weald-desktop %u):
	// the join screen shows the invite link.
	a.OpenLink(app.LinkArg(os.Args[1:]))
	if single != nil {
		go func() {
			for args := range single.Args() {
				ctx := window.Load()
				if ctx == nil {
					// No window yet: the link waits for the frontend's TakeLaunchLink.
					a.OpenLink(app.LinkArg(args))
					continue
				}
				runtime.WindowUnminimise(*ctx)
				runtime.WindowShow(*ctx)
				app.Reopened(*ctx, a, args)
			}
		}()
	}
	err = wails.Run(&options.App{
		ErrorFormatter:   app.FormatError,
		Title:            "Weald",
		Width:            1200,
		Height:           780,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 247, G: 246, B: 242, A: 1},
		// a.Startup itself, not a closure around it: Wails leaves the
		// method given as OnStartup out of the frontend bindings.
		OnStartup: a.Startup,
		// The window's context, for raising it on a notification click.
		OnDomReady: func(ctx context.Context) { window.Store(&ctx) },
		OnShutdown: a.Shutdown,
		Bind:       app.Services(a),
		Linux:      &linux.Options{Icon: icon, ProgramName: "weald", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "weald:", err)
		os.Exit(1)
	}
}
