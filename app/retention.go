package app

import (
	"fmt"
	"time"
)

// A channel's retention windows from the desktop (issue 14;
// spec/lifecycle.md "Retention policy"; docs/protocol/retention.md
// "RetentionPolicy"): the Retention dialog of the Encryption & health panel
// shows the current windows, what new ones would delete as a number, and
// proposes them.

// maxRetentionDays is the longest window the dialog takes (100 years, the
// roster's bound; `weald retention set` takes the same).
const maxRetentionDays = 36500

// testClock is the engines' clock when App.clock is unset: nil (the real
// clock) except in the e2e build (seed_e2e.go).
var testClock func() time.Time

func (a *App) engineClock() func() time.Time {
	if a.clock != nil {
		return a.clock
	}
	return testClock
}

// ChannelRetention is a channel's retention state as the dialog shows it.
type ChannelRetention struct {
	Channel       string `json:"channel"`
	TextDays      int    `json:"textDays"`  // 0 = unlimited
	MediaDays     int    `json:"mediaDays"` // 0 = unlimited
	DefaultPolicy bool   `json:"defaultPolicy"`
	// Admin: this device may change it; others see it read-only.
	Admin bool `json:"admin"`
}

// RetentionImpact is what a new text window would delete: the channel's
// messages older than it (counted on this device) and an estimate of their
// bytes on the relay.
type RetentionImpact struct {
	Messages int    `json:"messages"`
	Bytes    uint64 `json:"bytes"`
}

// RetentionChange is the answer of PreviewRetention and SetRetention.
type RetentionChange struct {
	Channel   string          `json:"channel"`
	TextDays  int             `json:"textDays"`
	MediaDays int             `json:"mediaDays"`
	Impact    RetentionImpact `json:"impact"`
	// Applied: proposed (SetRetention); Active: in force, else it waits for
	// another admin's approval (the health panel's pending list).
	Applied bool `json:"applied"`
	Active  bool `json:"active"`
	// Published: the policy reached the relay; Note says why not when it is
	// in force but unpublished.
	Published bool   `json:"published"`
	Note      string `json:"note"`
}

// ChannelRetention returns a channel's (name or group id) retention windows
// and whether this device may change them.
func (w *Workspaces) ChannelRetention(ws, channel string) (ChannelRetention, error) {
	r, err := w.run(ws)
	if err != nil {
		return ChannelRetention{}, err
	}
	info, ierr := r.eng.Retention(channel)
	if ierr != nil {
		return ChannelRetention{}, toError(ierr)
	}
	return ChannelRetention{Channel: info.Channel, TextDays: days(info.TextWindow), MediaDays: days(info.MediaWindow),
		DefaultPolicy: info.Default, Admin: r.eng.CanInvite()}, nil
}

// PreviewRetention returns what new windows (days, 0 = unlimited) would
// delete from a channel, changing nothing (admins).
func (w *Workspaces) PreviewRetention(ws, channel string, textDays, mediaDays int) (RetentionChange, error) {
	return w.setRetention(ws, channel, textDays, mediaDays, false)
}

// SetRetention proposes new windows for a channel (admins): in force at
// once when this is the workspace's only admin, else once a second admin
// approves it; the answer carries what they delete.
func (w *Workspaces) SetRetention(ws, channel string, textDays, mediaDays int) (RetentionChange, error) {
	return w.setRetention(ws, channel, textDays, mediaDays, true)
}

func (w *Workspaces) setRetention(ws, channel string, textDays, mediaDays int, apply bool) (RetentionChange, error) {
	for _, d := range []int{textDays, mediaDays} {
		if d < 0 || d > maxRetentionDays {
			return RetentionChange{}, &Error{Code: "retention/bad_window",
				Message: fmt.Sprintf("A retention window is unlimited or 1 to %d days.", maxRetentionDays)}
		}
	}
	r, err := w.run(ws)
	if err != nil {
		return RetentionChange{}, err
	}
	ctx, cancel := w.healthCtx()
	defer cancel()
	c, cerr := r.eng.SetRetention(ctx, channel, time.Duration(textDays)*24*time.Hour, time.Duration(mediaDays)*24*time.Hour, apply)
	if cerr != nil {
		return RetentionChange{}, toError(cerr)
	}
	out := RetentionChange{Channel: c.Channel, TextDays: textDays, MediaDays: mediaDays,
		Impact:  RetentionImpact{Messages: c.Impact.Messages, Bytes: c.Impact.Bytes},
		Applied: c.Applied, Active: c.Active, Published: c.Published}
	if c.Active {
		out.Note = c.Note // the proposal's note names a command; the dialog says it in its own words
	}
	if apply {
		w.app.emit(w.ctx, EventHealthChanged, HealthChanged{Workspace: r.id})
	}
	return out, nil
}
