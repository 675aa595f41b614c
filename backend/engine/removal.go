package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// Removing a person (spec/lifecycle.md "Removing a person"; the steps and
// their bookkeeping are backend/lifecycle's, this file does each step).

// RemoveOptions qualify Remove.
type RemoveOptions struct {
	// Channel, if set, removes the person from that explicit channel only.
	Channel string
	// Reapprove resumes an operation paused because the authorization
	// head moved, on the current roster.
	Reapprove bool
}

// Remove removes a person (a display name, a user id in hex or a unique
// prefix of at least 8 hex digits) from the workspace, or with opts.Channel from one explicit
// channel. It resumes the unfinished operation for the same person and
// scope if there is one (after a crash), else starts one, persisted before
// its first step. It returns the operation as it stands: done with its
// receipt, or paused (lifecycle.ErrPaused) with the intervening changes.
func (e *Engine) Remove(ctx context.Context, user string, opts RemoveOptions) (*lifecycle.RemovalOperation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return nil, err
	}
	if !e.roster.IsAdmin(e.devID) {
		return nil, lifecycle.ErrNotAdmin
	}
	u, err := e.findUserAny(user)
	if err != nil {
		return nil, err
	}
	var channel *roster.GroupInfo
	if opts.Channel != "" {
		gi, err := e.resolveChannel(opts.Channel)
		if err != nil {
			return nil, err
		}
		if gi.Policy.Admission != roster.AdmissionExplicit {
			return nil, lifecycle.ErrParentChannel
		}
		channel = &gi
	}
	op, err := e.unfinishedRemoval(ctx, u.ID, channel)
	if err != nil {
		return nil, err
	}
	if op == nil {
		if op, err = e.newRemoval(ctx, u, channel); err != nil {
			// Run again after it finished (a crash after the receipt):
			// the finished operation, not an error.
			if done := e.doneRemoval(ctx, u.ID, channel); done != nil {
				return done, nil
			}
			return nil, err
		}
	} else if op.State == lifecycle.StateNeedsReapproval && opts.Reapprove {
		if u.RevokedAt == nil || channel != nil {
			if err := e.checkRemovable(u, channel); err != nil {
				return op, err
			}
		}
		t, l, inv := e.removalTargets(u.ID, channel)
		lifecycle.Reapprove(op, lifecycle.ID(e.roster.Head()), t, l, inv)
		if err := e.saveRemoval(ctx, op); err != nil {
			return op, err
		}
	}
	err = lifecycle.Run(ctx, op, removalSteps{e})
	if err == nil {
		e.emit(Event{Kind: EventRoster})
	}
	return op, err
}

// findUserAny is findUser that also finds revoked users, by display name
// or id (a removal resumed after its revocation).
func (e *Engine) findUserAny(s string) (roster.UserInfo, error) {
	u, err := e.findUser(s)
	if code, _ := errcode.Of(err); err == nil || code != ErrUnknownUser.ErrorCode() {
		return u, err
	}
	q := strings.TrimPrefix(strings.TrimSpace(s), "@")
	lq := strings.ToLower(q)
	var found []roster.UserInfo
	for _, u := range e.roster.Users() {
		if u.RevokedAt != nil && (u.Name != "" && strings.EqualFold(u.Name, q) || len(lq) >= 8 && strings.HasPrefix(hexID(u.ID).hex(), lq)) {
			found = append(found, u)
		}
	}
	if len(found) != 1 {
		return roster.UserInfo{}, err
	}
	return found[0], nil
}

// checkRemovable refuses, before anything runs, removing oneself, the last
// admin, someone already removed, or someone not in the channel.
func (e *Engine) checkRemovable(u roster.UserInfo, channel *roster.GroupInfo) error {
	if channel == nil && u.RevokedAt == nil && e.userAdminLive(u) && e.roster.LiveAdmins() <= 1 {
		return lifecycle.ErrLastAdmin
	}
	if u.ID == identity.UserID(e.meta.User) {
		return lifecycle.ErrSelf
	}
	if channel != nil {
		g := e.groups[channel.Policy.Group]
		if g == nil || g.mls == nil || !g.mls.Active() {
			return ErrNotMember
		}
		in := e.groupDevices(g)
		for _, d := range u.Devices {
			if in[d] {
				return nil
			}
		}
		return lifecycle.ErrNotInChannel
	}
	if u.RevokedAt != nil {
		return fmt.Errorf("%w (that person was removed already)", ErrUnknownUser)
	}
	return nil
}

