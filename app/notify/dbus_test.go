package notify

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// server is a freedesktop notification service for tests: it owns
// org.freedesktop.Notifications on a private bus and records what it is asked.
type server struct {
	mu   sync.Mutex
	got  []Notification
	apps []string
	ids  []uint32
}

func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, Notification{Title: summary, Body: body})
	s.apps = append(s.apps, app)
	s.ids = append(s.ids, replaces)
	return uint32(len(s.got)), nil
}

// privateBus starts a dbus-daemon of its own and returns its address.
func privateBus(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, "dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
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

// The D-Bus half runs for real: a dbus-daemon, a notification service on
// it, and DBus.Notify calling it as it would the desktop's.
func TestNotifyOverDBus(t *testing.T) {
	addr := privateBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &server{}
	if err := conn.Export(srv, Path, Service); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(Service, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", reply, err)
	}
	d := &DBus{Address: addr}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, n := range []Notification{{Title: "Dana mentioned you in #general", Body: "@Sam can you look?"}, {Title: "Dana", Body: "second"}} {
		if err := d.Notify(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.got) != 2 || srv.got[0].Title != "Dana mentioned you in #general" || srv.got[0].Body != "@Sam can you look?" || srv.apps[0] != "Weald" {
		t.Fatalf("the service got %+v from %v", srv.got, srv.apps)
	}
	if srv.ids[0] != 0 || srv.ids[1] != 1 {
		t.Fatalf("the second notification does not replace the first: replaces ids %v", srv.ids)
	}
}

// Without a service on the bus, Notify says so and does not hang.
func TestNotifyWithoutService(t *testing.T) {
	d := &DBus{Address: privateBus(t)}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := d.Notify(ctx, Notification{Title: "x", Body: "y"}); err == nil {
		t.Fatal("a notification with no service on the bus reported success")
	}
}
