package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls/framing"
	"weald/backend/roster"
	"weald/backend/wire"
)

// inviteUse is a redemption in progress (or done), persisted in meta.
type inviteUse struct {
	Invite     hexID  `json:"invite"`
	Secret     []byte `json:"secret"`
	UpdatePriv []byte `json:"update_priv"`
	Done       bool   `json:"done"`
	// Pair: a pairing link (a new device of an existing user); DoneAt is
	// when its redemption finished.
	Pair   bool      `json:"pair,omitempty"`
	DoneAt time.Time `json:"done_at,omitzero"`
}

// Errors of invites.
var (
	ErrNoInvite    = errcode.New("invite/unknown", "the roster holds no such invite")
	ErrNoBundle    = errcode.New("invite/no_bundle", "the relay holds no bundle for this invite yet; ask the inviter to open the app")
	ErrNotAdmin    = errcode.New("invite/not_admin", "only an admin can create invites")
	ErrStaleBundle = errcode.New("invite/stale_bundle", "the invite bundle is older than the workspace root; a member's app refreshes it when it next syncs, then run sync again")
)

// InviteOptions are an invite's choices (docs/protocol/invites.md).
type InviteOptions struct {
	Scopes  []string      // open channels besides the root, by name or id
	Role    roster.Role   // the role the joiner gets
	Expires time.Duration // from now
	Uses    int           // how many people may join with the link, 1 to MaxInviteUses
}

// MaxInviteUses bounds an invite's uses (the roster allows 1 to 1000).
const MaxInviteUses = 1000

// ErrInviteUses is an invite use count out of range.
var ErrInviteUses = errcode.New("invite/bad_uses", "an invite allows 1 to 1000 uses")

// CreateInvite creates a single-use invite; see CreateInviteWith.
func (e *Engine) CreateInvite(ctx context.Context, scopes []string, role roster.Role, expires time.Duration) (string, error) {
	return e.CreateInviteWith(ctx, InviteOptions{Scopes: scopes, Role: role, Expires: expires, Uses: 1})
}

// CreateInviteWith creates an invite (docs/protocol/invites.md): the
// roster record with the root and the named open channels as scopes, the
// grant in the access set, a bundle in the root log; it returns the link.
// A multi-use link admits up to o.Uses people, each with its own device key
// (the relay binds one key per use to the grant).
func (e *Engine) CreateInviteWith(ctx context.Context, o InviteOptions) (string, error) {
	if o.Uses < 1 || o.Uses > MaxInviteUses {
		return "", ErrInviteUses
	}
	if o.Role != roster.RoleAdmin && o.Role != roster.RoleMember {
		return "", errcode.New("invite/bad_role", "an invite's role is member or admin")
	}
	if o.Expires <= 0 {
		return "", errcode.New("invite/bad_expiry", "an invite must expire some time after now")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return "", err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return "", err
	}
	if !e.roster.IsAdmin(e.devID) {
		return "", ErrNotAdmin
	}
	var ids []identity.GroupID
	for _, s := range o.Scopes {
		gi, err := e.resolveChannel(s)
		if err != nil {
			return "", fmt.Errorf("%w: %q", err, s)
		}
		ids = append(ids, gi.Policy.Group)
	}
	priv, pub, err := groups.NewUpdateKey(e.rand)
	if err != nil {
		return "", err
	}
	var inv *roster.Invite
	var sec identity.InviteSecret
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		inv, sec, err = roster.NewInvite(e.rand, e.roster, ids, o.Role, e.now().Add(o.Expires), pub, uint16(o.Uses))
		return inv, err
	}); err != nil {
		return "", err
	}
	if err := e.publishAccessSet(ctx); err != nil {
		return "", err
	}
	info, _ := e.roster.Invite(inv.ID)
	if err := e.sendInviteBundle(ctx, info); err != nil {
		return "", err
	}
	l := groups.Link{Relay: e.meta.Relay, Workspace: e.wsID(), Invite: inv.ID, Secret: sec, UpdatePriv: priv}
	e.emit(Event{Kind: EventRoster})
	return l.String(), nil
}

