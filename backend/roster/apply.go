package roster

import (
	"bytes"
	"errors"
	"time"
	"unicode"
	"unicode/utf8"

	"weald/backend/identity"
	"weald/backend/identity/canon"
)

// Apply checks op against the state and applies it. On error the state is
// unchanged and the error is an *Error with Index set to the position op
// would have taken.
func (s *State) Apply(op *Operation) error {
	commit, err := s.check(op)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Err: ErrBadOperation, Detail: err.Error()}
		}
		e.Index = s.length
		return e
	}
	commit()
	s.head = op.Head()
	s.length++
	s.lastTime = op.CreatedAt
	return nil
}

// ApplyBytes decodes and applies one operation.
func (s *State) ApplyBytes(b []byte) error {
	op, err := Decode(b)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Index = s.length
		}
		return err
	}
	return s.Apply(op)
}

// Validate folds a whole chain. On the first invalid operation it returns
// the state of the valid prefix before it and an *Error naming its index;
// the chain is rejected from there on.
func Validate(ops [][]byte, opts Options) (*State, error) {
	s := New(opts)
	for _, b := range ops {
		if err := s.ApplyBytes(b); err != nil {
			return s, err
		}
	}
	return s, nil
}

// actor is the resolved signer of a non-genesis operation.
type actor struct {
	device   *DeviceInfo   // set for a device actor
	agent    *AgentInfo    // set for an agent actor
	recovery *RecoveryInfo // set for a recovery actor
}

// probationForbids lists what a recovered device may not sign before approval.
var probationForbids = map[OpType]bool{
	OpAdmitDevice: true, OpAdmitAgent: true, OpAdmitRecovery: true, OpRevoke: true, OpSetRole: true,
	OpInvite: true, OpInviteRevoke: true, OpRetentionPolicy: true, OpRetentionApprove: true, OpApproveDevice: true,
}

func (a actor) user() identity.UserID {
	if a.device != nil {
		return a.device.User
	}
	return identity.UserID{}
}

// check validates op. It first re-decodes op's bytes and works only on
// that decoded form, so the state is a function of the bytes alone whether
// op came from Sign or from Decode; fields edited after signing are refused.
func (s *State) check(in *Operation) (func(), error) {
	if in == nil || in.Body == nil || len(in.raw) == 0 {
		return nil, reject(ErrBadOperation, "the operation was neither signed nor decoded")
	}
	intbs, err := in.tbs()
	if err != nil {
		return nil, reject(ErrBadOperation, "%v", err)
	}
	var w canon.Writer
	w.Raw(intbs)
	w.Opaque(in.Signature)
	if !bytes.Equal(w.Bytes(), in.raw) {
		return nil, reject(ErrBadOperation, "the operation's fields do not match its bytes")
	}
	op, err := decode(in.raw)
	if err != nil {
		return nil, err
	}
	tbs := intbs
	if op.PrevHead != s.head {
		return nil, reject(ErrHeadMismatch, "it extends %s, the head is %s", op.PrevHead.ShortString(), s.head.ShortString())
	}
	if s.length > 0 && op.CreatedAt.Before(s.lastTime) {
		return nil, reject(ErrTimeOrder, "dated %s, the previous operation %s",
			op.CreatedAt.Format(time.RFC3339Nano), s.lastTime.Format(time.RFC3339Nano))
	}
	if s.opts.Clock != nil && op.CreatedAt.After(s.opts.Clock.Now().Add(s.opts.MaxSkew)) {
		return nil, reject(ErrFuture, "dated %s", op.CreatedAt.Format(time.RFC3339))
	}
	isGenesis := op.Type() == OpGenesis
	if (s.length == 0) != isGenesis {
		return nil, reject(ErrGenesis, "%s at position %d", op.Type(), s.length)
	}
	switch b := op.Body.(type) {
	case *Genesis:
		return s.checkGenesis(op, tbs, b)
	case *RedeemInvite:
		return s.checkRedeem(op, tbs, b)
	}
	a, err := s.resolveActor(op, tbs)
	if err != nil {
		return nil, err
	}
	if a.agent != nil {
		if b, ok := op.Body.(*AdmitAgent); ok {
			return s.checkAdmitAgent(op, a, b)
		}
		return nil, reject(ErrNotAuthorized, "an agent may only sign admit-agent, not %s", op.Type())
	}
	if a.recovery != nil {
		if b, ok := op.Body.(*RecoverDevice); ok {
			return s.checkRecoverDevice(op, a, b)
		}
		return nil, reject(ErrNotAuthorized, "a recovery principal may only sign recover-device, not %s", op.Type())
	}
	if a.device.Probation && probationForbids[op.Type()] {
		return nil, reject(ErrProbation, "%s by device %s", op.Type(), a.device.ID.ShortString())
	}
	switch b := op.Body.(type) {
	case *RecoverDevice:
		return nil, reject(ErrNotAuthorized, "recover-device is signed by the user's recovery principal")
	case *ApproveDevice:
		return s.checkApproveDevice(op, a, b)
	case *AdmitDevice:
		return s.checkAdmitDevice(op, a, b)
	case *AdmitAgent:
		return s.checkAdmitAgent(op, a, b)
	case *AdmitRecovery:
		return s.checkAdmitRecovery(op, a, b)
	case *Revoke:
		return s.checkRevoke(op, a, b)
	case *SetRole:
		return s.checkSetRole(op, a, b)
	case *CreateGroup:
		return s.checkCreateGroup(op, a, b)
	case *RenameGroup, *ReorderGroup, *ArchiveGroup, *DeleteGroup:
		return s.checkGroupEdit(op, a)
	case *Invite:
		return s.checkInvite(op, a, b)
	case *RevokeInvite:
		return s.checkRevokeInvite(op, a, b)
	case *PendingAdd:
		return s.checkPendingAdd(op, a, b)
	case *PendingResolve:
		return s.checkPendingResolve(op, a, b)
	case *RetentionPolicy:
		return s.checkRetentionPolicy(op, a, b)
	case *RetentionApprove:
		return s.checkRetentionApprove(op, a, b)
	}
	return nil, reject(ErrBadOperation, "unknown operation %s", op.Type())
}

