package app_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"weald/app"
	"weald/app/notify"
)

// notifyRecorder stands in for the OS side only (the D-Bus half has its own test
// in app/notify against a real dbus-daemon): it keeps what it is asked to
// show and then fails, as a desktop without a notification service does.
type notifyRecorder struct {
	mu  sync.Mutex
	got []notify.Notification
}

func (r *notifyRecorder) Notify(_ context.Context, n notify.Notification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, n)
	return errors.New("no notification service")
}

func (r *notifyRecorder) list() []notify.Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Notification{}, r.got...)
}

// openRecorder is an app.Emitter that keeps the channels the frontend is asked to open.
type openRecorder struct {
	mu     sync.Mutex
	opened []app.OpenChannel
	alerts []app.Alert // the banner's events (EventAlert)
}

func (r *openRecorder) Emit(_ context.Context, name string, data ...any) {
	if len(data) != 1 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch name {
	case app.EventOpenChannel:
		r.opened = append(r.opened, data[0].(app.OpenChannel))
	case app.EventAlert:
		r.alerts = append(r.alerts, data[0].(app.Alert))
	}
}

// shown counts the alerts of tone the frontend was sent for its banner.
func (r *openRecorder) shown(tone app.AlertTone) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range r.alerts {
		if a.Tone == tone {
			n++
		}
	}
	return n
}

func (r *openRecorder) list() []app.OpenChannel {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]app.OpenChannel{}, r.opened...)
}

// Sam, with the window in the background, is notified of a mention and of a
// DM from Dana, named and with the text (the mention under his name), and
// the text never reaches Sam's log. A click on the mention's notification
// opens #general; a mention in a muted channel still notifies.
func TestMentionAndDMNotifyAndStayOutOfTheLog(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana := workspaces(t)
	var log syncBuffer
	events := &openRecorder{}
	a := app.New(t.TempDir(), &log, events)
	rec := &notifyRecorder{}
	app.UseNotifier(a, rec)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	sam := app.Services(a)[2].(*app.Workspaces)

	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	chans, err := dana.Channels(ws)
	if err != nil {
		t.Fatal(err)
	}
	general := chans[0].ID
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	if lvl := only(t, sam).Notifications; lvl != "mentions" {
		t.Fatalf("default level %q, want mentions", lvl)
	}
	if err := sam.SetNotifications(ws, "loud"); code(err) != "bad_request/notifications" {
		t.Fatalf("a bad level: %v", err)
	}
	sam.SetAttention(ws, general, false) // the window is in the background
	var samUser string
	eventually(t, "dana knows sam", func() bool {
		ms, _ := dana.WorkspaceMembers(ws)
		for _, m := range ms {
			if m.Name == "Sam" {
				samUser = m.User
			}
		}
		return samUser != ""
	})
	const text = "@Sam the vault opens with 7519-kestrel"
	if _, err := dana.SendMentioning(ws, general, text, []app.MentionRef{{User: samUser, Start: 0, End: 4}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam is notified of the mention", func() bool { return len(rec.list()) == 1 })
	n := rec.list()[0]
	if n.Title != "Dana mentioned you in #general" || n.Body != text || n.Workspace != ws || n.Channel != general {
		t.Fatalf("mention notification: %+v", n)
	}
	// The person clicks it: the frontend is asked to open #general of this workspace.
	app.OpenFromNotification(a, n)
	if got := events.list(); len(got) != 1 || got[0] != (app.OpenChannel{Workspace: ws, Channel: general}) {
		t.Fatalf("a click on the notification asked the frontend to open %+v", got)
	}
	// A channel not on this device opens nothing.
	app.OpenFromNotification(a, notify.Notification{Workspace: ws, Channel: strings.Repeat("0", len(general))})
	if got := events.list(); len(got) != 1 {
		t.Fatalf("a click for an unknown channel opened %+v", got[1:])
	}
	if _, err := dana.SendDM(ws, samUser, "a word in private"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam is notified of the DM", func() bool { return len(rec.list()) == 2 })
	if n := rec.list()[1]; n.Title != "Dana" || n.Body != "a word in private" {
		t.Fatalf("DM notification: %+v", n)
	}
	// Muted, #general still notifies Sam of a mention of him, and of nothing
	// else even at the level of every message.
	if err := sam.SetNotifications(ws, "all"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.SetMuted(ws, general, true); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ws, general, "lunch, anyone?"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.SendMentioning(ws, general, "@Sam the build is red", []app.MentionRef{{User: samUser, Start: 0, End: 4}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam is notified of the mention in the muted channel", func() bool { return len(rec.list()) == 3 })
	if n := rec.list()[2]; n.Title != "Dana mentioned you in #general" || n.Body != "@Sam the build is red" {
		t.Fatalf("a muted channel's notification: %+v", n)
	}
	l := log.String()
	if !strings.Contains(l, "notification for a message") {
		t.Fatalf("the failed notification was not logged; the test proves nothing: %s", l)
	}
	if strings.Contains(l, "7519-kestrel") || strings.Contains(l, "a word in private") {
		t.Fatalf("a notification's text is in the log:\n%s", l)
	}
	if err := sam.SetNotifications(ws, "none"); err != nil || only(t, sam).Notifications != "none" {
		t.Fatalf("set none: %v", err)
	}
}
