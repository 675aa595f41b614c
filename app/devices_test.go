package app_test

import (
	"fmt"
	"testing"
)

// Issue 13 "A second device", the desktop path: Dana (an admin) makes a
// pairing link with "Add a device"; a second app joins as an existing user
// with it, as Dana, with no recovery phrase; Dana's running app adds it to
// the private channel by itself; what it sends there is Dana's. The link
// once more, on a third app, is refused and leaves nothing.
func TestPairADeviceInTheApp(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, laptop, thief := workspaces(t), workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	secret, err := dana.CreateChannel(ws, "secret", "explicit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.PairDevice(ws, 0); code(err) != "pair/bad_expiry" {
		t.Fatalf("0 minutes: %v", err)
	}
	p, err := dana.PairDevice(ws, 15)
	if err != nil || !p.Published {
		t.Fatalf("pairing %+v, %v", p, err)
	}
	if _, err := laptop.JoinDevice("weald://invite?" + p.Link[len("weald://pair?"):]); code(err) != "pair/wrong_link" {
		t.Fatalf("an invite link on Join as an existing user: %v", err)
	}
	created, err := laptop.JoinDevice(p.Link)
	if err != nil {
		t.Fatal(err)
	}
	if len(created.RecoveryPhrase) != 0 || created.Workspace.You != "Dana" {
		t.Fatalf("joined %+v", created)
	}
	// Refused: bound to the laptop's key (auth/grant_used), or voided
	// once Dana's app republished the access set (auth/revoked).
	if _, err := thief.JoinDevice(p.Link); code(err) != "auth/grant_used" && code(err) != "auth/revoked" {
		t.Fatalf("the link once more: %v", err)
	}
	if list, err := thief.List(); err != nil || len(list) != 0 {
		t.Fatalf("after the refused link: %+v, %v", list, err)
	}
	eventually(t, "the laptop in #secret", func() bool {
		chans, err := laptop.Channels(ws)
		if err != nil {
			return false
		}
		for _, ch := range chans {
			if ch.ID == secret.ID {
				return ch.Joined
			}
		}
		return false
	})
	if _, err := laptop.Send(ws, secret.ID, "from the laptop"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "dana reads it as hers", func() bool {
		ms, err := dana.Messages(ws, secret.ID)
		if err != nil {
			return false
		}
		for _, m := range ms {
			if m.Text == "from the laptop" {
				return m.Mine && m.Author == "Dana"
			}
		}
		return false
	})
}

// An added member's app shows the private channel by itself: the add is a
// Welcome in the channel's log with no roster change; the adder's Welcome
// notice makes the relay push EVENT_WELCOME to Sam's connection (no poll).
// Before, Sam's app showed the channel only after some unrelated roster
// change or a reconnect.
func TestAddedMemberSeesThePrivateChannel(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	plans, err := dana.CreateChannel(ws, "plans", "explicit")
	if err != nil {
		t.Fatal(err)
	}
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	var samUser string
	eventually(t, "dana lists sam", func() bool {
		people, err := dana.People(ws)
		for _, p := range people {
			if p.Name == "Sam" && p.Devices == 1 {
				samUser = p.User
			}
		}
		return err == nil && samUser != ""
	})
	// Wait until Sam's app has put key packages on the relay: probe
	// channels take the adds that come too early (pending adds).
	n := 0
	eventually(t, "sam has key packages", func() bool {
		n++
		probe, err := dana.CreateChannel(ws, fmt.Sprintf("probe-%d", n), "explicit")
		if err != nil {
			return false
		}
		res, err := dana.AddPeople(ws, probe.ID, []string{samUser})
		return err == nil && res.Added == 1
	})
	// A direct add to #plans: no pending add in the roster.
	res, err := dana.AddPeople(ws, plans.ID, []string{samUser})
	if err != nil || res.Added != 1 || res.Pending != 0 {
		t.Fatalf("add: %+v, %v", res, err)
	}
	if _, err := dana.Send(ws, plans.ID, "the plan"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam reads #plans", func() bool {
		ms, err := sam.Messages(ws, plans.ID)
		return err == nil && len(ms) == 1 && ms[0].Text == "the plan"
	})
}
