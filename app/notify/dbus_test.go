package notify

import (
	"context"
	"strings"
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
	hints   []map[string]dbus.Variant
}

func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, Notification{Title: summary, Body: body})
	s.apps = append(s.apps, app)
	s.ids = append(s.ids, replaces)
	s.actions = append(s.actions, actions)
	s.hints = append(s.hints, hints)
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

// A security alert is critical and never replaced by a message's
// notification (nor one by it): a burst of chat cannot hide it.
func TestSecurityAlertIsNotReplacedByMessages(t *testing.T) {
	addr, srv, _ := serve(t)
	d := &DBus{Address: addr, OnOpen: func(Notification) {}}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, n := range []Notification{
		{Title: "Dana", Body: "first", Workspace: "ws", Channel: "c"},
		{Title: "Security alert in Acme", Body: "Sam made Lee a member.", Workspace: "ws", Kind: KindSecurity},
		{Title: "Dana", Body: "second", Workspace: "ws", Channel: "c"},
		{Title: "Security alert in Acme", Body: "Sam revoked Lee's laptop.", Workspace: "ws", Kind: KindSecurity},
	} {
		if err := d.Notify(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	// The service numbered them 1..4: messages replace 1, alerts 2.
	if want := []uint32{0, 0, 1, 2}; len(srv.ids) != 4 || srv.ids[0] != want[0] || srv.ids[1] != want[1] || srv.ids[2] != want[2] || srv.ids[3] != want[3] {
		t.Fatalf("replaces ids %v, want %v", srv.ids, want)
	}
	if u, ok := srv.hints[1]["urgency"].Value().(byte); !ok || u != 2 || srv.hints[1]["category"].Value() != "x-weald.security" {
		t.Fatalf("the alert's hints %v", srv.hints[1])
	}
	if len(srv.actions[1]) == 0 {
		t.Fatal("a security alert offers no click action (it opens the Security view)")
	}
	if srv.hints[0]["category"].Value() != "im.received" {
		t.Fatalf("a message's hints %v", srv.hints[0])
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

// clickBus is a notification service on a private bus with a DBus that
// showed the given notifications (the service numbers them 1, 2, …) and
// reports each it opens on opened; other is another program on the bus.
type clickBus struct {
	t      *testing.T
	ctx    context.Context
	srv    *server
	conn   *dbus.Conn
	other  *dbus.Conn
	opened chan Notification
}

func newClickBus(t *testing.T, shown ...Notification) *clickBus {
	t.Helper()
	addr, srv, conn := serve(t)
	c := &clickBus{t: t, srv: srv, conn: conn, opened: make(chan Notification, 8)}
	d := &DBus{Address: addr, OnOpen: func(n Notification) { c.opened <- n }}
	t.Cleanup(func() { d.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c.ctx = ctx
	for _, n := range shown {
		if err := d.Notify(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	other, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	c.other = other
	return c
}

// emit sends a signal of the service's interface from conn and waits for the bus to dispatch it.
func (c *clickBus) emit(conn *dbus.Conn, name string, body ...any) {
	c.t.Helper()
	if err := conn.Emit(Path, name, body...); err != nil {
		c.t.Fatal(err)
	}
	// A round trip through the bus: the signal is dispatched before anything sent after it.
	if err := conn.BusObject().CallWithContext(c.ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		c.t.Fatal(err)
	}
}

// wantOpen: the next notification opened is want, so nothing sent before the click that caused it opened anything.
func (c *clickBus) wantOpen(want Notification, what string) {
	c.t.Helper()
	select {
	case got := <-c.opened:
		if got != want {
			c.t.Fatalf("%s: opened %+v first, want %+v", what, got, want)
		}
	case <-c.ctx.Done():
		c.t.Fatalf("%s: the click opened nothing within 20 s", what)
	}
}

// A click on a notification (the service's ActionInvoked signal with the
// action "default") hands its workspace and channel to OnOpen. Signals the
// service did not send — another program on the bus forging one — and
// other actions, unknown ids or closed notifications open nothing.
func TestClickOpensTheNotificationsChannel(t *testing.T) {
	first := Notification{Title: "Dana mentioned you in #design", Body: "@Sam look", Workspace: "ab12", Channel: "cd34"}
	second := Notification{Title: "Lee", Body: "hi", Workspace: "ab12", Channel: "dm77"}
	c := newClickBus(t, first, second)
	c.srv.mu.Lock()
	actions := c.srv.actions[0]
	c.srv.mu.Unlock()
	if len(actions) != 2 || actions[0] != "default" {
		t.Fatalf("the notification offers the actions %q, not the default one", actions)
	}

	// Another program on the session bus forges a click on the first; the
	// service sends another action, an unknown id, then a click on the second.
	c.emit(c.other, ActionInvoked, uint32(1), "default")
	c.emit(c.conn, ActionInvoked, uint32(1), "reply")
	c.emit(c.conn, ActionInvoked, uint32(9), "default")
	c.emit(c.conn, ActionInvoked, uint32(2), "default")
	c.wantOpen(second, "a forged signal, another action or id")

	// The service's click on the first opens it.
	c.emit(c.conn, ActionInvoked, uint32(1), "default")
	c.wantOpen(first, "the click on the first")

	// Once the service has closed the first, a click on its id opens nothing.
	c.emit(c.conn, NotificationClosed, uint32(1), uint32(2))
	c.emit(c.conn, ActionInvoked, uint32(1), "default")
	c.emit(c.conn, ActionInvoked, uint32(2), "default")
	c.wantOpen(second, "a click on a closed notification")
}

// The service's ActivationToken signal, sent just before the click's
// ActionInvoked, rides with the notification handed to OnOpen, once: the host
// gives it to the toolkit to raise the window (Wayland's xdg-activation).
// A token forged by another program, one that is not printable ASCII, or one
// already used is not handed on.
func TestClickCarriesItsActivationToken(t *testing.T) {
	first := Notification{Title: "Dana", Body: "hi", Workspace: "ab12", Channel: "cd34"}
	second := Notification{Title: "Lee", Body: "yo", Workspace: "ab12", Channel: "dm77"}
	c := newClickBus(t, first, second)
	click := func(id uint32, want Notification, token, what string) {
		t.Helper()
		c.emit(c.conn, ActionInvoked, id, "default")
		want.ActivationToken = token
		c.wantOpen(want, what)
	}
	c.emit(c.other, ActivationToken, uint32(1), "forged-token")
	click(1, first, "", "a token from another program")
	c.emit(c.conn, ActivationToken, uint32(1), "mutter-7f3a_TIME42")
	click(1, first, "mutter-7f3a_TIME42", "the service's token")
	click(1, first, "", "a token already used")
	c.emit(c.conn, ActivationToken, uint32(2), "two words")
	c.emit(c.conn, ActivationToken, uint32(2), strings.Repeat("x", maxToken+1))
	click(2, second, "", "a token with a space, or too long")
}
