package roster

import (
	"slices"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
	"weald/backend/wire"
)

// Role is a user's role in the workspace.
type Role uint8

// Roles (wire values).
const (
	RoleAdmin  Role = 1
	RoleMember Role = 2
)

func (r Role) String() string {
	switch r {
	case RoleAdmin:
		return "admin"
	case RoleMember:
		return "member"
	}
	return "role(?)"
}

// InviteID names an invite record (random 32 bytes).
type InviteID [32]byte

// Limits on field sizes in bodies.
const (
	MaxNameLen      = 80
	MaxRevokeBatch  = 1024
	MaxInviteScopes = 512
	MaxPendingBatch = 64
)

// Genesis makes the trust root: its user (admin) and first device, bound
// to the workspace's genesis key recorded at provisioning. It must be
// operation 0 and is signed by the device it admits. GenesisSig is by the
// genesis key, label "roster-genesis", over GenesisContent.
type Genesis struct {
	Workspace  identity.WorkspaceID
	User       identity.UserID
	Device     identity.DevicePublic
	GenesisKey identity.GenesisPublic
	GenesisSig []byte
}

// GenesisContent is what the genesis key signs:
// struct { opaque workspace[32]; opaque user[32]; opaque device_pub[32]; }.
func GenesisContent(ws identity.WorkspaceID, user identity.UserID, dev identity.DevicePublic) []byte {
	var w codec.Writer
	w.Raw(ws[:])
	w.Raw(user[:])
	w.Raw(pad32(dev.Bytes()))
	return w.Bytes()
}

// AdmitDevice admits another device of an existing user. Possession is
// the new device's proof of possession (see PossessionContent).
type AdmitDevice struct {
	User       identity.UserID
	Device     identity.DevicePublic
	Possession []byte
}

// AdmitAgent admits an agent by its delegation certificate (or renews or
// re-scopes an admitted one). Possession is the agent key's proof of
// possession (AgentPossession: made by the agent before it knows who will
// approve it, so its owner is zero); Name is what members see.
type AdmitAgent struct {
	Cert       *identity.DelegationCertificate
	Possession []byte
	Name       string
}

// AdmitRecovery registers a user's recovery principal: its signature key
// and the HPKE public key recovery wraps are sealed to. Possession is the
// recovery key's proof of possession.
type AdmitRecovery struct {
	User       identity.UserID
	Recovery   identity.RecoveryPublic
	HPKE       []byte // 32-byte DHKEM(X25519) public key
	Possession []byte
}

// PossessionContent is what a key admitted by another principal signs, with
// label "key-possession", to prove it is held by whoever asks for its
// admission (so nobody can admit someone else's key as their own):
//
//	struct { opaque workspace[32]; opaque owner[32]; uint8 kind; opaque pub[32]; }
//
// owner is the user id for a device or recovery key and the issuing
// device id for an agent key; kind is the principal kind.
func PossessionContent(ws identity.WorkspaceID, owner [32]byte, kind identity.PrincipalKind, pub []byte) []byte {
	var w codec.Writer
	w.Raw(ws[:])
	w.Raw(owner[:])
	w.U8(uint8(kind))
	w.Raw(pad32(pub))
	return w.Bytes()
}

// DevicePossession is the new device's proof for AdmitDevice or RecoverDevice.
func DevicePossession(ws identity.WorkspaceID, user identity.UserID, k identity.DevicePrivate) ([]byte, error) {
	return k.Sign(identity.LabelPossession, PossessionContent(ws, user, identity.KindDevice, k.Public().Bytes()))
}

// AgentPossession is the agent key's proof for AdmitAgent. The owner is
// zero: an agent signs it in its request (AgentRequest), before anybody
// has approved it, so it binds the key to the workspace only.
func AgentPossession(ws identity.WorkspaceID, k identity.AgentPrivate) ([]byte, error) {
	return k.Sign(identity.LabelPossession, PossessionContent(ws, [32]byte{}, identity.KindAgent, k.Public().Bytes()))
}

// RecoveryPossession is the recovery key's proof for AdmitRecovery.
func RecoveryPossession(ws identity.WorkspaceID, user identity.UserID, k identity.RecoveryPrivate) ([]byte, error) {
	return k.Sign(identity.LabelPossession, PossessionContent(ws, user, identity.KindRecovery, k.Public().Bytes()))
}

