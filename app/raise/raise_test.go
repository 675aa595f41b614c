//go:build linux && cgo

package raise

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The token of a click reaches GTK's display before the window is presented:
// on an X display (Xvfb, from the xvfb package) GDK holds it as the startup
// notification id that gtk_window_present then uses. Wayland takes the same
// path (gdk_wayland_display_set_startup_notification_id) but needs a
// compositor, which the tests do not run.
func TestTokenReachesTheDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an X server")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("Xvfb (the xvfb package) is needed for this test")
	}
	runtime.LockOSThread() // GTK's calls all come from this thread
	defer runtime.UnlockOSThread()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.CommandContext(ctx, "Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "640x480x24")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = x.Wait() })
	w.Close()
	n, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb printed no display number: %v", err)
	}
	t.Setenv("DISPLAY", ":"+strings.TrimSpace(n))
	t.Setenv("GDK_BACKEND", "x11")
	if !gtkInit() {
		t.Fatal("GTK could not open the X display")
	}

	WithToken("")
	WithToken("bad\x00token")
	iterate()
	if got := x11StartupID(); got != "" {
		t.Fatalf("an empty or NUL-holding token was set: %q", got)
	}
	const token = "weald-test-1_TIME4242"
	WithToken(token)
	if got := x11StartupID(); got != "" {
		t.Fatalf("the token was set at once, not on GTK's main loop: %q", got)
	}
	iterate()
	if got := x11StartupID(); got != token {
		t.Fatalf("GDK holds the startup id %q, want %q", got, token)
	}
}
