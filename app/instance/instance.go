// Package instance keeps one desktop window per data directory (issue 15):
// the first launch owns a name on the session bus, derived from its data
// directory; a later launch with the same data directory — the desktop
// entry opening a weald:// link while Weald already runs — hands its
// arguments to the running app over D-Bus and exits before it opens
// anything (no store, no hosted relay, no window).
//
// Wails' own options.SingleInstanceLock is not used: in v2.9 it checks the
// bus only once the window exists and while OnStartup already runs in
// another goroutine, so a second launch would open the store and start the
// hosted relay before it hands over, and it exits with status 1.
package instance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	// Interface is the D-Bus interface of the running app's object.
	Interface = "org.weald.Desktop"
	// Path is the running app's object.
	Path = "/org/weald/Desktop"

	// Bounds on what a launch may hand over: the desktop entry passes one
	// link (%u); invite links are a few hundred bytes.
	maxArgs   = 16
	maxArgLen = 16 << 10
	// queued launches not yet taken by the app; more are refused.
	queue = 8
)

// ErrHandedOver is Claim's answer to a launch whose arguments the running
// app took: this process has nothing left to do.
var ErrHandedOver = errors.New("instance: handed over to the running app")

// Name is the bus name owned by the app of dataDir.
func Name(dataDir string) string {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	sum := sha256.Sum256([]byte(filepath.Clean(dataDir)))
	return "org.weald.Desktop.d" + hex.EncodeToString(sum[:10])
}

// Primary is the running app's end: it owns the name and receives the
// arguments of later launches.
type Primary struct {
	conn *dbus.Conn
	name string
	args chan []string
}

// Args delivers the arguments of each later launch, in order.
func (p *Primary) Args() <-chan []string { return p.args }

// Close gives up the name (released before it returns) and the connection.
func (p *Primary) Close() error {
	_, _ = p.conn.ReleaseName(p.name)
	return p.conn.Close()
}

// object is what the running app exports at Path.
type object struct{ args chan []string }

// Open takes the arguments of a later launch.
func (o object) Open(args []string) *dbus.Error {
	if len(args) > maxArgs {
		return dbus.MakeFailedError(fmt.Errorf("more than %d arguments", maxArgs))
	}
	for _, a := range args {
		if len(a) > maxArgLen {
			return dbus.MakeFailedError(fmt.Errorf("an argument is longer than %d bytes", maxArgLen))
		}
	}
	select {
	case o.args <- append([]string(nil), args...):
		return nil
	default:
		return dbus.MakeFailedError(errors.New("the app is busy with earlier launches"))
	}
}

// Claim makes this process the app of dataDir, or hands args to the app
// that already is. address is the bus ("" for the session bus). It returns
// the Primary when this process owns the name now; ErrHandedOver when the
// running app took args (the caller exits); any other error when there is
// no bus or the hand-over failed, in which case the caller runs on its own
// (as every launch did before this package).
func Claim(address, dataDir string, args []string) (*Primary, error) {
	var (
		conn *dbus.Conn
		err  error
	)
	if address == "" {
		conn, err = dbus.ConnectSessionBus()
	} else {
		conn, err = dbus.Connect(address)
	}
	if err != nil {
		return nil, fmt.Errorf("instance: no session bus: %w", err)
	}
	name := Name(dataDir)
	p := &Primary{conn: conn, name: name, args: make(chan []string, queue)}
	// The object first, so that a launch that finds the name finds it too.
	if err := conn.Export(object{p.args}, Path, Interface); err != nil {
		conn.Close()
		return nil, fmt.Errorf("instance: %w", err)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("instance: request the bus name: %w", err)
	}
	if reply == dbus.RequestNameReplyPrimaryOwner {
		return p, nil
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if args == nil {
		args = []string{}
	}
	if err := conn.Object(name, Path).CallWithContext(ctx, Interface+".Open", 0, args).Err; err != nil {
		return nil, fmt.Errorf("instance: the running app did not take the launch: %w", err)
	}
	return nil, ErrHandedOver
}
