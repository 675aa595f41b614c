package engine

import (
	"context"
	"strings"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Direct messages (spec/channels.md "Explicit groups and the pending add",
// its DM paragraph; docs/protocol/dm.md). A DM is an explicit, closed group
// whose id is H("weald/dm" ‖ workspace_id ‖ min(u1,u2) ‖ max(u1,u2)): the
// first message to a person records the group in the roster, and the
// roster's linear head decides who created it when both people start at
// once. The creating device makes the MLS group and adds every live device
// of both users; the other side adopts that group (its devices enter by the
// Welcome) and its message, kept in the outbox meanwhile, goes out then.

// The DM refusals.
var (
	ErrDMSelf = errcode.New("dm/self", "a direct message needs another person; that user is you")
	ErrNoDM   = errcode.New("dm/none", "there is no direct message with that person yet; send one to start it")
)

// DMResult is what SendDM did.
type DMResult struct {
	Channel string  `json:"channel"` // the DM's group id (hex)
	Peer    string  `json:"peer"`    // the other person's user id (hex)
	Created bool    `json:"created"` // this device recorded the DM (it won the roster head)
	Message Message `json:"message"` // sent, or State "pending" while this device waits to be added
}

// dmName is the roster name of the DM with id; the app shows a DM by the
// other person instead.
func dmName(id identity.GroupID) string { return "dm-" + hexID(id).hex()[:12] }

// SendDM sends text to the DM with user (a user id, or 8+ hex digits of
// one), creating the DM on the first message.
func (e *Engine) SendDM(ctx context.Context, user, text string) (DMResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return DMResult{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return DMResult{}, err
	}
	peer, err := e.findUser(user)
	if err != nil {
		return DMResult{}, err
	}
	me := identity.UserID(e.meta.User)
	if peer.ID == me {
		return DMResult{}, ErrDMSelf
	}
	id := roster.DMGroupID(e.wsID(), me, peer.ID)
	res := DMResult{Channel: hexID(id).hex(), Peer: hexID(peer.ID).hex()}
	gi, ok := e.roster.Group(id)
	if !ok && e.roster.LiveGroups() >= groups.MaxGroups {
		return res, groups.ErrGroupsLimit
	}
	if !ok {
		// The roster orders concurrent starts: the second append meets
		// the first on the head and finds the DM recorded (build returns
		// nothing then), so one device only ever creates it.
		if err := e.crash("dm_start"); err != nil {
			return res, err
		}
		if err := e.appendRoster(ctx, func() (roster.Body, error) {
			if _, ok := e.roster.Group(id); ok {
				return nil, nil
			}
			return roster.NewDM(e.wsID(), me, peer.ID, dmName(id)), nil
		}); err != nil {
			return res, err
		}
		if gi, ok = e.roster.Group(id); !ok {
			return res, ErrNoDM
		}
		e.emit(Event{Kind: EventChannels})
	}
	if gi.Deleted {
		return res, ErrNoDM
	}
	res.Created = gi.Policy.CreatedBy == e.devID
	if err := e.ensureDM(ctx, gi); err != nil {
		return res, err
	}
	if !e.member(id) {
		// Another device recorded the DM: its Welcome may be there.
		if err := e.acceptWelcomes(ctx); err != nil {
			return res, err
		}
	}
	if e.member(id) {
		res.Message, err = e.sendText(ctx, gi, post{Text: text}, nil)
		return res, err
	}
	// Not added yet (the other side won the start and has not committed
	// its add): the message waits in the outbox and is sent once the
	// Welcome has added this device (drainOutbox).
	res.Message, err = e.enqueue(ctx, id, text)
	return res, err
}

// ensureDM makes the DM group of a DM this device recorded (when nothing
// is in its log yet: the creation was interrupted before the group was
// made), and, as a member, adds every live device of both users that is
// not in it yet nor waiting as a pending add: a DM's new devices join it
// the same way.
func (e *Engine) ensureDM(ctx context.Context, gi roster.GroupInfo) error {
	id := gi.Policy.Group
	if !e.member(id) && gi.Policy.CreatedBy == e.devID {
		envs, err := e.fetchAll(ctx, wire.ID(id), 0)
		if err != nil {
			return err
		}
		if len(envs) > 0 {
			return nil // made before, and this device's state is gone
		}
		if err := e.ensureOwnGroup(ctx, gi); err != nil {
			return err
		}
	}
	g := e.groups[id]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return nil
	}
	if err := e.catchUp(ctx, g); err != nil {
		return err
	}
	in := e.groupDevices(g)
	var missing []identity.DeviceID
	for _, u := range gi.DMUsers {
		ui, ok := e.roster.User(u)
		if !ok {
			continue
		}
		for _, d := range ui.Devices {
			if e.roster.DeviceLive(d) && !in[d] && !isPending(gi, d) {
				missing = append(missing, d)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err := e.addMembers(ctx, gi, missing)
	return err
}

// ensureDMs runs ensureDM for every DM of this device's user.
func (e *Engine) ensureDMs(ctx context.Context) error {
	me := identity.UserID(e.meta.User)
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Policy.Kind != roster.KindDM || (gi.DMUsers[0] != me && gi.DMUsers[1] != me) {
			continue
		}
		if err := e.ensureDM(ctx, gi); err != nil {
			return err
		}
	}
	return nil
}

// dmWaiting reports whether a DM of this device's user is recorded that
// this device is not in yet (its Welcome is awaited, so Run keeps
// retrying).
func (e *Engine) dmWaiting() bool {
	me := identity.UserID(e.meta.User)
	for _, gi := range e.roster.Groups() {
		if !gi.Deleted && gi.Policy.Kind == roster.KindDM && (gi.DMUsers[0] == me || gi.DMUsers[1] == me) && !e.member(gi.Policy.Group) {
			return true
		}
	}
	return false
}

// dmPeer returns the other user of a DM.
func (e *Engine) dmPeer(gi roster.GroupInfo) identity.UserID {
	if gi.DMUsers[0] == identity.UserID(e.meta.User) {
		return gi.DMUsers[1]
	}
	return gi.DMUsers[0]
}

// resolveDM finds the DM with "@USER".
func (e *Engine) resolveDM(s string) (roster.GroupInfo, error) {
	u, err := e.findUser(strings.TrimPrefix(s, "@"))
	if err != nil {
		return roster.GroupInfo{}, err
	}
	me := identity.UserID(e.meta.User)
	if u.ID == me {
		return roster.GroupInfo{}, ErrDMSelf
	}
	gi, ok := e.roster.Group(roster.DMGroupID(e.wsID(), me, u.ID))
	if !ok || gi.Deleted {
		return roster.GroupInfo{}, ErrNoDM
	}
	return gi, nil
}

// FlushOutbox syncs (a DM's Welcome is accepted there) and sends what waits
// in the outbox; it returns how many messages still wait (not failed).
func (e *Engine) FlushOutbox(ctx context.Context) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.sync(ctx); err != nil {
		return 0, err
	}
	if err := e.drainOutbox(ctx); err != nil {
		return 0, err
	}
	n := 0
	for i := range e.outbox {
		if e.outbox[i].Failed == "" {
			n++
		}
	}
	return n, nil
}
