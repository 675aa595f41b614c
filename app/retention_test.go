package app_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/app"
)

// shiftClock is a settable clock: the real time shifted by an offset.
type shiftClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *shiftClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *shiftClock) set(d time.Duration) { c.mu.Lock(); c.offset = d; c.mu.Unlock() }

func retentionOf(t *testing.T, w *app.Workspaces, ws, channel string) app.ChannelRetention {
	t.Helper()
	r, err := w.ChannelRetention(ws, channel)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The Retention dialog's bindings against a real relay (issue 14): #general
// holds three messages from 40 days ago and two from now; a 30-day text
// window would delete the three (a number, with their bytes on the relay)
// and the preview changes nothing; bad windows, an unknown channel and a
// member's attempt are refused with a code and leave the windows as they
// were; Dana, the only admin, puts 30/90 days in force and on the relay.
func TestRetentionBindings(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	clk := &shiftClock{}
	app.SetEngineClock(dana, clk.now)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	general := ""
	chs, err := dana.Channels(ws)
	for _, ch := range chs {
		if ch.Name == "general" {
			general = ch.ID
		}
	}
	if err != nil || general == "" {
		t.Fatalf("channels %+v, %v", chs, err)
	}
	before := app.ChannelRetention{Channel: "general", TextDays: 0, MediaDays: 180, DefaultPolicy: true, Admin: true}
	if got := retentionOf(t, dana, ws, general); got != before {
		t.Fatalf("defaults: %+v", got)
	}
	clk.set(-40 * 24 * time.Hour)
	for i := range 3 {
		if _, err := dana.Send(ws, general, fmt.Sprintf("old %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Send queues: the engine stamps a message when it goes out.
	eventually(t, "the old messages sent", func() bool {
		ms, err := dana.Messages(ws, general)
		n := 0
		for _, m := range ms {
			if strings.HasPrefix(m.Text, "old ") && m.State == app.MessageSent {
				n++
			}
		}
		return err == nil && n == 3
	})
	clk.set(0)
	for i := range 2 {
		if _, err := dana.Send(ws, general, fmt.Sprintf("new %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var p app.RetentionChange
	eventually(t, "the old messages counted", func() bool {
		p, err = dana.PreviewRetention(ws, general, 30, 90)
		return err == nil && p.Impact.Messages == 3
	}, func() string { return fmt.Sprintf("%+v %v", p, err) })
	if p.Impact.Bytes == 0 || p.Applied || p.Active || p.TextDays != 30 || p.MediaDays != 90 || p.Channel != "general" {
		t.Fatalf("preview: %+v", p)
	}
	if p, err := dana.PreviewRetention(ws, general, 0, 90); err != nil || p.Impact.Messages != 0 {
		t.Fatalf("unlimited text deletes nothing: %+v %v", p, err)
	}
	if got := retentionOf(t, dana, ws, general); got != before {
		t.Fatalf("a preview changed the windows: %+v", got)
	}

	for _, bad := range [][2]int{{-1, 90}, {30, -1}, {36501, 90}, {30, 36501}} {
		if _, err := dana.SetRetention(ws, general, bad[0], bad[1]); code(err) != "retention/bad_window" {
			t.Fatalf("set %v: %v", bad, err)
		}
		if _, err := dana.PreviewRetention(ws, general, bad[0], bad[1]); code(err) != "retention/bad_window" {
			t.Fatalf("preview %v: %v", bad, err)
		}
	}
	if _, err := dana.SetRetention(ws, "nowhere", 30, 90); code(err) != "channel/unknown" {
		t.Fatalf("unknown channel: %v", err)
	}
	if got := retentionOf(t, dana, ws, general); got != before {
		t.Fatalf("a refusal changed the windows: %+v", got)
	}

	// A member sees the windows and cannot change or preview them.
	inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sam.Join(inv.Link, "Sam")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	if got := retentionOf(t, sam, sc.Workspace.ID, "general"); got.Admin || got.MediaDays != 180 || !got.DefaultPolicy {
		t.Fatalf("sam sees: %+v", got)
	}
	if _, err := sam.SetRetention(sc.Workspace.ID, "general", 1, 1); code(err) != "retention/not_admin" {
		t.Fatalf("a member set retention: %v", err)
	}
	if _, err := sam.PreviewRetention(sc.Workspace.ID, "general", 1, 1); code(err) != "retention/not_admin" {
		t.Fatalf("a member previewed retention: %v", err)
	}
	if got := retentionOf(t, dana, ws, general); got != before {
		t.Fatalf("a member's attempt changed the windows: %+v", got)
	}

	s, err := dana.SetRetention(ws, general, 30, 90)
	if err != nil || !s.Applied || !s.Active || !s.Published || s.Impact.Messages != 3 {
		t.Fatalf("set: %+v %v", s, err)
	}
	after := app.ChannelRetention{Channel: "general", TextDays: 30, MediaDays: 90, Admin: true}
	if got := retentionOf(t, dana, ws, general); got != after {
		t.Fatalf("after: %+v", got)
	}
	h, err := dana.EncryptionHealth(ws)
	if err != nil || len(h.Pending) != 0 {
		t.Fatalf("health: %+v %v", h.Pending, err)
	}
	for _, g := range h.Groups {
		if g.Channel == "general" && (g.TextDays != 30 || g.MediaDays != 90 || g.DefaultPolicy) {
			t.Fatalf("the panel's row: %+v", g)
		}
	}
}

// With two admins a change waits for the second's approval (spec/lifecycle.md
// "Retention policy"): Dana's proposal is applied but not in force, the
// windows stay, the panel lists it as pending, approvable by Lee and not by
// Dana; once Lee approves it, it is in force.
func TestRetentionWaitsForASecondAdmin(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana := workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	lee := joinAs(t, dana, ws, "admin", "Lee")
	eventually(t, "dana sees lee", func() bool {
		ms, err := dana.WorkspaceMembers(ws)
		return err == nil && len(ms) == 2
	})
	s, err := dana.SetRetention(ws, "general", 30, 0)
	if err != nil || !s.Applied || s.Active || s.Published || s.Note != "" {
		t.Fatalf("proposed: %+v %v", s, err)
	}
	if got := retentionOf(t, dana, ws, "general"); got.TextDays != 0 || got.MediaDays != 180 || !got.DefaultPolicy {
		t.Fatalf("in force before the approval: %+v", got)
	}
	h, err := dana.EncryptionHealth(ws)
	if err != nil || len(h.Pending) != 1 || h.Pending[0].Approvable || h.Pending[0].TextDays != 30 || h.Pending[0].MediaDays != 0 {
		t.Fatalf("dana's pending: %+v %v", h.Pending, err)
	}
	var id string
	eventually(t, "lee sees the proposal", func() bool {
		h, err := lee.EncryptionHealth(ws)
		if err != nil || len(h.Pending) != 1 || !h.Pending[0].Approvable {
			return false
		}
		id = h.Pending[0].ID
		return true
	})
	if _, err := lee.ApproveRetention(ws, id); err != nil {
		t.Fatal(err)
	}
	if got := retentionOf(t, lee, ws, "general"); got.TextDays != 30 || got.MediaDays != 0 || got.DefaultPolicy {
		t.Fatalf("after lee's approval: %+v", got)
	}
}
