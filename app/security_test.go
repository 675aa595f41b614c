package app_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/app"
	"weald/backend/engine"
)

// alertRecorder keeps the alert events an App emits.
type alertRecorder struct {
	mu     sync.Mutex
	alerts []app.Alert
}

func (r *alertRecorder) Emit(_ context.Context, name string, data ...any) {
	if name != app.EventAlert || len(data) != 1 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.alerts = append(r.alerts, data[0].(app.Alert))
}

// danaWithAlerts starts Dana's app with its alert events recorded, and her
// workspace "Acme" on a real relay, ready.
func danaWithAlerts(t *testing.T) (*alertRecorder, *app.Workspaces, string) {
	t.Helper()
	url, svc := realRelay(t)
	rec := &alertRecorder{}
	a := app.New(t.TempDir(), io.Discard, rec)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	dana := app.Services(a)[2].(*app.Workspaces)
	return rec, dana, danaAcme(t, dana, url, svc).Workspace.ID
}

func (r *alertRecorder) list() []app.Alert {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]app.Alert{}, r.alerts...)
}

// The Security view's bindings against a real relay. Lee joining by Sam's
// invite reaches Dana as a notice (event and list) naming both; dismissing
// it is kept across a restart of Dana's app, and a second dismissal is
// refused. Sam rotates his recovery phrase: 24 new words, unconfirmed until
// he confirms them, and a notice for Dana. Sam's devices issued no agent,
// so revoking their agents revokes none.
func TestSecurityAlertsAndRotation(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dir := t.TempDir()
	rec := &alertRecorder{}
	a := app.New(dir, io.Discard, rec)
	a.Startup(context.Background())
	dana := app.Services(a)[2].(*app.Workspaces)
	sam, lee := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
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
	var notice app.SecurityAlert
	eventually(t, "Dana's notice of Lee's join", func() bool {
		list, err := dana.SecurityAlerts(ws)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.Summary == "Lee joined, admitted by Sam's invite." {
				notice = x
				return true
			}
		}
		return false
	})
	if notice.Tone != app.ToneNotice || notice.ActorName != "Lee" || notice.ActorDevice == "" || notice.Acknowledged != 0 || notice.Time == 0 {
		t.Fatalf("the notice: %+v", notice)
	}
	eventually(t, "the notice's event", func() bool {
		for _, e := range rec.list() {
			if e.ID == notice.ID && e.Tone == app.ToneNotice && e.Message == notice.Summary && e.Workspace == ws {
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("notice %+v; events %+v", notice, rec.list()) })
	for _, e := range rec.list() {
		if e.Tone == app.ToneAlert {
			t.Fatalf("a security alert for Dana in an ordinary join: %+v", e)
		}
	}
	list, err := dana.DismissAlert(ws, notice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if list[0].ID != notice.ID || list[0].Outcome != app.OutcomeDismissed || list[0].Acknowledged == 0 {
		t.Fatalf("after the dismissal: %+v", list)
	}
	if _, err := dana.DismissAlert(ws, notice.ID); code(err) != "alert/unknown" {
		t.Fatalf("a second dismissal: %v", err)
	}

	// Dana's app restarts: the acknowledgement is still there.
	a.Shutdown(context.Background())
	a = app.New(dir, io.Discard, rec)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	dana = app.Services(a)[2].(*app.Workspaces)
	list, err = dana.SecurityAlerts(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 || list[0].ID != notice.ID || list[0].Outcome != app.OutcomeDismissed {
		t.Fatalf("after a restart: %+v", list)
	}

	// Sam rotates his recovery phrase.
	st, err := sam.RecoveryState(ws)
	if err != nil || st.Unfinished || st.Unconfirmed != 0 {
		t.Fatalf("before the rotation: %+v %v", st, err)
	}
	rot, err := sam.RotateRecovery(ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(rot.Phrase) != 24 || rot.Rewrapped < 1 || rot.AccessVersion == 0 {
		t.Fatalf("rotation: %d words, %+v", len(rot.Phrase), rot)
	}
	if st, err := sam.RecoveryState(ws); err != nil || st.Unfinished || st.Unconfirmed == 0 {
		t.Fatalf("after the rotation: %+v %v", st, err)
	}
	if err := sam.ConfirmRecoveryRotation(ws); err != nil {
		t.Fatal(err)
	}
	if st, err := sam.RecoveryState(ws); err != nil || st.Unconfirmed != 0 {
		t.Fatalf("after the confirmation: %+v %v", st, err)
	}
	eventually(t, "Dana's notice of the rotation", func() bool {
		list, err := dana.SecurityAlerts(ws)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if strings.HasPrefix(x.Summary, "Sam replaced their recovery phrase") && x.Tone == app.ToneNotice {
				return true
			}
		}
		return false
	})

	members, err := sam.AdminMembers(ws)
	if err != nil {
		t.Fatal(err)
	}
	var samDevice string
	for _, m := range members {
		for _, d := range m.Devices {
			if d.You {
				samDevice = d.Device
			}
			if d.Agents != 0 || d.CanApprove {
				t.Fatalf("a device with agents or to approve: %+v", d)
			}
		}
	}
	revoked, err := sam.RevokeAgentsIssuedBy(ws, samDevice)
	if err != nil || len(revoked) != 0 {
		t.Fatalf("revoking the agents of a device that issued none: %+v %v", revoked, err)
	}
	if err := dana.ApproveDevice(ws, samDevice); code(err) != "device/not_on_probation" {
		t.Fatalf("approving a device not on probation: %v", err)
	}
}

// TestSoloAdminIsToldOnceInTheApp: Dana's app, the only admin, tells her
// once (an informational alert event and a Security view row) when Sam,
// the first other person, joins; Lee's join does not tell her again.
func TestSoloAdminIsToldOnceInTheApp(t *testing.T) {
	t.Parallel()
	rec, dana, ws := danaWithAlerts(t)
	told := func() (n int, row app.SecurityAlert) {
		list, err := dana.SecurityAlerts(ws)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.Code == "admin/solo" {
				n, row = n+1, x
			}
		}
		return n, row
	}
	for i, name := range []string{"Sam", "Lee"} {
		joinAs(t, dana, ws, "member", name)
		eventually(t, "Dana's app sees "+name, func() bool {
			people, err := dana.AdminMembers(ws)
			return err == nil && len(people) == i+2
		})
		eventually(t, "Dana told once", func() bool { n, _ := told(); return n == 1 })
	}
	n, row := told()
	if n != 1 || row.Tone != app.ToneNotice || !strings.Contains(row.Summary, "only admin") {
		t.Fatalf("the reminder: %d rows, %+v", n, row)
	}
	events := 0
	for _, e := range rec.list() {
		if e.Code == "admin/solo" {
			events++
			if e.Tone != app.ToneNotice || e.Workspace != ws {
				t.Fatalf("the reminder's event: %+v", e)
			}
		}
	}
	if events != 1 {
		t.Fatalf("%d reminder events, want 1", events)
	}
}

// A join notice raised before the newcomer's name is known takes the name
// when it comes (the Playwright security story once showed "user c83bbaea
// joined" for good). Sam is an admin; Lee joins by his invite headless,
// without a name, so Dana's app raises the notice naming Lee by id; Lee
// then sets his name, and the same alert's event comes again saying "Lee
// joined". Before the fix the app never looked again: it took "user
// 90c6738e" for a name.
func TestJoinNoticeTakesTheNameWhenItComes(t *testing.T) {
	t.Parallel()
	rec, dana, ws := danaWithAlerts(t)
	sam := joinAs(t, dana, ws, "admin", "Sam")
	inv, err := sam.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lee, err := engine.Join(ctx, engine.Options{Dir: filepath.Join(t.TempDir(), "lee")}, inv.Link)
	if err != nil {
		t.Fatal(err)
	}
	defer lee.Close()
	unnamed := "user " + lee.Status().User[:8] + " joined, admitted by Sam's invite."
	var first app.Alert
	eventually(t, "the notice naming Lee by id", func() bool {
		for _, e := range rec.list() {
			if e.Message == unnamed {
				first = e
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("events %+v", rec.list()) })
	if err := lee.SetDisplayName(ctx, "Lee"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the same notice naming Lee", func() bool {
		for _, e := range rec.list() {
			if e.ID == first.ID && e.Message == "Lee joined, admitted by Sam's invite." && e.Tone == app.ToneNotice {
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("first %+v; events %+v", first, rec.list()) })
}
