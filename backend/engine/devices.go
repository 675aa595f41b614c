package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/roster"
)

// Key compromise: a lost or stolen device (spec/lifecycle.md "Key
// compromise": "Same machinery as removal, scoped to one device").

// Device is one device of a user.
type Device struct {
	Device    string     `json:"device"` // device id (hex)
	User      string     `json:"user"`
	This      bool       `json:"this,omitempty"`
	Probation bool       `json:"probation,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	Admitted  int        `json:"admitted"` // roster index
}

// Devices lists this user's devices in order of admission.
func (e *Engine) Devices() []Device {
	e.mu.Lock()
	defer e.mu.Unlock()
	u, ok := e.roster.User(identity.UserID(e.meta.User))
	if !ok {
		return []Device{}
	}
	out := []Device{}
	for _, d := range u.Devices {
		di, _ := e.roster.Device(d)
		out = append(out, Device{Device: hexID(d).hex(), User: hexID(u.ID).hex(), This: d == e.devID,
			Probation: di.Probation, RevokedAt: di.RevokedAt, Admitted: di.Admitted.Index})
	}
	return out
}

// DeviceRevocation is what RevokeDevice did.
type DeviceRevocation struct {
	Device string   `json:"device"`
	Agents int      `json:"agents_revoked"`
	Groups []string `json:"groups_rotated"` // names
	// AccessVersion is the access set published without the device (0
	// when this device is no admin: an admin's client publishes it on its
	// next sync, and until then the relay still admits the device).
	AccessVersion uint64 `json:"access_set_version"`
}

// Errors of device revocation.
var (
	ErrUnknownDevice = errcode.New("device/unknown", "no device of this workspace has that id")
	ErrRevokeSelf    = errcode.New("device/self", "this is the device you are using; revoke it from another of your devices")
	ErrNotYourDevice = errcode.New("device/not_yours", "only an admin can revoke another person's device")
)

// RevokeDevice revokes one device (a 64-hex id or a unique prefix of at
// least 8 hex digits): a device of this user, or any device when this
// device is an admin's. In order: one roster.revoke of the device and the
// agents it issued; a Remove commit in every group this client is in that
// holds one of their leaves; an access set without it (admins). Run again,
// it finds each step done.
func (e *Engine) RevokeDevice(ctx context.Context, device string) (DeviceRevocation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var res DeviceRevocation
	if err := e.connect(ctx); err != nil {
		return res, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return res, err
	}
	d, err := e.findDevice(device)
	if err != nil {
		return res, err
	}
	res.Device = hexID(d.ID).hex()
	if d.ID == e.devID {
		return res, ErrRevokeSelf
	}
	admin := e.roster.IsAdmin(e.devID)
	if d.User != identity.UserID(e.meta.User) && !admin {
		return res, ErrNotYourDevice
	}
	owner, _ := e.roster.User(d.User)
	if d.RevokedAt == nil && e.roster.IsAdmin(d.ID) && e.roster.LiveAdmins() <= 1 {
		// Is it the owner's last admin device?
		others := 0
		for _, od := range owner.Devices {
			if od != d.ID && e.roster.IsAdmin(od) {
				others++
			}
		}
		if others == 0 {
			return res, lifecycle.ErrLastAdmin
		}
	}
	// The device and every live agent whose certificate it issued.
	var leaves []lifecycle.ID
	targets := []identity.Principal{}
	if d.RevokedAt == nil {
		targets = append(targets, identity.DevicePrincipal(d.ID))
	}
	leaves = append(leaves, lifecycle.ID(d.ID))
	for _, a := range e.roster.Agents() {
		if a.Cert.IssuingDevice == d.ID {
			leaves = append(leaves, lifecycle.ID(a.ID))
			if a.RevokedAt == nil {
				targets = append(targets, identity.AgentPrincipal(a.ID))
				res.Agents++
			}
		}
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		var live []identity.Principal
		for _, p := range targets {
			if _, revoked := e.principalRevoked(p); !revoked {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return nil, nil
		}
		return &roster.Revoke{RevokedAt: e.now(), Targets: live}, nil
	}); err != nil {
		return res, err
	}
	// One Remove commit per group holding one of their leaves, made and
	// sent 64 groups at a time (removal_rotate.go).
	res.Groups = []string{}
	op := &lifecycle.RemovalOperation{Leaves: leaves}
	var slots []*lifecycle.GroupSlot
	for _, gi := range e.roster.Groups() {
		if g := e.groups[gi.Policy.Group]; !gi.Deleted && g != nil && g.mls != nil && g.mls.Active() {
			slots = append(slots, &lifecycle.GroupSlot{Group: lifecycle.ID(gi.Policy.Group), Name: gi.Name})
		}
	}
	for i := 0; i < len(slots); i += rotateBatch {
		if err := (removalSteps{e}).Rotate(ctx, op, slots[i:min(i+rotateBatch, len(slots))]); err != nil {
			return res, err
		}
	}
	for _, slot := range slots {
		if slot.Rotated {
			res.Groups = append(res.Groups, slot.Name)
		}
	}
	if admin {
		if err := e.publishAccessSet(ctx); err != nil {
			return res, err
		}
		cur, err := e.client.CurrentAccessSet(ctx)
		if err != nil {
			return res, err
		}
		res.AccessVersion = cur.Set.Version
	}
	e.emit(Event{Kind: EventRoster})
	return res, nil
}

// findDevice resolves a device id or a unique prefix of 8+ hex digits.
func (e *Engine) findDevice(s string) (roster.DeviceInfo, error) {
	q := strings.ToLower(strings.TrimSpace(s))
	var found []roster.DeviceInfo
	if len(q) >= 8 {
		for _, u := range e.roster.Users() {
			for _, d := range u.Devices {
				if strings.HasPrefix(hexID(d).hex(), q) {
					di, _ := e.roster.Device(d)
					found = append(found, di)
				}
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return roster.DeviceInfo{}, fmt.Errorf("%w (%q)", ErrUnknownDevice, q)
	default:
		return roster.DeviceInfo{}, errcode.Errorf("device/ambiguous", "%q names more than one device; give more of its id", q)
	}
}

// principalRevoked reports whether p is in the roster and whether it is
// revoked.
func (e *Engine) principalRevoked(p identity.Principal) (known, revoked bool) {
	switch p.Kind {
	case identity.KindDevice:
		d, ok := e.roster.Device(identity.DeviceID(p.ID))
		return ok, ok && d.RevokedAt != nil
	case identity.KindAgent:
		for _, a := range e.roster.Agents() {
			if a.ID == identity.AgentID(p.ID) {
				return true, a.RevokedAt != nil
			}
		}
	}
	return false, false
}

// Errors of approving a recovered device.
var (
	ErrNotOnProbation  = errcode.New("device/not_on_probation", "that device is not on probation; there is nothing to approve")
	ErrApproveNotAdmin = errcode.New("device/approve_not_admin", "only an admin device admitted before the recovered device can approve it")
)

// ApproveDevice ends the probation of a device recovered with a recovery
// phrase (spec/lifecycle.md "Detection": the approval request every
// pre-existing admin gets). Only an admin device admitted before it may
// (roster approve-device); the access set is then republished, so a
// recovered admin's device becomes an admin device at the relay too.
func (e *Engine) ApproveDevice(ctx context.Context, device string) (Device, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return Device{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return Device{}, err
	}
	d, err := e.findDevice(device)
	if err != nil {
		return Device{}, err
	}
	out := Device{Device: hexID(d.ID).hex(), User: hexID(d.User).hex(), Admitted: d.Admitted.Index}
	if !d.Probation || d.RevokedAt != nil {
		return out, ErrNotOnProbation
	}
	me, _ := e.roster.Device(e.devID)
	if !e.roster.IsAdmin(e.devID) || me.Admitted.Index >= d.Admitted.Index {
		return out, ErrApproveNotAdmin
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if cur, ok := e.roster.Device(d.ID); !ok || !cur.Probation {
			return nil, nil
		}
		return &roster.ApproveDevice{Device: d.ID}, nil
	}); err != nil {
		return out, err
	}
	if err := e.publishAccessSet(ctx); err != nil {
		return out, err
	}
	e.emit(Event{Kind: EventRoster})
	return out, nil
}
