package engine

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Recovery onto a new device (spec/lifecycle.md "Key compromise": "If they
// have no other device, this is a recovery-phrase flow: recover onto a new
// device, which revokes the old one as its last step"; docs/protocol/
// lifecycle.md "Recovery onto a new device").

// recoveryUse is a recovery onto this device, persisted in meta.
type recoveryUse struct {
	// Phrase signs as the recovery principal until the device is approved
	// (its recover-device, and for the only admin its approve-device).
	Phrase string `json:"phrase"`
	// Revoked: the last step (the person's older devices revoked) is done.
	Revoked bool `json:"revoked,omitempty"`
}

// Errors of recovery.
var (
	ErrRecoveryUnknown = errcode.New("recovery/unknown_phrase",
		"this recovery phrase belongs to nobody in this workspace; check the words and the workspace")
	ErrRecoveryWaiting = errcode.New("recovery/waiting",
		"this device is recovered and on probation, and the relay does not list it yet: an admin's app lists it at its next sync (a workspace's only admin waits out the probation, then runs recover again)")
)

// RecoveryStatus is where a recovery onto this device stands.
type RecoveryStatus struct {
	Device    string `json:"device"`
	User      string `json:"user"`
	Probation bool   `json:"probation"`
	// ProbationEnds is when the only admin's recovery principal may end
	// the probation itself (zero when another admin approves).
	ProbationEnds time.Time `json:"probation_ends,omitzero"`
	// Listed: the relay lets this device connect with its own key.
	Listed bool `json:"listed"`
	// RevokedOld lists the person's older devices this device revoked (the
	// last step, once its probation ended).
	RevokedOld []string `json:"revoked_old,omitempty"`
	Ready      bool     `json:"ready"`
	// Finished: the probation ended and the last step is done (the older
	// devices revoked); nothing of the recovery is left to resume.
	Finished bool `json:"finished,omitempty"`
}

// Recover makes dir a new device of the person whose recovery phrase this
// is, in workspace ws (hex) at relay: the recovery principal admits it
// (recover-device, on probation); see recover. Nothing is kept when the
// phrase recovers nothing (the caller removes the directory).
func Recover(ctx context.Context, opts Options, relay, ws, phrase string) (*Engine, RecoveryStatus, error) {
	var st RecoveryStatus
	p, err := identity.ParseRecoveryPhrase(phrase)
	if err != nil {
		return nil, st, err
	}
	var wsID hexID
	if err := wsID.UnmarshalText([]byte(ws)); err != nil {
		return nil, st, errcode.New("workspace/bad_id", "the workspace id is 64 hex digits")
	}
	if Exists(opts.Dir) {
		return nil, st, ErrExists
	}
	e, err := newEngine(ctx, opts)
	if err != nil {
		return nil, st, err
	}
	seed := make([]byte, 32)
	if _, err := e.rand.Read(seed); err != nil {
		e.db.close()
		return nil, st, err
	}
	e.meta = meta{Workspace: wsID, Relay: relay, DeviceSeed: seed, Steps: map[string]bool{}, Muted: map[string]bool{},
		Recovery: &recoveryUse{Phrase: joinPhrase(p)}}
	if err := e.initKeys(); err != nil {
		e.db.close()
		return nil, st, err
	}
	e.roster = roster.New(roster.Options{})
	if err := e.persistMeta(ctx); err != nil {
		e.db.close()
		return nil, st, err
	}
	e.mu.Lock()
	st, err = e.recover(ctx)
	_, admitted := e.roster.Device(e.devID)
	e.mu.Unlock()
	if err != nil && !admitted {
		e.Close()
		return nil, st, err
	}
	return e, st, err
}

func joinPhrase(p identity.RecoveryPhrase) string {
	s := ""
	for i, w := range p.Words() {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}

// Recovery reports from local state (no network) where a recovery onto
// this device stands; ok is false when this device was not recovered with
// a phrase. The app shows it while the recovery is unfinished.
func (e *Engine) Recovery() (st RecoveryStatus, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ru := e.meta.Recovery
	if ru == nil {
		return RecoveryStatus{}, false
	}
	st = e.recoveryStatus(RecoveryStatus{Device: e.devID.String()})
	st.RevokedOld = append([]string(nil), e.revokedOld...)
	st.Ready = e.ready()
	st.Finished = ru.Revoked
	return st, true
}

// RecoverAgain resumes a recovery onto this device (weald recover run again,
// or after the only admin's probation wait).
func (e *Engine) RecoverAgain(ctx context.Context) (RecoveryStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.meta.Recovery == nil {
		return RecoveryStatus{}, errcode.New("recovery/none_here", "this device was not recovered with a phrase")
	}
	return e.recover(ctx)
}

// recover runs (or resumes) the recovery, in order:
//  1. over a connection authenticated with the recovery key, find its user
//     in the roster and append recover-device for this device (on
//     probation);
//  2. when no other user is a live admin, no recovery quorum can vouch and
//     roster.ProbationWait has passed since, append approve-device signed
//     by the recovery principal; once the device holds admin authority
//     (that way, or by the recovery quorum's vouches), publish the access
//     set with this device (the relay takes it from a device with admin
//     authority in its own fold of the roster);
//  3. as this device (once the access set lists it): key packages, sync
//     (the groups: see sync);
//  4. the last step, once the probation ended: revoke the person's older
//     devices, then (an admin) publish the access set without them.
func (e *Engine) recover(ctx context.Context) (RecoveryStatus, error) {
	st := RecoveryStatus{Device: e.devID.String()}
	rep, err := e.sync(ctx)
	st = e.recoveryStatus(st)
	st.RevokedOld = e.revokedOld
	st.Ready = rep.Ready
	st.Finished = e.meta.Recovery.Revoked
	return st, err
}

// recoverPrelude is sync's part of a recovery in progress: steps 1, 2 and 4
// (step 3 is the sync itself), leaving the device connected with its key.
func (e *Engine) recoverPrelude(ctx context.Context) error {
	// The recovery key's connection is needed to be admitted, for the only
	// admin's self-approval once the wait is over, and to read the roster
	// while the relay does not list the device; a device on probation
	// otherwise stays on its own connection (Run keeps it).
	d, admitted := e.roster.Device(e.devID)
	need := !admitted
	if end, ok := e.selfApprovable(); admitted && d.Probation && ok && !e.now().Before(end) {
		need = true
	}
	for attempt := 0; ; attempt++ {
		if need {
			keys, err := phraseKeys(e.meta.Recovery.Phrase)
			if err != nil {
				return err
			}
			if err := e.recoveryStep(ctx, keys); err != nil {
				return err
			}
		}
		err := e.connect(ctx)
		if c, _ := errcode.Of(err); c == errcode.Code(wire.CodeAuthUnknownKey) {
			if need || attempt > 0 {
				return ErrRecoveryWaiting
			}
			need = true // not listed: read the roster as the recovery key
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	e.meta.Steps["device_in_access_set"] = true
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	return e.revokeOldDevices(ctx)
}

// phraseKeys derives the recovery keys of a phrase.
func phraseKeys(phrase string) (identity.RecoveryKeys, error) {
	p, err := identity.ParseRecoveryPhrase(phrase)
	if err != nil {
		return identity.RecoveryKeys{}, err
	}
	return identity.DeriveRecoveryKeys(p)
}

// recoveryStep is steps 1 and 2 over a recovery-key connection, closed
// after.
func (e *Engine) recoveryStep(ctx context.Context, keys identity.RecoveryKeys) error {
	if e.client != nil {
		e.client.Close()
		e.client = nil
	}
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: e.meta.Relay, Workspace: wire.ID(e.meta.Workspace),
		Credential: relayclient.KeyCredential(ed25519.NewKeyFromSeed(keys.Signature.Seed()), wire.PrincipalRecovery),
		Rand:       e.rand, RelayID: wire.ID(e.meta.RelayID)})
	var we *wire.Error
	if errors.As(err, &we) && we.Code == wire.CodeAuthRevoked {
		return fmt.Errorf("%w: this recovery phrase no longer admits anyone (it was replaced by a new one, or its person was removed)", roster.ErrActorRevoked)
	}
	if errors.As(err, &we) && we.Code == wire.CodeAuthUnknownKey {
		return ErrRecoveryUnknown
	}
	if err != nil {
		return err
	}
	if err := e.pinRelay(ctx, c); err != nil {
		c.Close()
		return err
	}
	e.client = c
	e.signAs = roster.RecoverySigner(keys.Signature)
	defer func() {
		e.signAs = nil
		if e.client != nil {
			e.client.Close()
			e.client = nil
		}
	}()
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	rid := identity.RecoveryIDOf(keys.Signature.Public())
	r, ok := e.roster.Recovery(rid)
	if !ok {
		return ErrRecoveryUnknown
	}
	if r.RevokedAt != nil {
		return fmt.Errorf("%w: this recovery phrase no longer admits anyone (it was replaced by a new one, or its person was removed)", roster.ErrActorRevoked)
	}
	if e.meta.User != hexID(r.User) {
		e.meta.User = hexID(r.User)
		if err := e.persistMeta(ctx); err != nil {
			return err
		}
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if _, ok := e.roster.Device(e.devID); ok {
			return nil, nil
		}
		proof, err := roster.DevicePossession(e.wsID(), r.User, e.dev)
		if err != nil {
			return nil, err
		}
		return &roster.RecoverDevice{User: r.User, Device: e.dev.Public(), Possession: proof}, nil
	}); err != nil {
		return fmt.Errorf("recover-device: %w", err)
	}
	if g, ok := e.roster.Group(e.roster.RootGroup()); ok && e.meta.Name == "" {
		e.meta.Name = g.Name
		if err := e.persistMeta(ctx); err != nil {
			return err
		}
	}
	if end, ok := e.selfApprovable(); ok && !e.now().Before(end) {
		if err := e.appendRoster(ctx, func() (roster.Body, error) {
			if d, _ := e.roster.Device(e.devID); !d.Probation {
				return nil, nil
			}
			return &roster.ApproveDevice{Device: e.devID}, nil
		}); err != nil {
			return fmt.Errorf("approve-device: %w", err)
		}
		e.emit(Event{Kind: EventRoster})
	}
	// Approved by itself just now, or by the recovery quorum's vouches
	// while nobody with admin authority was left to list it: it lists
	// itself (only an admin's device ever gets this far unlisted).
	if e.roster.IsAdmin(e.devID) {
		return e.publishAccessSet(ctx)
	}
	return nil
}

// selfApprovable reports when this device's own recovery principal may end
// its probation (roster checkSelfApprove): ok when nobody else could.
func (e *Engine) selfApprovable() (time.Time, bool) {
	d, ok := e.roster.Device(e.devID)
	if !ok || !d.Probation || !e.roster.DeviceLive(e.devID) {
		return time.Time{}, false
	}
	if e.roster.QuorumCanReach(d.User) {
		return time.Time{}, false // the recovery quorum vouches instead
	}
	for _, u := range e.roster.Users() {
		if u.ID != d.User && u.Role == roster.RoleAdmin && u.RevokedAt == nil {
			for _, x := range u.Devices {
				if e.roster.IsAdmin(x) {
					return time.Time{}, false
				}
			}
		}
	}
	return d.RecoveredAt.Add(roster.ProbationWait), true
}

// revokeOldDevices is the last step: once this device's probation ended,
// one revoke of every live device of the person admitted before it; an
// admin then publishes the access set without them.
func (e *Engine) revokeOldDevices(ctx context.Context) error {
	ru := e.meta.Recovery
	d, ok := e.roster.Device(e.devID)
	if ru.Revoked || !ok || d.Probation || !e.roster.DeviceLive(e.devID) {
		return nil
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		u, _ := e.roster.User(d.User)
		var old []identity.Principal
		e.revokedOld = e.revokedOld[:0]
		for _, x := range u.Devices {
			xi, _ := e.roster.Device(x)
			if x != e.devID && e.roster.DeviceLive(x) && xi.Admitted.Index < d.Admitted.Index {
				old = append(old, identity.DevicePrincipal(x))
				e.revokedOld = append(e.revokedOld, x.String())
			}
		}
		if len(old) == 0 {
			return nil, nil
		}
		return &roster.Revoke{RevokedAt: e.now(), Targets: old}, nil
	}); err != nil {
		return fmt.Errorf("revoke the old devices: %w", err)
	}
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return err
		}
	}
	ru.Revoked = true
	e.emit(Event{Kind: EventRoster})
	return e.persistMeta(ctx)
}