func (s *State) resolveActor(op *Operation, tbs []byte) (actor, error) {
	switch op.Actor.Kind {
	case identity.KindDevice:
		d, ok := s.devices[identity.DeviceID(op.Actor.ID)]
		if !ok {
			return actor{}, reject(ErrUnknownActor, "device %s", op.Actor.ShortString())
		}
		if err := d.Public.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
			return actor{}, reject(ErrBadSignature, "device %s", op.Actor.ShortString())
		}
		if !s.DeviceLive(d.ID) {
			return actor{}, reject(ErrActorRevoked, "device %s", op.Actor.ShortString())
		}
		return actor{device: d}, nil
	case identity.KindAgent:
		a, ok := s.agents[identity.AgentID(op.Actor.ID)]
		if !ok {
			return actor{}, reject(ErrUnknownActor, "agent %s", op.Actor.ShortString())
		}
		if err := a.Cert.Agent.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
			return actor{}, reject(ErrBadSignature, "agent %s", op.Actor.ShortString())
		}
		if !s.AgentLive(a.ID, op.CreatedAt) {
			return actor{}, reject(ErrActorRevoked, "agent %s is revoked or its certificate is not live", op.Actor.ShortString())
		}
		return actor{agent: a}, nil
	case identity.KindRecovery:
		r, ok := s.recoveries[identity.RecoveryID(op.Actor.ID)]
		if !ok {
			return actor{}, reject(ErrUnknownActor, "recovery principal %s", op.Actor.ShortString())
		}
		if err := r.Public.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
			return actor{}, reject(ErrBadSignature, "recovery principal %s", op.Actor.ShortString())
		}
		if r.RevokedAt != nil || s.users[r.User].RevokedAt != nil {
			return actor{}, reject(ErrActorRevoked, "recovery principal %s", op.Actor.ShortString())
		}
		return actor{recovery: r}, nil
	}
	return actor{}, reject(ErrUnknownActor, "principal kind %s cannot sign", op.Actor.Kind)
}

func (s *State) ref(op *Operation) Ref { return Ref{Index: s.length, Head: op.Head()} }

