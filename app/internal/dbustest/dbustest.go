// Package dbustest starts a D-Bus daemon of a test's own, for the tests of
// the app's session-bus parts (notifications, the single-instance hand-over).
package dbustest

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// PrivateBus starts a dbus-daemon of its own and returns its address; it
// stops with the test.
func PrivateBus(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, "dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("dbus-daemon (the dbus package) is needed for this test: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}
