package roster

import (
	"bytes"
	"time"
	"unicode"
	"unicode/utf8"

	"weald/backend/identity"
	"weald/backend/wire"
)

func (s *State) checkGenesis(op *Operation, tbs []byte, b *Genesis) (func(), error) {
	if op.Actor != identity.DevicePrincipal(identity.DeviceIDOf(b.Device)) {
		return nil, reject(ErrBadOperation, "genesis must be signed by the device it admits")
	}
	if err := primeOrder(identity.KindDevice, b.Device.Bytes()); err != nil {
		return nil, err
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
	if h := s.opts.GenesisHead; h != nil && op.Head() != *h {
		return nil, reject(ErrGenesis, "operation 0 is %s, the pinned genesis is %s", op.Head().ShortString(), h.ShortString())
	}
	if err := b.GenesisKey.Verify(identity.LabelGenesis, GenesisContent(b.Workspace, b.User, b.Device), b.GenesisSig); err != nil {
		return nil, reject(ErrBadSignature, "the genesis key's signature does not verify")
	}
	ref := s.ref(op)
	return func() {
		s.workspace = b.Workspace
		s.genesisKey = b.GenesisKey
		did := identity.DeviceIDOf(b.Device)
		s.users[b.User] = &UserInfo{ID: b.User, Role: RoleAdmin, Admitted: ref, Joined: op.CreatedAt, Devices: []identity.DeviceID{did}}
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref}
	}, nil
}

func (s *State) checkRedeem(op *Operation, tbs []byte, b *RedeemInvite) (func(), error) {
	did := identity.DeviceIDOf(b.Device)
	if op.Actor != identity.DevicePrincipal(did) {
		return nil, reject(ErrBadOperation, "a redemption is signed by the device it admits")
	}
	if err := primeOrder(identity.KindDevice, b.Device.Bytes()); err != nil {
		return nil, err
	}
	if err := b.Device.Verify(identity.LabelRosterOp, tbs, op.Signature); err != nil {
		return nil, reject(ErrBadSignature, "redeeming device")
	}
	if _, ok := s.devices[did]; ok {
		return nil, reject(ErrDuplicate, "device %s is already in the roster", did.ShortString())
	}
	inv, ok := s.invites[b.Invite]
	var paired *UserInfo // the user a pairing admits the device under
	if ok && inv.Pairing != nil {
		if b.User != *inv.Pairing {
			return nil, reject(ErrNotAuthorized, "a pairing admits a device of the user who made it")
		}
		if paired = s.users[b.User]; paired == nil || paired.RevokedAt != nil {
			return nil, reject(ErrAlreadyRevoked, "user %s", b.User.ShortString())
		}
	} else if _, exists := s.users[b.User]; exists || b.User.IsZero() {
		return nil, reject(ErrDuplicate, "user %s already exists", b.User.ShortString())
	}
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
		if paired != nil {
			s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref, Invite: &invID}
			paired.Devices = append(paired.Devices, did)
			inv.Uses++
			return
		}
		s.users[b.User] = &UserInfo{ID: b.User, Role: inv.Invite.Role, Admitted: ref, Joined: op.CreatedAt, Devices: []identity.DeviceID{did}}
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
	if err := s.checkPossession(b.Device.Verify, b.User, identity.KindDevice, b.Device.Bytes(), b.Possession); err != nil {
		return nil, err
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
	if err := s.checkPossession(b.Device.Verify, b.User, identity.KindDevice, b.Device.Bytes(), b.Possession); err != nil {
		return nil, err
	}
	u := s.users[b.User]
	ref := s.ref(op)
	return func() {
		s.devices[did] = &DeviceInfo{ID: did, User: b.User, Public: b.Device, Admitted: ref, Probation: true,
			RecoveredBy: a.recovery.ID, RecoveredAt: op.CreatedAt}
		u.Devices = append(u.Devices, did)
	}, nil
}

// onProbation returns the live device on probation that an approve-device names.
func (s *State) onProbation(id identity.DeviceID) (*DeviceInfo, error) {
	d, ok := s.devices[id]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "device %s", id.ShortString())
	}
	if !s.DeviceLive(d.ID) {
		return nil, reject(ErrAlreadyRevoked, "device %s", id.ShortString())
	}
	if !d.Probation {
		return nil, reject(ErrBadOperation, "device %s is not on probation", id.ShortString())
	}
	return d, nil
}

