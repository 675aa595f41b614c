// Package notify shows desktop notifications (issue 17 item 10): on Linux
// through the freedesktop notification service, org.freedesktop.Notifications
// on the session D-Bus. The app decides what to show (app/notify.go); this
// package only speaks to the OS, so that tests can replace it.
package notify

import (
	"context"
	"errors"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Notification is one desktop notification: a title and a line of text,
// and the channel a click on it opens.
type Notification struct {
	Title string
	Body  string
	// Workspace and Channel (ids) are handed back to DBus.OnOpen when the
	// person clicks the notification; they are not shown.
	Workspace string
	Channel   string
	// Kind is KindSecurity for a security alert (a click opens the
	// workspace's Security view), "" for messages.
	Kind string
	// ActivationToken is what the service sent with the click (its
	// ActivationToken signal, spec 1.2): an xdg-activation token on Wayland,
	// a startup notification id on X11, with which the window may be raised.
	// Empty when the service sent none. Set only on a notification handed to
	// OnOpen.
	ActivationToken string
}

// Notifier shows notifications.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// The freedesktop service's bus name, object path and method
// (Desktop Notifications Specification, "D-BUS Protocol").
const (
	// KindSecurity marks a security alert's notification.
	KindSecurity = "security"

	Service = "org.freedesktop.Notifications"
	Path    = "/org/freedesktop/Notifications"
	method  = Service + ".Notify"
	// Signals of the service: the person chose an action of a notification
	// (a click on its body is the action "default"), or it was closed.
	ActionInvoked      = Service + ".ActionInvoked"
	NotificationClosed = Service + ".NotificationClosed"
	// ActivationToken comes before the ActionInvoked of the same click,
	// with a token for raising the window (spec 1.2, "ActivationToken").
	ActivationToken = Service + ".ActivationToken"
)

// maxToken bounds an activation token kept from the bus; a longer one, or
// one with bytes other than printable ASCII, is not used.
const maxToken = 512

// maxShown bounds the notifications remembered for a click: each replaces
// the last, so more than a few are only those the service never closed.
const maxShown = 32

// ErrNoService is returned when no notification service answers.
var ErrNoService = errors.New("notify: no desktop notification service on the session bus")

// DBus is a Notifier over the session bus (or the bus at Address). It
// connects on first use and again after a failure.
type DBus struct {
	Address string // "" for the session bus of this login
	AppName string
	// OnOpen, when set, is called with the notification the person clicked
	// (the "default" action, sent by the service that owns Service, for a
	// notification this DBus showed), on the goroutine that reads the bus's
	// signals: it must return soon.
	OnOpen func(Notification)

	mu    sync.Mutex
	conn  *dbus.Conn
	last  map[string]uint32       // per Kind, id of the last notification shown, replaced by the next of its kind
	shown map[uint32]Notification // by id, until closed: what a click opens
	token map[uint32]string       // by id: the activation token of a click under way
	owner string                  // the unique bus name of the service, the only sender of its signals
}

func (d *DBus) connect() (*dbus.Conn, error) {
	if d.conn != nil && d.conn.Connected() {
		return d.conn, nil
	}
	var c *dbus.Conn
	var err error
	if d.Address == "" {
		c, err = dbus.ConnectSessionBus()
	} else {
		c, err = dbus.Connect(d.Address)
	}
	if err != nil {
		return nil, errors.Join(ErrNoService, err)
	}
	d.conn = c
	d.shown = map[uint32]Notification{}
	d.last = map[string]uint32{}
	d.token = map[uint32]string{}
	if d.OnOpen != nil {
		if err := c.AddMatchSignal(dbus.WithMatchObjectPath(Path), dbus.WithMatchInterface(Service)); err != nil {
			c.Close()
			d.conn = nil
			return nil, errors.Join(ErrNoService, err)
		}
		ch := make(chan *dbus.Signal, 16)
		c.Signal(ch)
		go func() {
			for s := range ch { // closed with the connection
				d.signal(s)
			}
		}()
	}
	return c, nil
}

// signal handles a signal of the notification service: a click opens the
// notification's channel, with the activation token sent just before it; a
// closed notification is forgotten. Signals from any other sender on the
// bus are ignored.
func (d *DBus) signal(s *dbus.Signal) {
	if s.Path != Path || len(s.Body) < 2 {
		return
	}
	id, ok := s.Body[0].(uint32)
	if !ok {
		return
	}
	str, _ := s.Body[1].(string)
	d.mu.Lock()
	n, known := d.shown[id]
	from := d.owner != "" && s.Sender == d.owner
	open := false
	if from && known {
		switch s.Name {
		case NotificationClosed:
			delete(d.shown, id)
			delete(d.token, id)
		case ActivationToken:
			if validToken(str) {
				d.token[id] = str
			}
		case ActionInvoked:
			// A token is good for one activation.
			n.ActivationToken = d.token[id]
			delete(d.token, id)
			open = str == "default" && n.opens()
		}
	}
	d.mu.Unlock()
	if open {
		d.OnOpen(n)
	}
}

// validToken: a token is handed to the toolkit only when it is printable
// ASCII of a sane length (both Wayland tokens and X11 startup ids are).
func validToken(t string) bool {
	if t == "" || len(t) > maxToken {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x21 || t[i] > 0x7e {
			return false
		}
	}
	return true
}

// Notify shows n, replacing the previous notification of this Notifier so
// that a burst of messages leaves one on screen.
func (d *DBus) Notify(ctx context.Context, n Notification) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, err := d.connect()
	if err != nil {
		return err
	}
	name := d.AppName
	if name == "" {
		name = "Weald"
	}
	actions := []string{}
	if d.OnOpen != nil && n.opens() {
		// "default" is a click on the notification itself; the label is for
		// services that show actions as buttons.
		actions = []string{"default", "Open"}
		if err := c.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetNameOwner", 0, Service).Store(&d.owner); err != nil {
			return errors.Join(ErrNoService, err)
		}
	}
	var id uint32
	call := c.Object(Service, Path).CallWithContext(ctx, method, 0,
		name, d.last[n.Kind], "weald", n.Title, n.Body, actions, hints(n), int32(-1))
	if call.Err != nil {
		return errors.Join(ErrNoService, call.Err)
	}
	if err := call.Store(&id); err != nil {
		return err
	}
	d.last[n.Kind] = id
	if len(d.shown) >= maxShown {
		clear(d.shown)
		clear(d.token)
	}
	d.shown[id] = n
	return nil
}

// Close closes the bus connection.
func (d *DBus) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return nil
	}
	err := d.conn.Close()
	d.conn = nil
	return err
}

// opens reports whether a click on n opens something: its channel, or for
// a security alert its workspace's Security view.
func (n Notification) opens() bool {
	return n.Channel != "" || (n.Kind == KindSecurity && n.Workspace != "")
}

// hints are the notification's hints: a message is "im.received"; a
// security alert is critical (it stays until the person acts on it) with a
// vendor category, so that a burst of messages never replaces it.
func hints(n Notification) map[string]dbus.Variant {
	if n.Kind == KindSecurity {
		return map[string]dbus.Variant{"category": dbus.MakeVariant("x-weald.security"), "urgency": dbus.MakeVariant(byte(2))}
	}
	return map[string]dbus.Variant{"category": dbus.MakeVariant("im.received")}
}