func (s *State) checkGenesis(op *Operation, tbs []byte, b *Genesis) (func(), error) {
	if op.Actor != identity.DevicePrincipal(identity.DeviceIDOf(b.Device)) {
		return nil, reject(ErrBadOperation, "genesis must be signed by the device it admits")
	}
	if err := b.Device.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
		return nil, reject(ErrBadSignature, "genesis device")
	}
	if b.Workspace.IsZero() || b.User.IsZero() {
		return nil, reject(ErrBadOperation, "genesis needs a workspace id and a user id")
	}
	if s.opts.Genesis != nil && !s.opts.Genesis.Equal(b.GenesisKey) {
		return nil, reject(ErrGenesis, "genesis names %s, the workspace was provisioned with %s",
			b.GenesisKey.ShortString(), s.opts.Genesis.ShortString())
	}
	if err := b.GenesisKey.Verify(identity.LabelGenesis, GenesisContent(b.Workspace, b.User, b.Device), b.GenesisSig); err != nil {
		return nil, reject(ErrBadSignature, "the genesis key's signature does not verify")
	}
	ref := s.ref(op)
	return func() {
		s.workspace = b.Workspace
		s.genesisKey = b.GenesisKey
		did := identity.DeviceIDOf(b.Device)
		s.users[b.User] = &UserInfo{ID: b.User, Role: RoleAdmin, Admitted: ref, Devices: []identity.DeviceID{did}}
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref}
	}, nil
}

func (s *State) checkRedeem(op *Operation, tbs []byte, b *RedeemInvite) (func(), error) {
	did := identity.DeviceIDOf(b.Device)
	if op.Actor != identity.DevicePrincipal(did) {
		return nil, reject(ErrBadOperation, "a redemption is signed by the device it admits")
	}
	if err := b.Device.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
		return nil, reject(ErrBadSignature, "redeeming device")
	}
	if _, ok := s.devices[did]; ok {
		return nil, reject(ErrDuplicate, "device %s is already in the roster", did.ShortString())
	}
	if _, ok := s.users[b.User]; ok || b.User.IsZero() {
		return nil, reject(ErrDuplicate, "user %s already exists", b.User.ShortString())
	}
	inv, ok := s.invites[b.Invite]
	if !ok {
		return nil, reject(ErrUnknownInvite, "")
	}
	switch {
	case inv.Revoked:
		return nil, reject(ErrInviteRevoked, "")
	case !s.DeviceLive(inv.CreatedBy):
		return nil, reject(ErrInviteRevoked, "the device that created it has been revoked")
	case !op.CreatedAt.Before(inv.Invite.ExpiresAt):
		return nil, reject(ErrInviteExpired, "it expired at %s", inv.Invite.ExpiresAt.Format(time.RFC3339))
	case inv.Uses >= int(inv.Invite.MaxUses):
		return nil, reject(ErrInviteUsed, "%d of %d uses", inv.Uses, inv.Invite.MaxUses)
	}
	content := RedeemContent(s.workspace, op.PrevHead, b.Invite, b.User, b.Device)
	if err := inv.Invite.ProofKey.Verify(identity.LabelInviteRedeem, content, b.Proof); err != nil {
		return nil, reject(ErrInviteProof, "")
	}
	ref := s.ref(op)
	return func() {
		invID := b.Invite
		s.users[b.User] = &UserInfo{ID: b.User, Role: inv.Invite.Role, Admitted: ref, Devices: []identity.DeviceID{did}}
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref, Invite: &invID}
		inv.Uses++
	}, nil
}

func (s *State) checkAdmitDevice(op *Operation, a actor, b *AdmitDevice) (func(), error) {
	u, ok := s.users[b.User]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "user %s", b.User.ShortString())
	}
	if u.RevokedAt != nil {
		return nil, reject(ErrAlreadyRevoked, "user %s", b.User.ShortString())
	}
	if !s.IsAdmin(a.device.ID) && a.user() != b.User {
		return nil, reject(ErrNotAuthorized, "only an admin or the user's own device may admit a device")
	}
	did := identity.DeviceIDOf(b.Device)
	if b.Device.IsZero() {
		return nil, reject(ErrBadOperation, "no device key")
	}
	if _, ok := s.devices[did]; ok {
		return nil, reject(ErrDuplicate, "device %s", did.ShortString())
	}
	ref := s.ref(op)
	return func() {
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref}
		u.Devices = append(u.Devices, did)
	}, nil
}