// userAdminLive reports whether u is an admin with a live device that is
// not on probation.
func (e *Engine) userAdminLive(u roster.UserInfo) bool {
	for _, d := range u.Devices {
		if e.roster.IsAdmin(d) {
			return true
		}
	}
	return false
}

// removalTargets enumerates (step 1) the principals to revoke, the leaves
// to remove and the invites to revoke.
func (e *Engine) removalTargets(u identity.UserID, channel *roster.GroupInfo) (targets []lifecycle.Principal, leaves, invites []lifecycle.ID) {
	for _, p := range e.roster.RemovalTargets(u) {
		if p.Kind == identity.KindDevice || p.Kind == identity.KindAgent {
			leaves = append(leaves, lifecycle.ID(p.ID))
		}
		if channel == nil {
			targets = append(targets, lifecycle.FromIdentity(p))
		}
	}
	if channel == nil {
		for _, inv := range e.roster.RemovalInvites(u) {
			invites = append(invites, lifecycle.ID(inv))
		}
	}
	return targets, leaves, invites
}

func (e *Engine) newRemoval(ctx context.Context, u roster.UserInfo, channel *roster.GroupInfo) (*lifecycle.RemovalOperation, error) {
	if err := e.checkRemovable(u, channel); err != nil {
		return nil, err
	}
	id, err := lifecycle.NewID(e.rand)
	if err != nil {
		return nil, err
	}
	op := &lifecycle.RemovalOperation{ID: id, User: lifecycle.ID(u.ID), Name: e.userName(u.ID),
		BasedOn: lifecycle.ID(e.roster.Head()), State: lifecycle.StateRunning, Step: lifecycle.StepRevoke, StartedAt: e.now()}
	op.Targets, op.Leaves, op.Invites = e.removalTargets(u.ID, channel)
	if channel != nil {
		op.Channel = lifecycle.ID(channel.Policy.Group)
		op.Groups = []lifecycle.GroupSlot{{Group: op.Channel, Name: channel.Name}}
	} else {
		for _, gi := range e.roster.Groups() {
			if !gi.Deleted {
				op.Groups = append(op.Groups, lifecycle.GroupSlot{Group: lifecycle.ID(gi.Policy.Group), Name: gi.Name})
			}
		}
	}
	// Persisted before step 1 (spec/lifecycle.md "Removing a person", 6).
	return op, e.saveRemoval(ctx, op)
}

func (e *Engine) saveRemoval(ctx context.Context, op *lifecycle.RemovalOperation) error {
	b, err := op.Encode()
	if err != nil {
		return err
	}
	return e.db.update(ctx, func(t *txn) error { return t.tx.PutRemoval(op.ID, b) })
}

// Removals returns every stored removal operation, oldest first.
func (e *Engine) Removals(ctx context.Context) ([]*lifecycle.RemovalOperation, error) {
	var all map[[32]byte][]byte
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		all, err = tx.Removals()
		return err
	}); err != nil {
		return nil, err
	}
	out := make([]*lifecycle.RemovalOperation, 0, len(all))
	for _, b := range all {
		op, err := lifecycle.Decode(b)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	slices.SortFunc(out, func(a, b *lifecycle.RemovalOperation) int { return a.StartedAt.Compare(b.StartedAt) })
	return out, nil
}

// unfinishedRemoval returns the stored operation for u and scope that has
// no receipt yet, if any.
func (e *Engine) unfinishedRemoval(ctx context.Context, u identity.UserID, channel *roster.GroupInfo) (*lifecycle.RemovalOperation, error) {
	ops, err := e.Removals(ctx)
	if err != nil {
		return nil, err
	}
	var scope lifecycle.ID
	if channel != nil {
		scope = lifecycle.ID(channel.Policy.Group)
	}
	for _, op := range ops {
		if op.User == lifecycle.ID(u) && op.Channel == scope && op.State != lifecycle.StateDone {
			return op, nil
		}
	}
	return nil, nil
}

