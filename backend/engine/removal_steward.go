package engine

import (
	"context"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
)

// revokedLeafGrace is how long the device that revoked a device has to
// rotate a group itself before any other member of the group does it.
const revokedLeafGrace = 10 * time.Minute

// stewardRevokedDevices completes a removal in the groups the remover is
// not in (spec/lifecycle.md "Removing a person", 3: "a Remove commit in
// every group any of those principals belonged to"). The remover commits
// only where it holds the group's state; an explicit or closed group it is
// not in is its members' to rotate: in every group this device is in, the
// leaves of devices the roster revoked at least revokedLeafGrace ago are
// removed with one commit per group (evict treats a lost race as done, so
// several members acting at once leave one Remove). The grace leaves the
// remover's own commits first, so its receipt lists the groups it rotated.
func (e *Engine) stewardRevokedDevices(ctx context.Context) error {
	if e.agentMode() || !e.roster.DeviceLive(e.devID) {
		return nil
	}
	now := e.now()
	for _, gi := range e.roster.Groups() {
		id := gi.Policy.Group
		if gi.Deleted || !e.member(id) {
			continue
		}
		g := e.groups[id]
		var leaves []uint32
		for _, m := range g.mls.Members() {
			if len(m.Credential.Identity) != 32 {
				continue
			}
			d, ok := e.roster.Device(identity.DeviceID(m.Credential.Identity))
			if !ok {
				continue
			}
			if at, revoked := e.deviceRevokedAt(d); revoked && !now.Before(at.Add(revokedLeafGrace)) {
				leaves = append(leaves, m.Index)
			}
		}
		if len(leaves) > 0 {
			if err := e.evict(ctx, g, leaves); err != nil {
				return err
			}
			e.emit(Event{Kind: EventChannels})
		}
	}
	return nil
}

// deviceRevokedAt reports whether d is revoked, itself or with its user,
// and since when.
func (e *Engine) deviceRevokedAt(d roster.DeviceInfo) (time.Time, bool) {
	if d.RevokedAt != nil {
		return *d.RevokedAt, true
	}
	if u, ok := e.roster.User(d.User); ok && u.RevokedAt != nil {
		return *u.RevokedAt, true
	}
	return time.Time{}, false
}