// RedeemInvite admits a new user and device by an invite. It is signed by
// the new device; Proof is a signature by the invite's proof key, label
// "invite-redeem", over RedeemContent.
type RedeemInvite struct {
	Invite InviteID
	User   identity.UserID
	Device identity.DevicePublic
	Proof  []byte
}

// RedeemContent is what the invite proof key signs:
// struct { opaque workspace[32]; opaque prev_head[32]; opaque invite[32]; opaque user[32]; opaque device_pub[32]; }.
// Binding the previous head makes a proof usable in exactly one position.
func RedeemContent(ws identity.WorkspaceID, prev Head, inv InviteID, user identity.UserID, dev identity.DevicePublic) []byte {
	var w codec.Writer
	w.Raw(ws[:])
	w.Raw(prev[:])
	w.Raw(inv[:])
	w.Raw(user[:])
	w.Raw(pad32(dev.Bytes()))
	return w.Bytes()
}

// Revoke writes revoked_at on several principals at once (spec/lifecycle.md
// "Removing a person", step 2).
type Revoke struct {
	RevokedAt time.Time
	Targets   []identity.Principal
}

// SetRole sets a user's role.
type SetRole struct {
	User identity.UserID
	Role Role
}

// CreateGroup is the group-policy operation: it creates a group with its
// policy and display name. DMPeer is set for a DM (the other user).
type CreateGroup struct {
	Policy GroupPolicy
	Name   string
	DMPeer *identity.UserID
}

// RenameGroup renames a group.
type RenameGroup struct {
	Group identity.GroupID
	Name  string
}

// ReorderGroup sets a group's sidebar position.
type ReorderGroup struct {
	Group    identity.GroupID
	Position uint32
}

// ArchiveGroup archives or unarchives a group.
type ArchiveGroup struct {
	Group    identity.GroupID
	Archived bool
}

// DeleteGroup deletes a group; its id is never reused.
type DeleteGroup struct {
	Group identity.GroupID
}

// Invite is an invite record (gaps.md "Invites and bootstrap").
type Invite struct {
	ID        InviteID
	Scopes    []identity.GroupID // always includes the root; open groups only
	Role      Role
	ExpiresAt time.Time
	UpdatePub []byte   // 32-byte HPKE public key the bundle is sealed to
	Grant     [32]byte // identity.InviteSecret.Grant(): the invite's grant key, as the relay checks it
	ProofKey  identity.InviteProofPublic
	MaxUses   uint16
}

// PairDevice is a pairing: a one-use, short-lived invite that admits a
// new device of an existing user (docs/protocol/devices.md). It is signed
// by a device of that user; the new device redeems it with RedeemInvite
// naming the same user, and enters the root against the invite bundle
// sealed to UpdatePub, as an invitee does.
type PairDevice struct {
	ID        InviteID
	User      identity.UserID
	ExpiresAt time.Time
	UpdatePub []byte   // 32-byte HPKE public key the bundle is sealed to
	Grant     [32]byte // identity.InviteSecret.Grant()
	ProofKey  identity.InviteProofPublic
}

// RevokeInvite revokes an invite.
type RevokeInvite struct {
	Invite InviteID
}

// PendingAdd records devices an explicit group's member could not add yet
// (spec/channels.md "Explicit groups and the pending add").
type PendingAdd struct {
	Group   identity.GroupID
	Devices []identity.DeviceID
}

// PendingResolve removes a pending add: completed, or cancelled.
type PendingResolve struct {
	Group     identity.GroupID
	Device    identity.DeviceID
	Completed bool
}

// RetentionPolicy proposes a group's retention windows (zero means
// unlimited). It is active once approved by the threshold of admins: 1 in
// a one-admin workspace, 2 otherwise; the proposer's signature counts.
//
// Relay, when present, is the proposing device's approval of the
// relay-visible policy ([RelayPolicy]), so that the admin who completes the
// threshold can publish it with every admin's signature.
type RetentionPolicy struct {
	Group       identity.GroupID
	TextWindow  time.Duration
	MediaWindow time.Duration
	Relay       *wire.Approval
}

// RetentionApprove approves the proposal made by the operation with head
// Proposal; Relay as in [RetentionPolicy].
type RetentionApprove struct {
	Proposal Head
	Relay    *wire.Approval
}

