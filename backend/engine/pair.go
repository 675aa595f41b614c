package engine

import (
	"context"
	"time"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Pairing a second device (issue 13 "A second device";
// docs/protocol/devices.md). A device the person already has writes a
// pair-device record (a one-use invite bound to its user) and shows a
// pairing link; the new device redeems it under the same user, enters the
// root by external commit against the pairing's invite bundle, self-joins
// every parent channel, and the person's other devices add it to the
// explicit channels and DMs they are in.

// DefaultPairingLife is how long a pairing link stays usable unless told.
const DefaultPairingLife = 15 * time.Minute

// Errors of pairing.
var (
	ErrPairExpiry       = errcode.New("pair/bad_expiry", "a pairing link lasts from a minute to an hour")
	ErrPairNotPublished = errcode.New("pair/not_published", "the relay does not know this pairing link yet: an admin's app publishes it when it next syncs; try again then")
	ErrPairLinkKind     = errcode.New("pair/wrong_link", "this is an invite link, not a pairing link: join with it instead")
)

// Pairing is a pairing link made by PairDevice.
type Pairing struct {
	Link    string    `json:"link"` // weald://pair?…; carries secrets, shown once
	Expires time.Time `json:"expires"`
	// Published: the relay lets the new device connect with it now (an
	// admin's device published the access set). A member's pairing waits
	// for an admin's app to publish it.
	Published bool `json:"published"`
}

// PairDevice makes a pairing link for a new device of this person: a
// pair-device record in the roster, its grant in the access set (at once
// when this device is an admin's), a bundle for it in the root log.
func (e *Engine) PairDevice(ctx context.Context, life time.Duration) (Pairing, error) {
	if life == 0 {
		life = DefaultPairingLife
	}
	if life < time.Minute || life > roster.MaxPairingLife {
		return Pairing{}, ErrPairExpiry
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.agentMode() {
		return Pairing{}, ErrAgentOnly
	}
	if err := e.connect(ctx); err != nil {
		return Pairing{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return Pairing{}, err
	}
	if !e.member(e.roster.RootGroup()) {
		return Pairing{}, ErrNotReady
	}
	priv, pub, err := groups.NewUpdateKey(e.rand)
	if err != nil {
		return Pairing{}, err
	}
	var body *roster.PairDevice
	var sec identity.InviteSecret
	expires := e.now().Add(life)
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		body, sec, err = roster.NewPairing(e.rand, identity.UserID(e.meta.User), expires, pub)
		return body, err
	}); err != nil {
		return Pairing{}, err
	}
	p := Pairing{Expires: expires.UTC()}
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return Pairing{}, err
		}
		p.Published = true
	}
	info, _ := e.roster.Invite(body.ID)
	if err := e.sendInviteBundle(ctx, info); err != nil {
		return Pairing{}, err
	}
	l := groups.Link{Relay: e.meta.Relay, Workspace: e.wsID(), Invite: body.ID, Secret: sec, UpdatePriv: priv, Pair: true}
	p.Link = l.String()
	e.emit(Event{Kind: EventRoster})
	return p, nil
}

// pairedUser checks a redemption's link against the roster record it
// names: a pairing link must name a pairing, an invite link an invite. For
// a pairing it makes this device's user the pairing's user.
func (e *Engine) pairedUser(ctx context.Context, inv roster.InviteInfo) error {
	if e.meta.Invite.Pair != (inv.Pairing != nil) {
		if inv.Pairing != nil {
			return ErrNoInvite
		}
		return ErrPairLinkKind
	}
	if inv.Pairing == nil || e.meta.User == hexID(*inv.Pairing) {
		return nil
	}
	e.meta.User = hexID(*inv.Pairing)
	return e.persistMeta(ctx)
}

// notPublished reads a pairing's refused grant connection: the grant is
// not in the access set yet (a member's pairing before an admin published).
func notPublished(err error) bool {
	c, _ := errcode.Of(err)
	return c == errcode.Code(wire.CodeAuthUnknownKey)
}

// addOwnDevices adds this person's other devices to the explicit channels
// this device is in (DMs: ensureDM): a device paired since, once it is in
// the root, gets a leaf in each, one batched Add per channel (a pending add
// where it has no key package).
func (e *Engine) addOwnDevices(ctx context.Context) error {
	for _, gi := range e.roster.Groups() {
		missing := e.ownDevicesMissing(gi)
		if len(missing) == 0 {
			continue
		}
		g := e.groups[gi.Policy.Group]
		if err := e.catchUp(ctx, g); err != nil {
			return err
		}
		if missing = e.ownDevicesMissing(gi); len(missing) == 0 {
			continue
		}
		if _, err := e.addMembers(ctx, gi, missing); err != nil {
			return err
		}
	}
	return nil
}

// ownDevicesMissing lists this person's live devices, other than this one,
// that are in the root but not in explicit channel gi (nor pending there),
// when this device is in gi.
func (e *Engine) ownDevicesMissing(gi roster.GroupInfo) []identity.DeviceID {
	if gi.Deleted || gi.Policy.Kind != roster.KindChannel || gi.Policy.Admission != roster.AdmissionExplicit {
		return nil
	}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return nil
	}
	u, ok := e.roster.User(identity.UserID(e.meta.User))
	if !ok {
		return nil
	}
	var in map[identity.DeviceID]bool
	var out []identity.DeviceID
	for _, d := range u.Devices {
		if d == e.devID || !e.roster.DeviceLive(d) || isPending(gi, d) || !e.inRootTree(d) {
			continue
		}
		if in == nil {
			in = e.groupDevices(g)
		}
		if !in[d] {
			out = append(out, d)
		}
	}
	return out
}

// ownDevicesLeft reports whether a device of this person is in the root
// and still missing from an explicit channel this device is in: Run
// retries (its root join comes as an envelope, not a roster change).
func (e *Engine) ownDevicesLeft() bool {
	if e.agentMode() {
		return false
	}
	for _, gi := range e.roster.Groups() {
		if len(e.ownDevicesMissing(gi)) > 0 {
			return true
		}
	}
	return false
}

// pairWindow is how long after its pairing a new device keeps looking for
// the Welcomes its person's other devices send it (it has no event for
// them: it is in none of those groups yet).
const pairWindow = 10 * time.Minute

// pairedRecently reports whether this device's pairing finished less than
// pairWindow ago (Run keeps syncing with backoff until then).
func (e *Engine) pairedRecently() bool {
	iu := e.meta.Invite
	return iu != nil && iu.Pair && iu.Done && e.now().Before(iu.DoneAt.Add(pairWindow))
}