// doneRemoval returns the newest finished operation for u and scope.
func (e *Engine) doneRemoval(ctx context.Context, u identity.UserID, channel *roster.GroupInfo) *lifecycle.RemovalOperation {
	ops, err := e.Removals(ctx)
	if err != nil {
		return nil
	}
	var scope lifecycle.ID
	if channel != nil {
		scope = lifecycle.ID(channel.Policy.Group)
	}
	for i := len(ops) - 1; i >= 0; i-- {
		if op := ops[i]; op.User == lifecycle.ID(u) && op.Channel == scope && op.State == lifecycle.StateDone {
			return op
		}
	}
	return nil
}

// Receipts returns every removal receipt of the transparency log, oldest
// first.
func (e *Engine) Receipts() []lifecycle.Receipt {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []lifecycle.Receipt
	for _, r := range e.roster.Receipts() {
		out = append(out, e.receiptOf(r))
	}
	return out
}

func (e *Engine) receiptOf(r roster.ReceiptInfo) lifecycle.Receipt {
	b := &r.Receipt
	out := lifecycle.Receipt{Operation: lifecycle.ID(b.Operation), User: lifecycle.ID(b.User), Name: e.userName(b.User),
		Channel: lifecycle.ID(b.Channel), Groups: []lifecycle.RotatedGroup{}, Revoked: []lifecycle.Principal{},
		AccessVersion: b.AccessVersion, At: time.Unix(r.At, 0).UTC(), RosterIndex: r.Created.Index, By: lifecycle.ID(r.By)}
	for _, g := range b.Groups {
		gi, _ := e.roster.Group(g.Group)
		out.Groups = append(out.Groups, lifecycle.RotatedGroup{Group: lifecycle.ID(g.Group), Name: gi.Name, Epoch: g.Epoch})
	}
	for _, p := range b.Revoked {
		switch p.Kind {
		case identity.KindDevice:
			out.DevicesRevoked++
		case identity.KindAgent:
			out.AgentsRevoked++
		}
		out.Revoked = append(out.Revoked, lifecycle.FromIdentity(p))
	}
	return out
}

// removalSteps does each step of a removal for lifecycle.Run. The engine's
// lock is held throughout.
type removalSteps struct{ e *Engine }

// authorizationOps are the operation types that change who may do what.
var authorizationOps = map[roster.OpType]bool{
	roster.OpAdmitDevice: true, roster.OpAdmitAgent: true, roster.OpAdmitRecovery: true, roster.OpRedeemInvite: true,
	roster.OpRevoke: true, roster.OpSetRole: true, roster.OpInvite: true, roster.OpInviteRevoke: true,
	roster.OpRecoverDevice: true, roster.OpApproveDevice: true, roster.OpSetRecoveryQuorum: true, roster.OpVouchDevice: true,
}

func (s removalSteps) AuthChanges(ctx context.Context, since lifecycle.ID) (lifecycle.ID, []string, error) {
	e := s.e
	if _, err := e.syncRoster(ctx); err != nil {
		return lifecycle.ID{}, nil, err
	}
	head := lifecycle.ID(e.roster.Head())
	if head == since {
		return head, nil, nil
	}
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return head, nil, err
	}
	from := -1
	for i, b := range ops {
		if lifecycle.ID(roster.HeadOf(b)) == since {
			from = i
		}
	}
	if from < 0 {
		return head, nil, fmt.Errorf("engine: the removal's authorization head %s is not in this roster", since.Hex()[:16])
	}
	var changes []string
	me := identity.DevicePrincipal(e.devID)
	for i := from + 1; i < len(ops); i++ {
		op, err := roster.Decode(ops[i])
		if err != nil || !authorizationOps[op.Type()] || op.Actor == me {
			continue
		}
		changes = append(changes, fmt.Sprintf("operation %d: %s by %s at %s", i, op.Type(), e.actorName(op.Actor),
			op.CreatedAt.UTC().Format("2006-01-02 15:04:05Z")))
	}
	return head, changes, nil
}