// RecoverDevice admits a new device for a user, signed by the user's
// recovery principal (gaps.md "Identity and the roster"). The device is on
// probation: it may read and write but may not admit, revoke, set roles,
// invite or approve retention until a pre-existing admin approves it.
type RecoverDevice struct {
	User       identity.UserID
	Device     identity.DevicePublic
	Possession []byte
}

// ApproveDevice ends a recovered device's probation. Signed by an admin
// device admitted before the recovered one and not itself on probation.
type ApproveDevice struct {
	Device identity.DeviceID
}

func (*RecoverDevice) Type() OpType    { return OpRecoverDevice }
func (*ApproveDevice) Type() OpType    { return OpApproveDevice }
func (*Genesis) Type() OpType          { return OpGenesis }
func (*AdmitDevice) Type() OpType      { return OpAdmitDevice }
func (*AdmitAgent) Type() OpType       { return OpAdmitAgent }
func (*AdmitRecovery) Type() OpType    { return OpAdmitRecovery }
func (*RedeemInvite) Type() OpType     { return OpRedeemInvite }
func (*Revoke) Type() OpType           { return OpRevoke }
func (*SetRole) Type() OpType          { return OpSetRole }
func (*CreateGroup) Type() OpType      { return OpGroupPolicy }
func (*RenameGroup) Type() OpType      { return OpGroupRename }
func (*ReorderGroup) Type() OpType     { return OpGroupReorder }
func (*ArchiveGroup) Type() OpType     { return OpGroupArchive }
func (*DeleteGroup) Type() OpType      { return OpGroupDelete }
func (*Invite) Type() OpType           { return OpInvite }
func (*RevokeInvite) Type() OpType     { return OpInviteRevoke }
func (*PairDevice) Type() OpType       { return OpPairDevice }
func (*PendingAdd) Type() OpType       { return OpPendingAdd }
func (*PendingResolve) Type() OpType   { return OpPendingResolve }
func (*RetentionPolicy) Type() OpType  { return OpRetentionPolicy }
func (*RetentionApprove) Type() OpType { return OpRetentionApprove }

func pad32(b []byte) []byte {
	if len(b) == 32 {
		return b
	}
	return make([]byte, 32)
}

func (b *Genesis) encode(w *codec.Writer) {
	w.Raw(b.Workspace[:])
	w.Raw(b.User[:])
	w.Raw(pad32(b.Device.Bytes()))
	w.Raw(pad32(b.GenesisKey.Bytes()))
	w.Opaque(b.GenesisSig)
}

func (b *AdmitDevice) encode(w *codec.Writer) {
	w.Raw(b.User[:])
	w.Raw(pad32(b.Device.Bytes()))
	w.Opaque(b.Possession)
}

func (b *AdmitAgent) encode(w *codec.Writer) {
	if b.Cert != nil {
		b.Cert.EncodeTo(w)
	}
	w.Opaque(b.Possession)
	w.String(b.Name)
}

func (b *AdmitRecovery) encode(w *codec.Writer) {
	w.Raw(b.User[:])
	w.Raw(pad32(b.Recovery.Bytes()))
	w.Opaque(b.HPKE)
	w.Opaque(b.Possession)
}

func (b *RedeemInvite) encode(w *codec.Writer) {
	w.Raw(b.Invite[:])
	w.Raw(b.User[:])
	w.Raw(pad32(b.Device.Bytes()))
	w.Opaque(b.Proof)
}

func (b *Revoke) encode(w *codec.Writer) {
	w.U64(identity.UnixMilli(b.RevokedAt))
	w.Vector(func(w *codec.Writer) {
		for _, p := range b.Targets {
			w.U8(uint8(p.Kind))
			w.Raw(p.ID[:])
		}
	})
}

func (b *SetRole) encode(w *codec.Writer) {
	w.Raw(b.User[:])
	w.U8(uint8(b.Role))
}

func (b *CreateGroup) encode(w *codec.Writer) {
	b.Policy.Encode(w)
	w.String(b.Name)
	w.Bool(b.DMPeer != nil)
	if b.DMPeer != nil {
		w.Raw(b.DMPeer[:])
	}
}

func (b *RenameGroup) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.String(b.Name)
}

func (b *ReorderGroup) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.U32(b.Position)
}

func (b *ArchiveGroup) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.Bool(b.Archived)
}

func (b *DeleteGroup) encode(w *codec.Writer) { w.Raw(b.Group[:]) }