// recoveryStatus fills st from the roster.
func (e *Engine) recoveryStatus(st RecoveryStatus) RecoveryStatus {
	st.User = identity.UserID(e.meta.User).String()
	if d, ok := e.roster.Device(e.devID); ok {
		st.Probation = d.Probation
		if end, ok := e.selfApprovable(); ok {
			st.ProbationEnds = end.UTC()
		}
	}
	st.Listed = e.meta.Steps["device_in_access_set"] || e.client != nil
	return st
}

// addRecoveredDevices is every member's duty towards a recovered device
// (its person has no other device to add it): once it has key packages, a
// member of the root adds it there, and a member of an explicit channel
// where its person has a leaf adds it to that channel, one batched Add per
// group (the first commit wins; the others lose the race and find it in).
// A DM's member adds it there (ensureDM).
func (e *Engine) addRecoveredDevices(ctx context.Context) error {
	var recovered []identity.DeviceID
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			if di, _ := e.roster.Device(d); d != e.devID && di.RecoveredBy != (identity.RecoveryID{}) && e.roster.DeviceLive(d) {
				recovered = append(recovered, d)
			}
		}
	}
	if len(recovered) == 0 {
		return nil
	}
	root := e.roster.RootGroup()
	if g := e.groups[root]; g != nil && g.mls != nil && g.mls.Active() {
		var missing []identity.DeviceID
		for _, d := range recovered {
			if !e.inRootTree(d) {
				missing = append(missing, d)
			}
		}
		if len(missing) > 0 {
			if err := e.addToRoot(ctx, g, missing); err != nil {
				return err
			}
		}
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Policy.Kind != roster.KindChannel || gi.Policy.Admission != roster.AdmissionExplicit || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		in := e.groupDevices(g)
		users := map[identity.UserID]bool{}
		for d := range in {
			if di, ok := e.roster.Device(d); ok {
				users[di.User] = true
			}
		}
		var missing []identity.DeviceID
		for _, d := range recovered {
			di, _ := e.roster.Device(d)
			if users[di.User] && !in[d] && !isPending(gi, d) && e.inRootTree(d) {
				missing = append(missing, d)
			}
		}
		if len(missing) == 0 {
			continue
		}
		if _, err := e.addMembers(ctx, gi, missing); err != nil {
			return err
		}
	}
	return nil
}

