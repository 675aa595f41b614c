package notify

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"weald/app/internal/dbustest"
)

// server is a freedesktop notification service for tests: it owns
// org.freedesktop.Notifications on a private bus and records what it is asked.
type server struct {
	mu      sync.Mutex
	got     []Notification
	apps    []string
	ids     []uint32
	actions [][]string
}

func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, Notification{Title: summary, Body: body})
	s.apps = append(s.apps, app)
	s.ids = append(s.ids, replaces)
	s.actions = append(s.actions, actions)
	return uint32(len(s.got)), nil
}

// serve starts a test notification service on a private bus and returns
// the bus address, the service and its connection.
func serve(t *testing.T) (string, *server, *dbus.Conn) {
	t.Helper()
	addr := dbustest.PrivateBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	srv := &server{}
	if err := conn.Export(srv, Path, Service); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(Service, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("request name: %v %v", reply, err)
	}
	return addr, srv, conn
}

// The D-Bus half runs for real: a dbus-daemon, a notification service on
// it, and DBus.Notify calling it as it would the desktop's.
func TestNotifyOverDBus(t *testing.T) {
	addr, srv, _ := serve(t)
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
	d := &DBus{Address: dbustest.PrivateBus(t)}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := d.Notify(ctx, Notification{Title: "x", Body: "y"}); err == nil {
		t.Fatal("a notification with no service on the bus reported success")
	}
}

// A click on a notification (the service's ActionInvoked signal with the
// action "default") hands its workspace and channel to OnOpen. Signals the
// service did not send — another program on the bus forging one — and
// other actions, unknown ids or closed notifications open nothing.
func TestClickOpensTheNotificationsChannel(t *testing.T) {
	addr, srv, conn := serve(t)
	opened := make(chan Notification, 8)
	d := &DBus{Address: addr, OnOpen: func(n Notification) { opened <- n }}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Two notifications; the test service numbers them 1 and 2.
	first := Notification{Title: "Dana mentioned you in #design", Body: "@Sam look", Workspace: "ab12", Channel: "cd34"}
	second := Notification{Title: "Lee", Body: "hi", Workspace: "ab12", Channel: "dm77"}
	for _, n := range []Notification{first, second} {
		if err := d.Notify(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	actions := srv.actions[0]
	srv.mu.Unlock()
	if len(actions) != 2 || actions[0] != "default" {
		t.Fatalf("the notification offers the actions %q, not the default one", actions)
	}
	emit := func(c *dbus.Conn, name string, body ...any) {
		t.Helper()
		if err := c.Emit(Path, name, body...); err != nil {
			t.Fatal(err)
		}
		// A round trip through the bus: the signal is dispatched before anything sent after it.
		if err := c.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
			t.Fatal(err)
		}
	}
	// wantOpen: the next open is want, so nothing sent before the click that caused it opened anything.
	wantOpen := func(want Notification, what string) {
		t.Helper()
		select {
		case got := <-opened:
			if got != want {
				t.Fatalf("%s: opened %+v first, want %+v", what, got, want)
			}
		case <-ctx.Done():
			t.Fatalf("%s: the click opened nothing within 20 s", what)
		}
	}

	// Another program on the session bus forges a click on the first; the
	// service sends another action, an unknown id, then a click on the second.
	other, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	emit(other, ActionInvoked, uint32(1), "default")
	emit(conn, ActionInvoked, uint32(1), "reply")
	emit(conn, ActionInvoked, uint32(9), "default")
	emit(conn, ActionInvoked, uint32(2), "default")
	wantOpen(second, "a forged signal, another action or id")

	// The service's click on the first opens it.
	emit(conn, ActionInvoked, uint32(1), "default")
	wantOpen(first, "the click on the first")

	// Once the service has closed the first, a click on its id opens nothing.
	emit(conn, NotificationClosed, uint32(1), uint32(2))
	emit(conn, ActionInvoked, uint32(1), "default")
	emit(conn, ActionInvoked, uint32(2), "default")
	wantOpen(second, "a click on a closed notification")
}
