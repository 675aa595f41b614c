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

// Notification is one desktop notification: a title and a line of text.
type Notification struct {
	Title string
	Body  string
}

// Notifier shows notifications.
type Notifier interface {
	Notify(ctx context.Context, n Notification) error
}

// The freedesktop service's bus name, object path and method
// (Desktop Notifications Specification, "D-BUS Protocol").
const (
	Service = "org.freedesktop.Notifications"
	Path    = "/org/freedesktop/Notifications"
	method  = Service + ".Notify"
)

// ErrNoService is returned when no notification service answers.
var ErrNoService = errors.New("notify: no desktop notification service on the session bus")

// DBus is a Notifier over the session bus (or the bus at Address). It
// connects on first use and again after a failure.
type DBus struct {
	Address string // "" for the session bus of this login
	AppName string

	mu   sync.Mutex
	conn *dbus.Conn
	last uint32 // id of the last notification shown, replaced by the next
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
	return c, nil
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
	var id uint32
	call := c.Object(Service, Path).CallWithContext(ctx, method, 0,
		name, d.last, "weald", n.Title, n.Body, []string{}, map[string]dbus.Variant{"category": dbus.MakeVariant("im.received")}, int32(-1))
	if call.Err != nil {
		return errors.Join(ErrNoService, call.Err)
	}
	if err := call.Store(&id); err != nil {
		return err
	}
	d.last = id
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