// Invite is one invite record as the invite list shows it.
type Invite struct {
	ID        string    `json:"id"` // hex; what RevokeInvite takes
	Role      string    `json:"role"`
	Uses      int       `json:"uses"`
	MaxUses   int       `json:"max_uses"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	CreatedBy string    `json:"created_by"` // the creator's display name
	Mine      bool      `json:"mine"`       // created by this device
	Scopes    []string  `json:"scopes"`     // channel names beyond the workspace
	JoinedBy  []string  `json:"joined_by"`  // display names of those who joined with it
	// State is live, used (no uses left), expired or revoked.
	State string `json:"state"`
}

// Invites lists the workspace's invites, newest first (live ones and the
// others, with their state), from the local roster.
func (e *Engine) Invites() []Invite {
	e.mu.Lock()
	defer e.mu.Unlock()
	joined := map[roster.InviteID][]string{}
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			if di, ok := e.roster.Device(d); ok && di.Invite != nil && di.Admitted == u.Admitted {
				joined[*di.Invite] = append(joined[*di.Invite], e.userName(u.ID))
			}
		}
	}
	out := []Invite{}
	all := e.roster.Invites()
	for i := len(all) - 1; i >= 0; i-- {
		in := all[i]
		if in.Pairing != nil {
			continue // a pairing link, not an invite (PairDevice)
		}
		it := Invite{ID: hexID(in.Invite.ID).hex(), Role: in.Invite.Role.String(), Uses: in.Uses, MaxUses: int(in.Invite.MaxUses),
			Created: in.CreatedAt.UTC(), Expires: in.Invite.ExpiresAt.UTC(), Mine: in.CreatedBy == e.devID,
			Scopes: []string{}, JoinedBy: joined[in.Invite.ID]}
		if d, ok := e.roster.Device(in.CreatedBy); ok {
			it.CreatedBy = e.userName(d.User)
		}
		if it.JoinedBy == nil {
			it.JoinedBy = []string{}
		}
		for _, g := range in.Invite.Scopes {
			if gi, ok := e.roster.Group(g); ok && g != e.roster.RootGroup() && !gi.Deleted {
				it.Scopes = append(it.Scopes, gi.Name)
			}
		}
		switch {
		case in.Revoked:
			it.State = "revoked"
		case in.Uses >= int(in.Invite.MaxUses):
			it.State = "used"
		case !e.now().Before(in.Invite.ExpiresAt):
			it.State = "expired"
		case !e.roster.DeviceLive(in.CreatedBy):
			it.State = "revoked"
		default:
			it.State = "live"
		}
		out = append(out, it)
	}
	return out
}

// CanInvite reports whether this device may create invites (an admin,
// not on probation): members get no Invite button.
func (e *Engine) CanInvite() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.roster.IsAdmin(e.devID)
}

// RevokeInvite revokes an invite (hex id) with a roster invite-revoke
// operation (an admin, or the invite's creator, per roster rules) and
// republishes the access set without its grant, so the relay refuses the
// link from then on (auth/revoked). Any admin can do it: the roster holds
// every invite's grant hash.
func (e *Engine) RevokeInvite(ctx context.Context, invite string) error {
	var id roster.InviteID
	if err := parseHexID(invite, (*[32]byte)(&id)); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.RevokeInvite{Invite: id}, nil
	}); err != nil {
		return err
	}
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return err
		}
	}
	return nil
}

// sendInviteBundle seals the root's current state to one invite.
func (e *Engine) sendInviteBundle(ctx context.Context, info roster.InviteInfo) error {
	root := e.groups[e.roster.RootGroup()]
	if root != nil && root.pending == nil {
		if err := e.catchUp(ctx, root); err != nil {
			return err
		}
	}
	epoch, secret, ok := e.currentEnrol()
	if !ok || root == nil {
		return groups.ErrMissingParent
	}
	gi, err := root.mls.GroupInfo(true)
	if err != nil {
		return err
	}
	p := &groups.BundlePlain{GroupInfo: gi, Epoch: epoch, History: root.history, EnrolmentSecret: secret}
	b, err := groups.SealInviteBundle(e.rand, e.wsID(), info.Invite.ID, info.Invite.UpdatePub, p)
	if err != nil {
		return err
	}
	if _, err := e.sendCT(ctx, root, wire.KindInviteBundle, b.Encode()); err != nil {
		return err
	}
	return e.persistGroup(ctx, root)
}

func (e *Engine) liveInvite(inv roster.InviteInfo) bool {
	return !inv.Revoked && inv.Uses < int(inv.Invite.MaxUses) && e.now().Before(inv.Invite.ExpiresAt)
}

// needsBundle reports whether an invite still needs a current bundle: it is
// live, or a device admitted by it has not entered the root yet (its
// redemption was interrupted between the roster and the root join).
func (e *Engine) needsBundle(inv roster.InviteInfo) bool {
	if e.liveInvite(inv) {
		return true
	}
	if inv.Revoked || !e.now().Before(inv.Invite.ExpiresAt) {
		return false
	}
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			di, _ := e.roster.Device(d)
			if di.Invite != nil && *di.Invite == inv.Invite.ID && e.roster.DeviceLive(d) && !e.inRootTree(d) {
				return true
			}
		}
	}
	return false
}

// refreshInviteBundles re-issues a bundle for every invite that needs one
// after a root commit.
func (e *Engine) refreshInviteBundles(ctx context.Context) error {
	for _, inv := range e.roster.Invites() {
		if !e.needsBundle(inv) {
			continue
		}
		if err := e.sendInviteBundle(ctx, inv); err != nil {
			return err
		}
	}
	return nil
}

// Join redeems an invite link into a new workspace directory: the device
// enters the roster, then the root by external commit against its bundle,
// then self-joins every parent channel (docs/protocol/invites.md
// "Redemption"). Interrupted, it resumes on the next Sync.
func Join(ctx context.Context, opts Options, link string) (*Engine, error) {
	l, err := groups.ParseLink(link)
	if err != nil {
		return nil, err
	}
	if Exists(opts.Dir) {
		return nil, ErrExists
	}
	e, err := newEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	var user identity.UserID
	seed := make([]byte, 32)
	for _, b := range [][]byte{user[:], seed} {
		if _, err := io.ReadFull(e.rand, b); err != nil {
			e.db.close()
			return nil, err
		}
	}
	name := opts.DisplayName
	if l.Pair {
		name = "" // the person's name is in the roster already
	}
	e.meta = meta{Workspace: hexID(l.Workspace), DisplayName: name, Relay: l.Relay, User: hexID(user), DeviceSeed: seed,
		Steps: map[string]bool{}, Muted: map[string]bool{},
		Invite: &inviteUse{Invite: hexID(l.Invite), Secret: l.Secret.Bytes(), UpdatePriv: l.UpdatePriv, Pair: l.Pair}}
	if err := e.initKeys(); err != nil {
		e.db.close()
		return nil, err
	}
	e.roster = roster.New(roster.Options{})
	if err := e.persistMeta(ctx); err != nil {
		e.db.close()
		return nil, err
	}
	e.mu.Lock()
	err = e.redeem(ctx)
	if err == nil {
		err = e.joinLoop(ctx)
	}
	_, admitted := e.roster.Device(e.devID)
	e.mu.Unlock()
	if err != nil && l.Pair && !admitted {
		// Nothing of this device is in the workspace: the caller removes
		// the directory, so the same link can be tried again.
		e.Close()
		if notPublished(err) {
			err = ErrPairNotPublished
		}
		return nil, err
	}
	return e, err
}

// redeem runs (or resumes) the redemption.
func (e *Engine) redeem(ctx context.Context) error {
	iu := e.meta.Invite
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	inv, ok := e.roster.Invite(roster.InviteID(iu.Invite))
	if !ok {
		return ErrNoInvite
	}
	if err := e.pairedUser(ctx, inv); err != nil {
		return err
	}
	if _, admitted := e.roster.Device(e.devID); !admitted {
		sec, err := identity.InviteSecretFromBytes(iu.Secret)
		if err != nil {
			return err
		}
		if err := e.appendRoster(ctx, func() (roster.Body, error) {
			if _, ok := e.roster.Device(e.devID); ok {
				return nil, nil
			}
			return roster.NewRedemption(e.wsID(), e.roster.Head(), inv.Invite.ID, sec, identity.UserID(e.meta.User), e.dev.Public())
		}); err != nil {
			return fmt.Errorf("redeem: %w", err)
		}
	}
	if err := e.ensureRecovery(ctx); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if err := e.ensureName(ctx); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	if e.meta.Name == "" {
		if g, ok := e.roster.Group(e.roster.RootGroup()); ok {
			e.meta.Name = g.Name
		}
	}
	rootID := e.roster.RootGroup()
	if !e.member(rootID) {
		if iu.Pair {
			// Key packages before the root join: the person's other
			// devices add this one to their explicit channels as soon
			// as it is in the root (addOwnDevices).
			if err := e.ensureKeyPackages(ctx); err != nil {
				return err
			}
		}
		if err := e.joinRoot(ctx, inv); err != nil {
			return err
		}
	}
	iu.Done, iu.DoneAt = true, e.now().UTC()
	return e.persistMeta(ctx)
}

// joinRoot enters the root by external commit against the invite bundle.
func (e *Engine) joinRoot(ctx context.Context, inv roster.InviteInfo) error {
	rootID := e.roster.RootGroup()
	iu := e.meta.Invite
	for attempt := 0; attempt < 5; attempt++ {
		envs, err := e.fetchAll(ctx, wire.ID(rootID), 0)
		if err != nil {
			return err
		}
		var plain *groups.BundlePlain
		var readTo uint64
		for i := len(envs) - 1; i >= 0 && plain == nil; i-- {
			env := &envs[i].Envelope
			if env.Kind != wire.KindInviteBundle {
				continue
			}
			b, err := groups.DecodeInviteBundle(env.CT)
			if err != nil || b.Invite != roster.InviteID(iu.Invite) {
				continue
			}
			if p, err := groups.OpenInviteBundle(e.wsID(), iu.UpdatePriv, &b); err == nil {
				plain = p
			}
		}
		if len(envs) > 0 {
			readTo = envs[len(envs)-1].Seq
		}
		if plain == nil {
			return ErrNoBundle
		}
		for _, se := range envs {
			if se.Envelope.Kind == wire.KindMLSCommit {
				if ep, ok := commitEpoch(se.Envelope.CT); ok && ep >= plain.Epoch {
					return ErrStaleBundle
				}
			}
		}
		rg, _ := e.roster.Group(rootID)
		g := e.groupState(rootID)
		m, msg, err := e.externalJoin(rootID, plain.GroupInfo, groups.PathInvite, &rg.Policy)
		if err != nil {
			return err
		}
		seq, err := e.sendJoin(ctx, g, msg, m, plain.History, nil)
		if err != nil {
			return err
		}
		if lost, err := e.lostRace(ctx, rootID, envs, readTo, seq, m.Epoch()-1); err != nil || lost {
			if err != nil {
				return err
			}
			continue
		}
		g.mls = m
		g.history = plain.History
		if g.rec.Enrol == nil {
			g.rec.Enrol = map[string][]byte{}
		}
		g.rec.Enrol[fmt.Sprint(plain.Epoch)] = plain.EnrolmentSecret
		if err := e.noteEpoch(g, false, true); err != nil {
			return err
		}
		if err := e.persistGroup(ctx, g); err != nil {
			return err
		}
		if err := e.processEnvelopes(ctx, g, envs); err != nil {
			return err
		}
		return e.afterCommit(ctx, g)
	}
	return errcode.New("mls/busy", "the workspace root kept moving; try again")
}

// lostRace reports whether the external commit this client sent at seq own
// (joining from epoch base) lost: some commit for epoch base or later is in
// the log before it (every member applies the first commit of an epoch in
// seq order). known is the part of the log already read, up to readTo.
func (e *Engine) lostRace(ctx context.Context, id identity.GroupID, known []wire.SeqEnvelope, readTo, own, base uint64) (bool, error) {
	more, err := e.fetchAll(ctx, wire.ID(id), readTo)
	if err != nil {
		return false, err
	}
	for _, list := range [][]wire.SeqEnvelope{known, more} {
		for _, se := range list {
			if se.Seq >= own || se.Envelope.Kind != wire.KindMLSCommit {
				continue
			}
			if ep, ok := commitEpoch(se.Envelope.CT); ok && ep >= base {
				return true, nil
			}
		}
	}
	return false, nil
}

// commitEpoch reads the epoch of a PublicMessage commit (it is in clear).
func commitEpoch(msg []byte) (uint64, bool) {
	m, err := framing.DecodeMLSMessage(msg)
	if err != nil || m.WireFormat != framing.WireFormatPublicMessage || m.Public == nil {
		return 0, false
	}
	return m.Public.Content.Epoch, true
}

// Admitted reports whether this device is in the roster: for a joiner, that
// its redemption was recorded (the invite's use is spent). A joiner that is
// not admitted holds nothing the workspace knows of.
func (e *Engine) Admitted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.roster.Device(e.devID)
	return ok
}