func (b *Invite) encode(w *codec.Writer) {
	w.Raw(b.ID[:])
	w.Vector(func(w *codec.Writer) {
		for _, g := range b.Scopes {
			w.Raw(g[:])
		}
	})
	w.U8(uint8(b.Role))
	w.U64(identity.UnixMilli(b.ExpiresAt))
	w.Opaque(b.UpdatePub)
	w.Raw(b.Grant[:])
	w.Raw(pad32(b.ProofKey.Bytes()))
	w.U16(b.MaxUses)
}

func (b *RevokeInvite) encode(w *codec.Writer) { w.Raw(b.Invite[:]) }

func (b *PairDevice) encode(w *codec.Writer) {
	w.Raw(b.ID[:])
	w.Raw(b.User[:])
	w.U64(identity.UnixMilli(b.ExpiresAt))
	w.Opaque(b.UpdatePub)
	w.Raw(b.Grant[:])
	w.Raw(pad32(b.ProofKey.Bytes()))
}

func (b *PendingAdd) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.Vector(func(w *codec.Writer) {
		for _, d := range b.Devices {
			w.Raw(d[:])
		}
	})
}

func (b *PendingResolve) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.Raw(b.Device[:])
	w.Bool(b.Completed)
}

func durMilli(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return uint64(d.Milliseconds())
}

func (b *RetentionPolicy) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.U64(durMilli(b.TextWindow))
	w.U64(durMilli(b.MediaWindow))
	encodeRelayApproval(w, b.Relay)
}

func (b *RetentionApprove) encode(w *codec.Writer) {
	w.Raw(b.Proposal[:])
	encodeRelayApproval(w, b.Relay)
}

// encodeRelayApproval appends an optional relay approval: nothing, or the
// device's 32-byte Ed25519 key and 64-byte signature.
func encodeRelayApproval(w *codec.Writer, a *wire.Approval) {
	if a != nil {
		w.Raw(a.DeviceKey)
		w.Raw(a.Signature)
	}
}

// readRelayApproval reads what encodeRelayApproval wrote: the body ends
// where the approval would begin, or holds exactly one.
func readRelayApproval(r *codec.Reader) *wire.Approval {
	if r.Empty() {
		return nil
	}
	return &wire.Approval{DeviceKey: slices.Clone(r.Raw(32)), Signature: slices.Clone(r.Raw(64))}
}

func (b *RecoverDevice) encode(w *codec.Writer) {
	w.Raw(b.User[:])
	w.Raw(pad32(b.Device.Bytes()))
	w.Opaque(b.Possession)
}

func (b *ApproveDevice) encode(w *codec.Writer) { w.Raw(b.Device[:]) }

// maxWindow bounds retention windows (100 years) so durations round-trip.
const maxWindow = uint64(100 * 365 * 24 * time.Hour / time.Millisecond)

func readWindow(r *codec.Reader) time.Duration {
	v := r.U64()
	if v > maxWindow {
		r.Fail(ErrBadRetention)
		return 0
	}
	return time.Duration(v) * time.Millisecond
}

func readDevicePub(r *codec.Reader) identity.DevicePublic {
	k, _ := identity.PublicFromBytes[identity.Device](r.Raw(32))
	return k
}

