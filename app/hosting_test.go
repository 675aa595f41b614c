package app_test

import (
	"context"
	"io"
	"net/url"
	"strings"
	"testing"

	"weald/app"
	"weald/app/hostrelay"
)

// TestHostOnThisComputer (issue 15, "First run with nobody else"): a
// hosted create starts the relay inside the app, which provisions the
// workspace itself (no operator step) and reaches ready; a second app on
// this computer joins with an invite and reads what was sent; after the
// host app restarts, its relay is back on the same address and a message
// sent then reaches the second app.
func TestHostOnThisComputer(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	a := app.New(data, io.Discard, nil)
	a.Startup(context.Background())
	dana := app.Services(a)[2].(*app.Workspaces)
	c, err := dana.CreateHosted("Acme", "Dana", false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace.Provision != nil || !strings.HasPrefix(c.Workspace.Relay, "ws://127.0.0.1:") || len(c.RecoveryPhrase) != 24 {
		t.Fatalf("hosted create: %+v", c)
	}
	ws := c.Workspace.ID
	eventually(t, "dana ready", func() bool { return only(t, dana).Ready })
	chans, err := dana.Channels(ws)
	if err != nil || names(chans) != "general,activity" {
		t.Fatalf("channels: %s %v", names(chans), err)
	}
	general := chans[0].ID
	if _, err := dana.Send(ws, general, "hosted here"); err != nil {
		t.Fatal(err)
	}

	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	sam := workspaces(t)
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready and reads dana's message", func() bool {
		ms, err := sam.Messages(ws, general)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "hosted here"
	})

	relayURL := c.Workspace.Relay
	a.Shutdown(context.Background())
	a2 := app.New(data, io.Discard, nil)
	a2.Startup(context.Background())
	t.Cleanup(func() { a2.Shutdown(context.Background()) })
	dana2 := app.Services(a2)[2].(*app.Workspaces)
	if got := only(t, dana2); got.Relay != relayURL {
		t.Fatalf("after a restart the workspace's relay is %s, was %s", got.Relay, relayURL)
	}
	eventually(t, "dana sends after the restart", func() bool {
		_, err := dana2.Send(ws, general, "after restart")
		return err == nil
	})
	eventually(t, "sam reads it through the restarted relay", func() bool {
		ms, err := sam.Messages(ws, general)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "after restart"
	})
}

// TestHostOnTheNetwork (issue 15): "Host on this computer" with "Let
// computers on my network join" gives the workspace this machine's own
// non-loopback address (the one its invite links carry, to give
// teammates); a second app joins with an invite and so reaches the relay by
// that address only, and reads what was sent. The address is one of this
// machine's interfaces: no traffic leaves it.
func TestHostOnTheNetwork(t *testing.T) {
	t.Parallel()
	ip := hostrelay.LANAddress()
	if ip == "" {
		t.Skip("this machine has no non-loopback IPv4 address to listen on")
	}
	a := app.New(t.TempDir(), io.Discard, nil)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	dana := app.Services(a)[2].(*app.Workspaces)
	c, err := dana.CreateHosted("Acme", "Dana", true)
	if err != nil {
		t.Fatal(err)
	}
	relay := c.Workspace.Relay
	if !strings.HasPrefix(relay, "ws://"+ip+":") || strings.Contains(relay, "127.0.0.1") {
		t.Fatalf("the network address of a LAN host is %q, want ws://%s:PORT", relay, ip)
	}
	ws := c.Workspace.ID
	eventually(t, "dana ready", func() bool { return only(t, dana).Ready })
	chans, err := dana.Channels(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ws, chans[0].ID, "over the network"); err != nil {
		t.Fatal(err)
	}
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(inv.Link, url.QueryEscape(relay)) {
		t.Fatalf("the invite does not carry %s: %s", relay, inv.Link)
	}
	sam := workspaces(t)
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	if got := only(t, sam).Relay; got != relay {
		t.Fatalf("sam dials %s, want %s", got, relay)
	}
	eventually(t, "sam reads dana's message through the network address", func() bool {
		ms, err := sam.Messages(ws, chans[0].ID)
		return err == nil && len(ms) > 0 && ms[len(ms)-1].Text == "over the network"
	})
}