func (s *State) checkRecoverDevice(op *Operation, a actor, b *RecoverDevice) (func(), error) {
	if b.User != a.recovery.User {
		return nil, reject(ErrNotAuthorized, "a recovery principal recovers only its own user")
	}
	did := identity.DeviceIDOf(b.Device)
	if b.Device.IsZero() {
		return nil, reject(ErrBadOperation, "no device key")
	}
	if _, ok := s.devices[did]; ok {
		return nil, reject(ErrDuplicate, "device %s", did.ShortString())
	}
	u := s.users[b.User]
	ref := s.ref(op)
	return func() {
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref, Probation: true}
		u.Devices = append(u.Devices, did)
	}, nil
}

func (s *State) checkApproveDevice(op *Operation, a actor, b *ApproveDevice) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin approves a recovered device")
	}
	d, ok := s.devices[b.Device]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "device %s", b.Device.ShortString())
	}
	if !s.DeviceLive(d.ID) {
		return nil, reject(ErrAlreadyRevoked, "device %s", b.Device.ShortString())
	}
	if !d.Probation {
		return nil, reject(ErrBadOperation, "device %s is not on probation", b.Device.ShortString())
	}
	if a.device.Admitted.Index > d.Admitted.Index {
		return nil, reject(ErrNotAuthorized, "only an admin device admitted before the recovered one approves it")
	}
	return func() { d.Probation = false }, nil
}

func (s *State) checkAdmitAgent(op *Operation, a actor, b *AdmitAgent) (func(), error) {
	c := b.Cert
	if c == nil {
		return nil, reject(ErrBadOperation, "no certificate")
	}
	if c.Parent == nil {
		if a.device == nil || a.device.ID != c.IssuingDevice {
			return nil, reject(ErrNotAuthorized, "a root delegation is admitted by its issuing device")
		}
	} else if a.agent == nil || a.agent.ID != c.Parent.AgentID() {
		return nil, reject(ErrNotAuthorized, "a sub-delegation is admitted by its parent agent")
	}
	aid := c.AgentID()
	prev, renewal := s.agents[aid]
	if renewal {
		// Renewal or a scope change (spec/channels.md "Group policy"): a
		// new certificate for an admitted agent, from the same issuer.
		if prev.RevokedAt != nil {
			return nil, reject(ErrAlreadyRevoked, "agent %s; a revoked agent needs a new key", aid.ShortString())
		}
		if prev.Cert.IssuingDevice != c.IssuingDevice || (prev.Cert.Parent == nil) != (c.Parent == nil) ||
			(c.Parent != nil && prev.Cert.Parent.AgentID() != c.Parent.AgentID()) {
			return nil, reject(ErrNotAuthorized, "a renewal comes from the agent's own issuer")
		}
		old, _ := prev.Cert.Marshal()
		cur, _ := c.Marshal()
		if bytes.Equal(old, cur) {
			return nil, reject(ErrDuplicate, "agent %s already holds this certificate", aid.ShortString())
		}
	}
	for _, g := range c.Scope {
		if gi, ok := s.groups[g]; !ok || gi.Deleted {
			return nil, reject(ErrUnknownGroup, "certificate scope names %s", g.ShortString())
		}
	}
	if err := s.certLive(c, op.CreatedAt); err != nil {
		return nil, err
	}
	ref := s.ref(op)
	if renewal {
		return func() { prev.Cert = c; prev.Renewed = &ref }, nil
	}
	return func() { s.agents[aid] = &AgentInfo{ID: aid, Cert: c, Admitted: ref} }, nil
}

func (s *State) checkAdmitRecovery(op *Operation, a actor, b *AdmitRecovery) (func(), error) {
	if a.user() != b.User {
		return nil, reject(ErrNotAuthorized, "a recovery principal is registered by one of its user's devices")
	}
	if b.Recovery.IsZero() || len(b.HPKE) != 32 {
		return nil, reject(ErrBadOperation, "a recovery principal needs a signature key and a 32-byte HPKE key")
	}
	rid := identity.RecoveryIDOf(b.Recovery)
	if _, ok := s.recoveries[rid]; ok {
		return nil, reject(ErrDuplicate, "recovery principal %s", rid.ShortString())
	}
	u := s.users[b.User]
	for _, r := range u.Recovery {
		if s.recoveries[r].RevokedAt == nil {
			return nil, reject(ErrDuplicate, "the user already has a live recovery principal; revoke it first")
		}
	}
	ref := s.ref(op)
	return func() {
		s.recoveries[rid] = &RecoveryInfo{ID: rid, User: b.User, Public: b.Recovery, HPKE: b.HPKE, Admitted: ref}
		u.Recovery = append(u.Recovery, rid)
	}, nil
}

