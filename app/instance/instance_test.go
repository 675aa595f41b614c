package instance

import (
	"errors"
	"strings"
	"testing"

	"weald/app/internal/dbustest"
)

func claimPrimary(t *testing.T, bus, dir string) *Primary {
	t.Helper()
	p, err := Claim(bus, dir, nil)
	if err != nil || p == nil {
		t.Fatalf("first launch on %s: %v %v", dir, p, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// A second launch on the same data directory hands its link to the first
// and is told to exit; one on another data directory is an app of its own;
// once the first app is gone, the next launch owns the name.
func TestSecondLaunchHandsOver(t *testing.T) {
	bus := dbustest.PrivateBus(t)
	dir := t.TempDir()
	first := claimPrimary(t, bus, dir)

	link := "weald://invite?relay=ws%3A%2F%2F127.0.0.1%3A7447%2Fv1%2Fws&id=ab"
	if p, err := Claim(bus, dir+"/.", []string{link}); !errors.Is(err, ErrHandedOver) || p != nil {
		t.Fatalf("second launch: %v %v, want ErrHandedOver", p, err)
	}
	select {
	case got := <-first.Args():
		if len(got) != 1 || got[0] != link {
			t.Fatalf("the running app got %q", got)
		}
	default:
		t.Fatal("the running app got nothing")
	}
	// No arguments (the app opened again from the menu): handed over too.
	if _, err := Claim(bus, dir, nil); !errors.Is(err, ErrHandedOver) {
		t.Fatalf("plain second launch: %v", err)
	}
	if got := <-first.Args(); len(got) != 0 {
		t.Fatalf("plain launch handed %q", got)
	}

	claimPrimary(t, bus, t.TempDir()) // another data directory

	first.Close()
	claimPrimary(t, bus, dir)
}

// What a launch may hand over is bounded, and so is the queue the app has
// not taken yet: past either, the launch is refused (and runs on its own).
func TestHandOverBounds(t *testing.T) {
	bus := dbustest.PrivateBus(t)
	dir := t.TempDir()
	first := claimPrimary(t, bus, dir)

	if _, err := Claim(bus, dir, make([]string, maxArgs+1)); err == nil || errors.Is(err, ErrHandedOver) {
		t.Fatalf("%d arguments: %v", maxArgs+1, err)
	}
	if _, err := Claim(bus, dir, []string{strings.Repeat("a", maxArgLen+1)}); err == nil || errors.Is(err, ErrHandedOver) {
		t.Fatalf("a long argument: %v", err)
	}
	for i := range queue {
		if _, err := Claim(bus, dir, []string{"weald://x"}); !errors.Is(err, ErrHandedOver) {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
	if _, err := Claim(bus, dir, []string{"weald://x"}); err == nil || errors.Is(err, ErrHandedOver) {
		t.Fatalf("launch past the queue: %v", err)
	}
	if n := len(first.Args()); n != queue {
		t.Fatalf("queued %d, want %d", n, queue)
	}
}

func TestNoBus(t *testing.T) {
	if _, err := Claim("unix:path=/nonexistent/bus", t.TempDir(), nil); err == nil || errors.Is(err, ErrHandedOver) {
		t.Fatalf("no bus: %v", err)
	}
}

func TestNameIsValidAndPerDirectory(t *testing.T) {
	a, b := Name("/home/x/.local/share/weald"), Name("/home/x/.local/share/weald/")
	if a != b || a == Name("/home/y/.local/share/weald") {
		t.Fatalf("names: %s %s", a, b)
	}
	for _, el := range strings.Split(a, ".") {
		if el == "" || (el[0] >= '0' && el[0] <= '9') {
			t.Fatalf("bad bus name element %q in %s", el, a)
		}
	}
}