// addToRoot adds recovered devices that have a key package to the root.
func (e *Engine) addToRoot(ctx context.Context, g *group, devices []identity.DeviceID) error {
	if err := e.catchUp(ctx, g); err != nil {
		return err
	}
	var kps [][]byte
	for _, d := range devices {
		if e.inRootTree(d) {
			continue
		}
		kp, err := e.claimFor(ctx, g, d)
		if err != nil {
			return err
		}
		if kp != nil {
			kps = append(kps, kp)
		}
	}
	if len(kps) == 0 {
		return nil
	}
	return e.commit(ctx, g, mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true})
}

// joinByWraps enters, against its person's recovery wraps, the root and
// then every parent channel this recovered device is not in, where the
// newest wrap it can open is at the group's current epoch (a workspace
// where nobody else is left to add it: its person alone, or every other
// member away). An external commit with JoinData path 3 (recovery) and this
// device's own wrap, in one batch; receivers accept it from a device
// admitted by recover-device (groups.ValidateJoin). A group whose wrap is
// stale waits for a member's Add (addRecoveredDevices) or a self-join.
func (e *Engine) joinByWraps(ctx context.Context) error {
	ru := e.meta.Recovery
	if ru == nil || ru.Phrase == "" || !e.roster.DeviceLive(e.devID) {
		return nil
	}
	keys, err := phraseKeys(ru.Phrase)
	if err != nil {
		return err
	}
	priv, err := keys.HPKE.Key().Bytes()
	if err != nil {
		return err
	}
	// The phrase's directory names the person's wrap in each group; a
	// directory that cannot be read leaves each log to be searched.
	dir, _, err := e.recoveryDir(ctx, identity.RecoveryIDOf(keys.Signature.Public()))
	if err != nil {
		dir = nil
	}
	root := e.roster.RootGroup()
	ids := []identity.GroupID{root}
	for _, gi := range e.roster.Groups() {
		if !gi.Deleted && gi.Policy.Admission == roster.AdmissionParent {
			ids = append(ids, gi.Policy.Group)
		}
	}
	for _, id := range ids {
		if e.member(id) || (id != root && !e.member(root)) {
			continue
		}
		var slot *wire.DirSlot
		if s, ok := dir[id]; ok {
			slot = &s
		}
		if err := e.joinByWrap(ctx, id, priv, slot); err != nil && !errors.Is(err, errNoWrap) {
			return err
		}
	}
	return nil
}