// ownerOf returns the user a principal belongs to.
func (s *State) ownerOf(p identity.Principal) (identity.UserID, *time.Time, bool) {
	switch p.Kind {
	case identity.KindUser:
		if u, ok := s.users[identity.UserID(p.ID)]; ok {
			return u.ID, u.RevokedAt, true
		}
	case identity.KindDevice:
		if d, ok := s.devices[identity.DeviceID(p.ID)]; ok {
			return d.User, d.RevokedAt, true
		}
	case identity.KindAgent:
		if a, ok := s.agents[identity.AgentID(p.ID)]; ok {
			if d, ok := s.devices[a.Cert.IssuingDevice]; ok {
				return d.User, a.RevokedAt, true
			}
		}
	case identity.KindRecovery:
		if r, ok := s.recoveries[identity.RecoveryID(p.ID)]; ok {
			return r.User, r.RevokedAt, true
		}
	}
	return identity.UserID{}, nil, false
}

func (s *State) checkRevoke(op *Operation, a actor, b *Revoke) (func(), error) {
	if len(b.Targets) == 0 {
		return nil, reject(ErrBadOperation, "nothing to revoke")
	}
	if b.RevokedAt.After(op.CreatedAt) {
		return nil, reject(ErrBadOperation, "revoked_at is after the operation's own time")
	}
	admin := s.IsAdmin(a.device.ID)
	gone := map[identity.Principal]bool{}
	for _, p := range b.Targets {
		if gone[p] {
			return nil, reject(ErrBadOperation, "%s is named twice", p.ShortString())
		}
		gone[p] = true
		owner, revoked, ok := s.ownerOf(p)
		if !ok {
			return nil, reject(ErrUnknownPrincipal, "%s", p.ShortString())
		}
		if revoked != nil {
			return nil, reject(ErrAlreadyRevoked, "%s", p.ShortString())
		}
		if !admin && owner != a.user() {
			return nil, reject(ErrNotAuthorized, "only an admin may revoke another user's principals (%s)", p.ShortString())
		}
	}
	if s.LiveAdmins() > 0 {
		left := 0
		for _, u := range s.users {
			if s.adminLive(u, gone) {
				left++
			}
		}
		if left == 0 {
			return nil, reject(ErrLastAdmin, "")
		}
	}
	at := b.RevokedAt
	return func() {
		for _, p := range b.Targets {
			switch p.Kind {
			case identity.KindUser:
				s.users[identity.UserID(p.ID)].RevokedAt = &at
			case identity.KindDevice:
				s.devices[identity.DeviceID(p.ID)].RevokedAt = &at
			case identity.KindAgent:
				s.agents[identity.AgentID(p.ID)].RevokedAt = &at
			case identity.KindRecovery:
				s.recoveries[identity.RecoveryID(p.ID)].RevokedAt = &at
			}
		}
	}, nil
}

func (s *State) checkSetRole(op *Operation, a actor, b *SetRole) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin may set roles")
	}
	if b.Role != RoleAdmin && b.Role != RoleMember {
		return nil, reject(ErrBadOperation, "unknown role %d", b.Role)
	}
	u, ok := s.users[b.User]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "user %s", b.User.ShortString())
	}
	if u.RevokedAt != nil {
		return nil, reject(ErrAlreadyRevoked, "user %s", b.User.ShortString())
	}
	if u.Role == b.Role {
		return nil, reject(ErrBadOperation, "user %s is already %s", b.User.ShortString(), b.Role)
	}
	if b.Role == RoleMember && s.adminLive(u, nil) && s.LiveAdmins() == 1 {
		return nil, reject(ErrLastAdmin, "")
	}
	return func() { u.Role = b.Role }, nil
}

func validName(n string) bool {
	if len(n) == 0 || len(n) > MaxNameLen || !utf8.ValidString(n) {
		return false
	}
	for _, r := range n {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return false
		}
	}
	first, _ := utf8.DecodeRuneInString(n)
	last, _ := utf8.DecodeLastRuneInString(n)
	return !unicode.IsSpace(first) && !unicode.IsSpace(last)
}
