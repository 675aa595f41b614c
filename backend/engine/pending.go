package engine

import (
	"context"
	"errors"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Explicit adds and the pending add (spec/channels.md "Explicit groups and
// the pending add"; docs/protocol/groups.md "Explicit adds").

// AddResult is what an add did: the devices added by the commit, and those
// recorded as pending adds (no key package on the relay yet).
type AddResult struct {
	Added   []string `json:"added"`   // device ids (hex)
	Pending []string `json:"pending"` // device ids (hex)
}

// AddPeople adds every live device of each user to an explicit channel
// (step 1): users are display names, user ids in hex, or unique prefixes
// of at least 8 hex digits (FindUser).
func (e *Engine) AddPeople(ctx context.Context, channel string, users []string) (AddResult, error) {
	e.mu.Lock()
	if err := e.connect(ctx); err != nil {
		e.mu.Unlock()
		return AddResult{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		e.mu.Unlock()
		return AddResult{}, err
	}
	var devices []identity.DeviceID
	for _, u := range users {
		ui, err := e.findUser(u)
		if err != nil {
			e.mu.Unlock()
			return AddResult{}, err
		}
		for _, d := range ui.Devices {
			if e.roster.DeviceLive(d) {
				devices = append(devices, d)
			}
		}
	}
	e.mu.Unlock()
	return e.AddMembers(ctx, channel, devices)
}

// AddMembers adds devices to an explicit group this device is in, with one
// batched Add + Commit (step 1); the Welcome goes into the group's log,
// where the added devices find it on their next sync. A device without a
// key package on the relay (not even a last-resort one) is recorded as a
// pending add in the roster instead (step 2), which any member's client
// completes when it connects (completePending). Devices already in the
// group are skipped. More than 64 pending adds in the group is refused
// (roster/limit_pending) before anything is committed.
func (e *Engine) AddMembers(ctx context.Context, channel string, devices []identity.DeviceID) (AddResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return AddResult{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return AddResult{}, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return AddResult{}, err
	}
	return e.addMembers(ctx, gi, devices)
}

// addMembers is AddMembers with e.mu held, connected and the roster synced.
func (e *Engine) addMembers(ctx context.Context, gi roster.GroupInfo, devices []identity.DeviceID) (AddResult, error) {
	res := AddResult{Added: []string{}, Pending: []string{}}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return res, ErrNotMember
	}
	in := e.groupDevices(g)
	seen := map[identity.DeviceID]bool{}
	var kps [][]byte
	var added, pending []identity.DeviceID
	for _, d := range devices {
		if in[d] || seen[d] {
			continue
		}
		seen[d] = true
		if e.roster.Entitlement(gi.Policy.Group, identity.DevicePrincipal(d), e.now(), e.member) != roster.JoinMemberAdd {
			return res, errcode.Errorf("join/not_entitled", "device %s cannot be added to %s", d.ShortString(), gi.Name)
		}
		kp, err := e.claimFor(ctx, g, d)
		if err != nil {
			return res, err
		}
		if kp == nil {
			if !isPending(gi, d) {
				pending = append(pending, d)
			}
			continue
		}
		kps = append(kps, kp)
		added = append(added, d)
	}
	var body *roster.PendingAdd
	if len(pending) > 0 {
		body = &roster.PendingAdd{Group: gi.Policy.Group, Devices: pending}
		// Refuse what the roster would refuse (the 64 limit) before the
		// commit: nothing is sent then.
		if err := e.checkRosterBody(ctx, body); err != nil {
			return res, err
		}
	}
	if len(kps) > 0 {
		if err := e.catchUp(ctx, g); err != nil {
			return res, err
		}
		if err := e.commit(ctx, g, mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true}); err != nil {
			return res, err
		}
		// An add that completes a pending one resolves it.
		for _, d := range added {
			if err := e.resolvePending(ctx, gi.Policy.Group, d); err != nil {
				return res, err
			}
		}
	}
	if body != nil {
		if err := e.appendRoster(ctx, func() (roster.Body, error) { return body, nil }); err != nil {
			return res, err
		}
		e.emit(Event{Kind: EventRoster})
	}
	for _, d := range added {
		res.Added = append(res.Added, hexID(d).hex())
	}
	for _, d := range pending {
		res.Pending = append(res.Pending, hexID(d).hex())
	}
	return res, nil
}

// claimFor claims and checks a key package of d for g; nil when d has none
// on the relay.
func (e *Engine) claimFor(ctx context.Context, g *group, d identity.DeviceID) ([]byte, error) {
	c, err := e.claim(ctx, d)
	var we *wire.Error
	if errors.As(err, &we) && we.Code == wire.CodeKeyPackageNone {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := e.checkClaimed(ctx, g, d, c.KeyPackage); err != nil {
		return nil, err
	}
	return c.KeyPackage, nil
}

// claim claims a key package of device d (the refusal of an invite
// grant's connection handled by asDevice).
func (e *Engine) claim(ctx context.Context, d identity.DeviceID) (*wire.KeyPackageClaimed, error) {
	c, err := e.client.ClaimKeyPackage(ctx, wire.ID(d))
	if again, rerr := e.asDevice(ctx, err); rerr != nil {
		return nil, rerr
	} else if again {
		c, err = e.client.ClaimKeyPackage(ctx, wire.ID(d))
	}
	return c, err
}

// asDevice answers a request refused because this device is still on its
// invite grant's connection, which may not claim key packages: it
// reconnects with the device key (connect picks it once the device is in
// the access set) and reports that the request is to be sent once more.
// Any other err leaves the connection as it is and reports false.
func (e *Engine) asDevice(ctx context.Context, err error) (bool, error) {
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeKeyPackageKind || e.meta.Invite == nil {
		return false, nil
	}
	e.client.Close()
	e.client = nil
	if err := e.connect(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// claimMany claims one key package per entry of owners, in one request per
// wire.MaxClaimBatch entries (wire.KeyPackageClaimBatch); an entry whose
// owner had none left is not Found. A relay older than the batch frame is
// asked one claim at a time.
func (e *Engine) claimMany(ctx context.Context, owners []wire.ID) ([]wire.ClaimedItem, error) {
	out := make([]wire.ClaimedItem, 0, len(owners))
	for len(owners) > 0 {
		part := owners[:min(len(owners), wire.MaxClaimBatch)]
		owners = owners[len(part):]
		items, err := e.client.ClaimKeyPackages(ctx, part)
		if again, rerr := e.asDevice(ctx, err); rerr != nil {
			return nil, rerr
		} else if again {
			items, err = e.client.ClaimKeyPackages(ctx, part)
		}
		if errors.Is(err, wire.Errorf(wire.CodeUnknownFrame, "")) {
			for _, o := range part {
				c, err := e.claim(ctx, identity.DeviceID(o))
				var we *wire.Error
				switch {
				case errors.As(err, &we) && we.Code == wire.CodeKeyPackageNone:
					out = append(out, wire.ClaimedItem{Owner: o})
				case err != nil:
					return nil, err
				default:
					out = append(out, wire.ClaimedItem{Owner: o, Found: true, KeyPackage: c.KeyPackage, LastResort: c.LastResort})
				}
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// groupDevices is the set of devices with a leaf in g.
func (e *Engine) groupDevices(g *group) map[identity.DeviceID]bool {
	in := map[identity.DeviceID]bool{}
	for _, m := range g.mls.Members() {
		if len(m.Credential.Identity) == 32 {
			in[identity.DeviceID(m.Credential.Identity)] = true
		}
	}
	return in
}

func isPending(gi roster.GroupInfo, d identity.DeviceID) bool {
	for _, p := range gi.Pending {
		if p.Device == d {
			return true
		}
	}
	return false
}

// resolvePending records that d's pending add to group id is done, if it
// is still recorded.
func (e *Engine) resolvePending(ctx context.Context, id identity.GroupID, d identity.DeviceID) error {
	return e.appendRoster(ctx, func() (roster.Body, error) {
		gi, ok := e.roster.Group(id)
		if !ok || !isPending(gi, d) {
			return nil, nil
		}
		return &roster.PendingResolve{Group: id, Device: d, Completed: true}, nil
	})
}

// completePending completes the pending adds of the explicit groups this
// device is in (step 3): each pending device that now has a key package on
// the relay is added, one commit per group, and its pending add resolved;
// one already in the group (added by another member) is resolved only.
func (e *Engine) completePending(ctx context.Context) error {
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || len(gi.Pending) == 0 || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		if err := e.catchUp(ctx, g); err != nil {
			return err
		}
		in := e.groupDevices(g)
		var kps [][]byte
		var done []identity.DeviceID
		for _, p := range gi.Pending {
			if in[p.Device] {
				done = append(done, p.Device)
				continue
			}
			if e.roster.Entitlement(gi.Policy.Group, identity.DevicePrincipal(p.Device), e.now(), e.member) != roster.JoinMemberAdd {
				continue // revoked since: left for a member to cancel
			}
			kp, err := e.claimFor(ctx, g, p.Device)
			var we *wire.Error
			if errors.Is(err, ErrKeyPackageRefused) || errors.As(err, &we) && we.Code == wire.CodeLimitRate {
				continue // alerted, or claimed too fast: the others still go in, this one next sync
			}
			if err != nil {
				return err
			}
			if kp != nil {
				kps = append(kps, kp)
				done = append(done, p.Device)
			}
		}
		if len(kps) > 0 {
			if err := e.commit(ctx, g, mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true}); err != nil {
				return err
			}
		}
		for _, d := range done {
			if err := e.resolvePending(ctx, gi.Policy.Group, d); err != nil {
				return err
			}
		}
		if len(done) > 0 {
			e.emit(Event{Kind: EventRoster})
		}
	}
	return nil
}

// PendingMember is a pending add as a channel's member list shows it:
// "waiting for that device to check in" since the date it was recorded.
type PendingMember struct {
	User    string    `json:"user"`   // user id (hex)
	Device  string    `json:"device"` // device id (hex)
	AddedBy string    `json:"added_by"`
	Since   time.Time `json:"since"`
	Channel string    `json:"channel"` // the channel's name
}

// PendingAdds lists a channel's pending adds, oldest first; with channel
// "" those of every channel, each with its channel's name.
func (e *Engine) PendingAdds(channel string) ([]PendingMember, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var groups []roster.GroupInfo
	if channel == "" {
		groups = e.roster.Groups()
	} else {
		gi, err := e.resolveChannel(channel)
		if err != nil {
			return nil, err
		}
		groups = []roster.GroupInfo{gi}
	}
	out := []PendingMember{}
	for _, gi := range groups {
		if gi.Deleted {
			continue
		}
		for _, p := range gi.Pending {
			pm := PendingMember{Device: hexID(p.Device).hex(), AddedBy: hexID(p.AddedBy).hex(), Since: p.Since.UTC(), Channel: gi.Name}
			if d, ok := e.roster.Device(p.Device); ok {
				pm.User = hexID(d.User).hex()
			}
			out = append(out, pm)
		}
	}
	return out, nil
}