func (s removalSteps) Revoke(ctx context.Context, op *lifecycle.RemovalOperation) error {
	e := s.e
	want := map[lifecycle.Principal]bool{}
	for _, p := range op.Targets {
		want[p] = true
	}
	return e.appendRoster(ctx, func() (roster.Body, error) {
		var live []identity.Principal
		for _, p := range e.roster.RemovalTargets(identity.UserID(op.User)) {
			if want[lifecycle.FromIdentity(p)] {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return nil, nil // revoked already (by this operation before a crash, or by anyone)
		}
		return &roster.Revoke{RevokedAt: e.now(), Targets: live}, nil
	})
}

// removalLeaves returns the leaf indexes of m whose credential names one of
// ids.
func removalLeaves(m *mls.Group, ids []lifecycle.ID) []uint32 {
	var out []uint32
	for _, mem := range m.Members() {
		if len(mem.Credential.Identity) == 32 && slices.Contains(ids, lifecycle.ID(mem.Credential.Identity)) {
			out = append(out, mem.Index)
		}
	}
	return out
}

// recoveryPubs returns the public keys of every recovery principal user u
// ever had.
func (e *Engine) recoveryPubs(u identity.UserID) [][]byte {
	ui, ok := e.roster.User(u)
	if !ok {
		return nil
	}
	var out [][]byte
	for _, id := range ui.Recovery {
		if r, ok := e.roster.Recovery(id); ok {
			out = append(out, r.Public.Bytes())
		}
	}
	return out
}

func (s removalSteps) DeleteWraps(ctx context.Context, op *lifecycle.RemovalOperation, slots []*lifecycle.GroupSlot) error {
	e := s.e
	var keys []fetchKey
	for _, slot := range slots {
		if _, indexed := e.wrapIndex(slot); !indexed {
			keys = append(keys, fetchKey{wire.ID(slot.Group), 0})
		}
	}
	e.prefetch(ctx, keys)
	defer e.dropPrefetched()
	// Their recovery tag directory goes with their wraps (removal step 4:
	// "drop that user from the tag directory"): every slot for a removal
	// from the workspace, the channel's for a partial one. Idempotent, so
	// each batch of the step sends it again.
	if _, err := e.dropRecoveryDirs(ctx, identity.UserID(op.User), identity.GroupID(op.Channel)); err != nil {
		return fmt.Errorf("recovery directory: %w", err)
	}
	var items []wire.WrapsDelete
	var of []*lifecycle.GroupSlot
	for _, slot := range slots {
		d, err := e.wrapsDelete(ctx, op, slot)
		if err != nil {
			return fmt.Errorf("%s: %w", slot.Name, err)
		}
		if d != nil {
			items, of = append(items, *d), append(of, slot)
		}
	}
	if len(items) == 0 {
		return nil
	}
	res, err := e.client.DeleteWrapsBatch(ctx, items)
	if errors.Is(err, &wire.Error{Code: wire.CodeUnknownFrame}) {
		// A relay from before WRAPS_DELETE_BATCH: one request per group.
		res, err = make([]wire.WrapsDeleted, len(items)), nil
		for i := range items {
			r, derr := e.client.DeleteWraps(ctx, items[i])
			if derr != nil {
				return fmt.Errorf("%s: %w", of[i].Name, derr)
			}
			res[i] = *r
		}
	}
	if err != nil {
		return err
	}
	for i, r := range res {
		of[i].WrapsDeleted += int(r.Envelopes)
	}
	return nil
}

// wrapsDelete builds the signed deletion of slot's group's wraps: by the
// slot's tags and the tags read from every recovery.wrap in the group's
// log that a device of theirs sent (a device wraps for its own user's
// recovery key, its tag in the clear in the ct); nil when there is none.
func (e *Engine) wrapsDelete(ctx context.Context, op *lifecycle.RemovalOperation, slot *lifecycle.GroupSlot) (*wire.WrapsDelete, error) {
	tags := map[wire.ID]bool{}
	for _, t := range slot.Tags {
		tags[wire.ID(t)] = true
	}
	if g, indexed := e.wrapIndex(slot); indexed {
		// Caught up by the rotate step: every wrap of the log is indexed.
		for _, leaf := range op.Leaves {
			for _, t := range g.rec.WrapTags[hexID(leaf).hex()] {
				tags[wire.ID(t)] = true
			}
		}
	} else {
		envs, err := e.fetchAll(ctx, wire.ID(slot.Group), 0)
		if err != nil {
			return nil, err
		}
		for _, env := range envs {
			if env.Envelope.Kind != wire.KindRecoveryWrap || !slices.Contains(op.Leaves, lifecycle.ID(env.Envelope.Author)) {
				continue
			}
			if tag, ok := wire.WrapTag(env.Envelope.CT); ok {
				tags[tag] = true
			}
		}
	}
	if len(tags) == 0 {
		return nil, nil
	}
	d := wire.WrapsDelete{Workspace: wire.ID(e.meta.Workspace), Group: wire.ID(slot.Group)}
	for t := range tags {
		d.Tags = append(d.Tags, t)
	}
	slices.SortFunc(d.Tags, func(a, b wire.ID) int { return strings.Compare(string(a[:]), string(b[:])) })
	d.Sign(e.edKey)
	return &d, nil
}

// wrapIndex returns slot's group when this client indexed every recovery
// wrap of its log (groupRec.WrapIndex) and has processed the log past the
// slot's rotation, after which the person's devices send nothing there.
func (e *Engine) wrapIndex(slot *lifecycle.GroupSlot) (*group, bool) {
	g := e.groups[identity.GroupID(slot.Group)]
	if g == nil || !g.rec.WrapIndex || g.mls == nil || !(slot.Rotated || slot.NoLeaf) || g.mls.Epoch() < slot.Epoch {
		return nil, false
	}
	return g, true
}

func (s removalSteps) RevokeInvites(ctx context.Context, op *lifecycle.RemovalOperation) error {
	e := s.e
	for _, inv := range op.Invites {
		if err := e.appendRoster(ctx, func() (roster.Body, error) {
			info, ok := e.roster.Invite(roster.InviteID(inv))
			if !ok || info.Revoked {
				return nil, nil
			}
			return &roster.RevokeInvite{Invite: roster.InviteID(inv)}, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// ErrAccessStale is an access set that still lists a removed device after
// this client published its own.
var ErrAccessStale = errcode.New("access/stale", "the relay's access set still lists a removed device; run the removal again")

func (s removalSteps) PublishAccess(ctx context.Context, op *lifecycle.RemovalOperation) (uint64, error) {
	e := s.e
	if err := e.publishAccessSet(ctx); err != nil {
		return 0, err
	}
	cur, err := e.client.CurrentAccessSet(ctx)
	if err != nil {
		return 0, err
	}
	gone := map[wire.ID]bool{}
	for _, p := range op.Targets {
		if p.Kind == identity.KindDevice.String() {
			if d, ok := e.roster.Device(identity.DeviceID(p.ID)); ok {
				gone[wire.KeyID(d.Public.Bytes())] = true
			}
		}
	}
	for _, d := range cur.Set.Devices {
		if gone[wire.KeyID(d.Pub)] {
			return 0, ErrAccessStale
		}
	}
	return cur.Set.Version, nil
}

func (s removalSteps) WriteReceipt(ctx context.Context, op *lifecycle.RemovalOperation) (*lifecycle.Receipt, error) {
	e := s.e
	body := &roster.RemovalReceipt{Operation: op.ID, User: identity.UserID(op.User), Channel: identity.GroupID(op.Channel),
		AccessVersion: op.Access.Version}
	for _, p := range op.Targets {
		body.Revoked = append(body.Revoked, p.Identity())
	}
	for _, g := range op.Groups {
		if g.Rotated {
			body.Groups = append(body.Groups, roster.RotatedGroup{Group: identity.GroupID(g.Group), Epoch: g.Epoch})
		}
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if _, ok := e.roster.Receipt(op.ID); ok {
			return nil, nil // written before a crash
		}
		return body, nil
	}); err != nil {
		return nil, err
	}
	r, ok := e.roster.Receipt(op.ID)
	if !ok {
		return nil, fmt.Errorf("engine: the receipt of removal %s is not in the roster", op.ID.Hex()[:16])
	}
	out := e.receiptOf(r)
	return &out, nil
}

func (s removalSteps) Save(ctx context.Context, op *lifecycle.RemovalOperation) error {
	return s.e.saveRemoval(ctx, op)
}

func (s removalSteps) Progress(op *lifecycle.RemovalOperation, step lifecycle.Step, done, total int) {
	s.e.emit(Event{Kind: EventProgress, Task: "removal/" + string(step), Done: done, Total: total, Message: op.ID.Hex()})
}

func (s removalSteps) Crash(step string) error { return s.e.crash("removal/" + step) }

// actorName names the signer of a roster operation for an admin: the
// person's display name and the device's short id.
func (e *Engine) actorName(p identity.Principal) string {
	if p.Kind == identity.KindDevice {
		if d, ok := e.roster.Device(identity.DeviceID(p.ID)); ok {
			return fmt.Sprintf("%s (device %s)", e.userName(d.User), hexID(p.ID).hex()[:8])
		}
	}
	return p.ShortString()
}

// RemovalPlan is what a removal would do, shown before the admin confirms.
type RemovalPlan struct {
	User    string `json:"user"`
	Name    string `json:"name"`
	Channel string `json:"channel,omitempty"`
	Devices int    `json:"devices"`
	Agents  int    `json:"agents"`
	// Groups: the groups this client is in that hold a leaf of theirs,
	// which the removal rotates.
	Groups int `json:"groups"`
	// NotMember: groups this client holds no state of (explicit or closed
	// ones it is not in); it cannot rotate them (the slot's not_member).
	NotMember int `json:"not_member"`
	// Invites: live invites naming them, which the removal revokes.
	Invites int `json:"invites"`
	// RecoveryKeys: their recovery keys, whose wraps the removal deletes.
	RecoveryKeys int `json:"recovery_keys"`
	// Resumes: an unfinished operation for this person and scope exists;
	// Remove continues it.
	Resumes string `json:"resumes,omitempty"`
}

// PlanRemoval checks a removal as Remove would, before anything runs, and
// says what it would revoke and rotate.
func (e *Engine) PlanRemoval(ctx context.Context, user, channel string) (RemovalPlan, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return RemovalPlan{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return RemovalPlan{}, err
	}
	if !e.roster.IsAdmin(e.devID) {
		return RemovalPlan{}, lifecycle.ErrNotAdmin
	}
	u, err := e.findUserAny(user)
	if err != nil {
		return RemovalPlan{}, err
	}
	plan := RemovalPlan{User: hexID(u.ID).hex(), Name: e.userName(u.ID)}
	var ch *roster.GroupInfo
	if channel != "" {
		gi, err := e.resolveChannel(channel)
		if err != nil {
			return plan, err
		}
		if gi.Policy.Admission != roster.AdmissionExplicit {
			return plan, lifecycle.ErrParentChannel
		}
		ch, plan.Channel = &gi, gi.Name
	}
	if op, err := e.unfinishedRemoval(ctx, u.ID, ch); err != nil {
		return plan, err
	} else if op != nil {
		plan.Resumes = op.ID.Hex()
		return plan, nil
	}
	if err := e.checkRemovable(u, ch); err != nil {
		if done := e.doneRemoval(ctx, u.ID, ch); done != nil {
			plan.Resumes = done.ID.Hex()
			return plan, nil
		}
		return plan, err
	}
	_, leaves, invites := e.removalTargets(u.ID, ch)
	for _, l := range leaves {
		if _, ok := e.roster.Device(identity.DeviceID(l)); ok {
			plan.Devices++
		} else {
			plan.Agents++
		}
	}
	plan.Invites = len(invites)
	if ch == nil {
		plan.RecoveryKeys = len(e.recoveryPubs(u.ID))
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || ch != nil && gi.Policy.Group != ch.Policy.Group {
			continue
		}
		switch g := e.groups[gi.Policy.Group]; {
		case g == nil || g.mls == nil || !g.mls.Active():
			plan.NotMember++
		case len(removalLeaves(g.mls, leaves)) > 0:
			plan.Groups++
		}
	}
	return plan, nil
}