func (s *State) checkApproveDevice(op *Operation, a actor, b *ApproveDevice) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin approves a recovered device")
	}
	d, err := s.onProbation(b.Device)
	if err != nil {
		return nil, err
	}
	if a.device.Admitted.Index > d.Admitted.Index {
		return nil, reject(ErrNotAuthorized, "only an admin device admitted before the recovered one approves it")
	}
	return func() { d.Probation = false }, nil
}

// ProbationWait is how long a recovered device of the only admin waits
// before its own recovery principal may end its probation (docs/protocol/
// lifecycle.md "Recovery onto a new device"): the time the person's
// pre-existing devices have to see the alert and revoke it.
const ProbationWait = 72 * time.Hour

// checkSelfApprove: a recovery principal ends the probation of the device
// its own recover-device admitted, ProbationWait after it, when nobody else
// could: no other user is a live admin and no registered recovery quorum
// can still reach its threshold without the recovered user
// (docs/protocol/roster.md "Recovery quorum").
func (s *State) checkSelfApprove(op *Operation, a actor, b *ApproveDevice) (func(), error) {
	d, err := s.onProbation(b.Device)
	if err != nil {
		return nil, err
	}
	if d.RecoveredBy != a.recovery.ID {
		return nil, reject(ErrNotAuthorized, "a recovery principal approves only the device it recovered")
	}
	for _, u := range s.users {
		if u.ID != d.User && s.adminLive(u, nil) {
			return nil, reject(ErrNotAuthorized, "another admin approves the recovered device")
		}
	}
	if s.QuorumCanReach(d.User) {
		return nil, reject(ErrNotAuthorized, "a registered recovery quorum vouches for the recovered device")
	}
	if end := d.RecoveredAt.Add(ProbationWait); op.CreatedAt.Before(end) {
		return nil, reject(ErrProbation, "the recovered device's probation ends at %s", end.UTC().Format(time.RFC3339))
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
	if !validName(b.Name) {
		return nil, reject(ErrBadName, "agent name %q", b.Name)
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
		old, _ := prev.Cert.Encode()
		cur, _ := c.Encode()
		if bytes.Equal(old, cur) && prev.Name == b.Name {
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
	if err := s.checkPossession(c.Agent.Verify, [32]byte{}, identity.KindAgent, c.Agent.Bytes(), b.Possession); err != nil {
		return nil, err
	}
	ref := s.ref(op)
	if renewal {
		return func() { prev.Cert = c; prev.Name = b.Name; prev.Renewed = &ref }, nil
	}
	return func() { s.agents[aid] = &AgentInfo{ID: aid, Name: b.Name, Cert: c, Admitted: ref} }, nil
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
	if err := s.checkPossession(b.Recovery.Verify, b.User, identity.KindRecovery, b.Recovery.Bytes(), b.Possession); err != nil {
		return nil, err
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

// primeOrder refuses a key that is not a canonical Ed25519 point of the
// prime-order subgroup: under a small-order key anyone can make signatures
// crypto/ed25519 accepts (a proof of possession included), and the relay
// refuses an access set that lists one, so admitting it would block every
// later access set (docs/security.md section 7).
func primeOrder(kind identity.PrincipalKind, pub []byte) error {
	if !wire.PrimeOrderKey(pub) {
		return reject(ErrBadKey, "%s key %x… is not of prime order", kind, pub[:min(4, len(pub))])
	}
	return nil
}

// checkPossession verifies a proof of possession (PossessionContent) by the
// key being admitted.
func (s *State) checkPossession(verify func(identity.Label, []byte, []byte) error, owner [32]byte, kind identity.PrincipalKind, pub, proof []byte) error {
	if err := primeOrder(kind, pub); err != nil {
		return err
	}
	if verify(identity.LabelPossession, PossessionContent(s.workspace, owner, kind, pub), proof) != nil {
		return reject(ErrPossession, "%s key %x…", kind, pub[:min(4, len(pub))])
	}
	return nil
}
