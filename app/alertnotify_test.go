package app_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"weald/app"
	"weald/app/notify"
)

// A security alert reaches the person without their going looking (spec/
// lifecycle.md "Detection"): with Dana's window in the background, Sam (an
// admin) demoting Lee shows Dana an OS notification naming the workspace,
// and a click opens its Security view. A notice (Lee joining by Sam's
// invite) notifies nobody, and neither does an alert while the window has
// focus (the banner shows it).
func TestSecurityAlertNotifies(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	events := &openRecorder{}
	a := app.New(t.TempDir(), io.Discard, events)
	rec := &notifyRecorder{}
	app.UseNotifier(a, rec)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	dana := app.Services(a)[2].(*app.Workspaces)
	sam, lee := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	dana.SetAttention(ws, "", false) // the window is in the background
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	inv2, err := sam.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Join(inv2.Link, "Lee"); err != nil {
		t.Fatal(err)
	}
	alerts := func(tone app.AlertTone) int {
		list, err := dana.SecurityAlerts(ws)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range list {
			if x.Tone == tone {
				n++
			}
		}
		return n
	}
	eventually(t, "Dana's notice of Lee's join", func() bool { return alerts(app.ToneNotice) == 1 })
	var leeUser string
	eventually(t, "sam knows lee", func() bool {
		ms, _ := sam.WorkspaceMembers(ws)
		for _, m := range ms {
			if m.Name == "Lee" {
				leeUser = m.User
			}
		}
		return leeUser != ""
	})

	// The window has focus: the banner tells, not the OS.
	dana.SetAttention(ws, "", true)
	if err := sam.SetAdmin(ws, leeUser, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Dana's alert of Lee's promotion", func() bool { return alerts(app.ToneAlert) == 1 })
	// The banner shows it: its event went out while the window had focus.
	// (The list above is the store's; the event comes after it.)
	eventually(t, "Dana's banner of Lee's promotion", func() bool { return events.shown(app.ToneAlert) == 1 })
	if got := rec.list(); len(got) != 0 {
		t.Fatalf("notified of a notice or with the window focused: %+v", got)
	}

	dana.SetAttention(ws, "", false)
	if err := sam.SetAdmin(ws, leeUser, false); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Dana is notified of Lee's demotion", func() bool { return len(rec.list()) == 1 }, func() string { return fmt.Sprintf("notified %+v, banner %+v", rec.list(), events.alerts) })
	n := rec.list()[0]
	if n.Kind != notify.KindSecurity || n.Title != "Security alert in Acme" || !strings.Contains(n.Body, "Lee") || n.Workspace != ws || n.Channel != "" {
		t.Fatalf("the alert's notification: %+v", n)
	}
	app.OpenFromNotification(a, n)
	if got := events.list(); len(got) != 1 || got[0] != (app.OpenChannel{Workspace: ws, View: "security"}) {
		t.Fatalf("a click on the alert's notification asked the frontend to open %+v", got)
	}
}
