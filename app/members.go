package app

import (
	"context"
	"errors"
	"time"

	"weald/backend/engine"
	"weald/backend/lifecycle"
)

// The admin member list (issue 12; spec/lifecycle.md "Removing a person").

// MemberDevice is one device of a person in the admin member list.
type MemberDevice struct {
	Device  string `json:"device"`
	Revoked bool   `json:"revoked"`
	You     bool   `json:"you"`
}

// AdminMember is one row of the admin member list.
type AdminMember struct {
	User    string         `json:"user"`
	Name    string         `json:"name"`
	Role    string         `json:"role"`
	Revoked bool           `json:"revoked"`
	You     bool           `json:"you"`
	Joined  int64          `json:"joined"` // unix ms
	Devices []MemberDevice `json:"devices"`
}

// RotatedGroup is one group a removal rotated.
type RotatedGroup struct {
	Name  string `json:"name"`
	Epoch uint64 `json:"epoch"`
}

// Receipt is a removal receipt as the member list shows and exports it.
type Receipt struct {
	Operation      string         `json:"operation"`
	User           string         `json:"user"`
	Name           string         `json:"name"`
	Channel        string         `json:"channel"`
	Groups         []RotatedGroup `json:"groups"`
	DevicesRevoked int            `json:"devicesRevoked"`
	AgentsRevoked  int            `json:"agentsRevoked"`
	AccessVersion  uint64         `json:"accessVersion"`
	At             int64          `json:"at"` // unix ms
}

// Removal is where a removal stands: "done" with its receipt, or
// "needs_reapproval" with the changes another admin made meanwhile.
type Removal struct {
	Operation   string   `json:"operation"`
	State       string   `json:"state"`
	Intervening []string `json:"intervening"`
	Receipt     *Receipt `json:"receipt"`
}

// removalTimeout bounds one removal call (512 groups took 22 s under load).
const removalTimeout = 5 * time.Minute

// AdminMembers lists every person of the workspace, removed ones too, with
// devices, role and when they joined.
func (w *Workspaces) AdminMembers(ws string) ([]AdminMember, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	devs, merr := r.eng.Members(ctx, "")
	if merr != nil {
		return nil, toError(merr)
	}
	out := []AdminMember{}
	for _, p := range r.eng.People() {
		row := AdminMember{User: p.User, Name: p.Name, Role: p.Role, Revoked: p.Revoked, You: p.You, Joined: p.Joined.UnixMilli(), Devices: []MemberDevice{}}
		for _, d := range devs {
			if d.User == p.User {
				row.Devices = append(row.Devices, MemberDevice{Device: d.Device, Revoked: d.Revoked, You: d.You})
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// RemovePerson removes a person from the workspace (channel "") or from
// one explicit channel, resuming the unfinished removal of the same person
// if there is one; progress arrives as "removal/<step>" progress events.
func (w *Workspaces) RemovePerson(ws, user, channel string, reapprove bool) (Removal, error) {
	r, err := w.run(ws)
	if err != nil {
		return Removal{}, err
	}
	ctx, cancel := w.callCtx()
	cancel()
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), removalTimeout)
	defer cancel()
	op, rerr := r.eng.Remove(ctx, user, engine.RemoveOptions{Channel: channel, Reapprove: reapprove})
	if rerr != nil && !(errors.Is(rerr, lifecycle.ErrPaused) && op != nil) {
		return Removal{}, toError(rerr)
	}
	out := Removal{Operation: op.ID.Hex(), State: string(op.State), Intervening: append([]string{}, op.Intervening...)}
	if op.Receipt != nil {
		rc := toReceipt(*op.Receipt)
		out.Receipt = &rc
	}
	return out, nil
}

// Receipts lists the removal receipts of the membership log.
func (w *Workspaces) Receipts(ws string) ([]Receipt, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []Receipt{}
	for _, rc := range r.eng.Receipts() {
		out = append(out, toReceipt(rc))
	}
	return out, nil
}

// SetAdmin promotes (admin true) or demotes a person; demoting the last
// admin is refused (removal/last_admin).
func (w *Workspaces) SetAdmin(ws, user string, admin bool) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	f := r.eng.Demote
	if admin {
		f = r.eng.Promote
	}
	if err := f(ctx, user); err != nil {
		return toError(err)
	}
	return nil
}

func toReceipt(r lifecycle.Receipt) Receipt {
	out := Receipt{Operation: r.Operation.Hex(), User: r.User.Hex(), Name: r.Name, DevicesRevoked: r.DevicesRevoked,
		AgentsRevoked: r.AgentsRevoked, AccessVersion: r.AccessVersion, At: r.At.UnixMilli(), Groups: []RotatedGroup{}}
	if !r.Channel.IsZero() {
		out.Channel = r.Channel.Hex()
	}
	for _, g := range r.Groups {
		out.Groups = append(out.Groups, RotatedGroup{Name: g.Name, Epoch: g.Epoch})
	}
	return out
}