func decodeBody(t OpType, r *codec.Reader) Body {
	switch t {
	case OpGenesis:
		b := &Genesis{}
		b.Workspace = identity.WorkspaceID(r.Array32())
		b.User = identity.UserID(r.Array32())
		b.Device = readDevicePub(r)
		b.GenesisKey, _ = identity.PublicFromBytes[identity.Genesis](r.Raw(32))
		b.GenesisSig = r.OpaqueMax(64)
		return b
	case OpAdmitDevice:
		b := &AdmitDevice{}
		b.User = identity.UserID(r.Array32())
		b.Device = readDevicePub(r)
		b.Possession = r.OpaqueMax(64)
		return b
	case OpAdmitAgent:
		b := &AdmitAgent{Cert: identity.DecodeDelegationFrom(r)}
		b.Possession = r.OpaqueMax(64)
		b.Name = r.StringMax(MaxNameLen)
		return b
	case OpAdmitRecovery:
		b := &AdmitRecovery{}
		b.User = identity.UserID(r.Array32())
		b.Recovery, _ = identity.PublicFromBytes[identity.Recovery](r.Raw(32))
		b.HPKE = r.OpaqueMax(32)
		b.Possession = r.OpaqueMax(64)
		return b
	case OpRedeemInvite:
		b := &RedeemInvite{}
		b.Invite = InviteID(r.Array32())
		b.User = identity.UserID(r.Array32())
		b.Device = readDevicePub(r)
		b.Proof = r.OpaqueMax(64)
		return b
	case OpRevoke:
		b := &Revoke{RevokedAt: identity.ReadTime(r)}
		r.VectorMax(MaxRevokeBatch, func(r *codec.Reader) {
			b.Targets = append(b.Targets, identity.Principal{Kind: identity.PrincipalKind(r.U8()), ID: r.Array32()})
		})
		return b
	case OpSetRole:
		return &SetRole{User: identity.UserID(r.Array32()), Role: Role(r.U8())}
	case OpGroupPolicy:
		b := &CreateGroup{Policy: decodePolicy(r)}
		b.Name = r.StringMax(MaxNameLen)
		if r.Bool() {
			u := identity.UserID(r.Array32())
			b.DMPeer = &u
		}
		return b
	case OpGroupRename:
		return &RenameGroup{Group: identity.GroupID(r.Array32()), Name: r.StringMax(MaxNameLen)}
	case OpGroupReorder:
		return &ReorderGroup{Group: identity.GroupID(r.Array32()), Position: r.U32()}
	case OpGroupArchive:
		return &ArchiveGroup{Group: identity.GroupID(r.Array32()), Archived: r.Bool()}
	case OpGroupDelete:
		return &DeleteGroup{Group: identity.GroupID(r.Array32())}
	case OpInvite:
		b := &Invite{ID: InviteID(r.Array32())}
		r.VectorMax(MaxInviteScopes, func(r *codec.Reader) { b.Scopes = append(b.Scopes, identity.GroupID(r.Array32())) })
		b.Role = Role(r.U8())
		b.ExpiresAt = identity.ReadTime(r)
		b.UpdatePub = r.OpaqueMax(32)
		b.Grant = r.Array32()
		b.ProofKey, _ = identity.PublicFromBytes[identity.InviteProof](r.Raw(32))
		b.MaxUses = r.U16()
		return b
	case OpInviteRevoke:
		return &RevokeInvite{Invite: InviteID(r.Array32())}
	case OpPairDevice:
		b := &PairDevice{ID: InviteID(r.Array32()), User: identity.UserID(r.Array32())}
		b.ExpiresAt = identity.ReadTime(r)
		b.UpdatePub = r.OpaqueMax(32)
		b.Grant = r.Array32()
		b.ProofKey, _ = identity.PublicFromBytes[identity.InviteProof](r.Raw(32))
		return b
	case OpPendingAdd:
		b := &PendingAdd{Group: identity.GroupID(r.Array32())}
		r.VectorMax(MaxPendingBatch, func(r *codec.Reader) { b.Devices = append(b.Devices, identity.DeviceID(r.Array32())) })
		return b
	case OpPendingResolve:
		return &PendingResolve{Group: identity.GroupID(r.Array32()), Device: identity.DeviceID(r.Array32()), Completed: r.Bool()}
	case OpRetentionPolicy:
		b := &RetentionPolicy{Group: identity.GroupID(r.Array32()), TextWindow: readWindow(r), MediaWindow: readWindow(r)}
		b.Relay = readRelayApproval(r)
		return b
	case OpRetentionApprove:
		b := &RetentionApprove{Proposal: Head(r.Array32())}
		b.Relay = readRelayApproval(r)
		return b
	case OpRecoverDevice:
		b := &RecoverDevice{User: identity.UserID(r.Array32())}
		b.Device = readDevicePub(r)
		b.Possession = r.OpaqueMax(64)
		return b
	case OpApproveDevice:
		return &ApproveDevice{Device: identity.DeviceID(r.Array32())}
	case OpRemovalReceipt:
		return decodeRemovalReceipt(r)
	case OpRetentionDestroy:
		return decodeRetentionDestroy(r)
	case OpRetentionResolve:
		return decodeRetentionResolve(r)
	case OpSetName:
		return decodeSetName(r)
	case OpSetRecoveryQuorum:
		return decodeSetRecoveryQuorum(r)
	case OpVouchDevice:
		return &VouchDevice{Device: identity.DeviceID(r.Array32())}
	}
	return nil
}