var errNoWrap = errors.New("engine: no current recovery wrap")

// joinByWrap joins group id by the wrap its directory slot names (the
// current entry, else the fallback), or, when the slot opens nothing (no
// slot, or a relay without the directory), by the newest wrap of the log
// that the phrase opens.
func (e *Engine) joinByWrap(ctx context.Context, id identity.GroupID, hpkePriv []byte, slot *wire.DirSlot) error {
	gi, ok := e.roster.Group(id)
	if !ok {
		return errNoWrap
	}
	envs, err := e.fetchAll(ctx, wire.ID(id), 0)
	if err != nil {
		return err
	}
	open := func(se *wire.SeqEnvelope, tag *wire.ID) *groups.RecoveryPlain {
		if se.Envelope.Kind != wire.KindRecoveryWrap {
			return nil
		}
		w, err := groups.DecodeRecoveryWrap(se.Envelope.CT)
		if err != nil || (tag != nil && wire.ID(w.Tag) != *tag) {
			return nil
		}
		e.wrapOpens++
		p, err := groups.OpenRecoveryWrap(hpkePriv, [32]byte(id), &w)
		if err != nil {
			return nil
		}
		return p
	}
	// current: no commit moved the group past the wrap's epoch.
	current := func(p *groups.RecoveryPlain) bool {
		for _, se := range envs {
			if se.Envelope.Kind == wire.KindMLSCommit {
				if ep, ok := commitEpoch(se.Envelope.CT); ok && ep >= p.Epoch {
					return false
				}
			}
		}
		return true
	}
	var plain *groups.RecoveryPlain
	if slot != nil {
		for _, en := range []wire.DirEntry{slot.Current, slot.Fallback} {
			i, found := slices.BinarySearchFunc(envs, en.Seq, func(se wire.SeqEnvelope, seq uint64) int { return cmp.Compare(se.Seq, seq) })
			if en.Seq != 0 && found {
				if plain = open(&envs[i], &en.Tag); plain != nil {
					break
				}
			}
		}
	}
	if plain == nil || !current(plain) {
		plain = nil
		for i := len(envs) - 1; i >= 0 && plain == nil; i-- {
			plain = open(&envs[i], nil)
		}
	}
	if plain == nil || !current(plain) {
		return errNoWrap // none, or stale: a commit moved the group on
	}
	var readTo uint64
	if len(envs) > 0 {
		readTo = envs[len(envs)-1].Seq
	}
	g := e.groupState(id)
	m, msg, err := e.externalJoin(id, plain.GroupInfo, groups.PathRecovery, &gi.Policy)
	if err != nil {
		return err
	}
	seq, err := e.sendJoin(ctx, g, msg, m, plain.History, nil)
	if err != nil {
		return err
	}
	if lost, err := e.lostRace(ctx, id, envs, readTo, seq, m.Epoch()-1); err != nil || lost {
		if err == nil {
			err = errNoWrap
		}
		return err
	}
	g.mls = m
	g.history = plain.History
	if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, gi.Policy.Kind == roster.KindWorkspace); err != nil {
		return err
	}
	if err := e.persistGroup(ctx, g); err != nil {
		return err
	}
	if err := e.processEnvelopes(ctx, g, envs); err != nil {
		return err
	}
	e.emit(Event{Kind: EventChannels})
	return e.afterCommit(ctx, g)
}
