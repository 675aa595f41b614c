package app

import (
	"context"
	"strings"
	"time"

	"weald/backend/engine"
	"weald/backend/groups"
)

// Pairing a second device (issue 13; docs/protocol/devices.md): "Add a
// device" on a device the person has, "Join as an existing user" on the
// new one.

// Pairing is a pairing link made for a new device of this person.
type Pairing struct {
	Link      string `json:"link"`      // carries secrets: shown once, never logged
	ExpiresAt int64  `json:"expiresAt"` // Unix ms
	// Published: the relay lets the new device in now; false for a
	// member, until an admin's app has synced.
	Published bool `json:"published"`
}

// PairDevice makes a one-use pairing link valid for minutes (1 to 60).
func (w *Workspaces) PairDevice(ws string, minutes int) (Pairing, error) {
	r, err := w.run(ws)
	if err != nil {
		return Pairing{}, err
	}
	if minutes < 1 || minutes > 60 {
		return Pairing{}, &Error{Code: "pair/bad_expiry", Message: "A pairing link lasts from 1 to 60 minutes."}
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	p, perr := r.eng.PairDevice(ctx, time.Duration(minutes)*time.Minute)
	if perr != nil {
		return Pairing{}, toError(perr)
	}
	return Pairing{Link: p.Link, ExpiresAt: p.Expires.UnixMilli(), Published: p.Published}, nil
}

// JoinDevice joins a workspace as an existing user with a pairing link:
// this device enters the roster under the person who made the link, then
// the workspace and its channels. No recovery phrase: the person has one.
func (w *Workspaces) JoinDevice(link string) (Created, error) {
	link = strings.TrimSpace(link)
	l, err := groups.ParseLink(link)
	if err != nil {
		return Created{}, &Error{Code: "invite/bad_link", Message: "This is not a Weald pairing link. Copy the whole link from your other device and paste it again."}
	}
	if !l.Pair {
		return Created{}, &Error{Code: "pair/wrong_link", Message: "This is an invite link: go back and choose Join with an invite."}
	}
	c, cerr := w.make(func(ctx context.Context, dir string) (*engine.Engine, error) {
		return engine.Join(ctx, engine.Options{Dir: dir, Clock: w.app.engineClock()}, link)
	}, "", true)
	if cerr != nil {
		if e := toError(cerr); e.Code == "pair/not_published" {
			return Created{}, &Error{Code: "pair/not_published", Message: "The relay does not accept this pairing link yet. If you are not an admin, an admin's Weald must be open for it to reach the relay; otherwise it was already used, expired or cancelled. Try again in a minute, or make a new link."}
		}
		return Created{}, cerr
	}
	c.RecoveryPhrase = []string{}
	return c, nil
}
