package roster

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// Version is the only operation version this package reads and writes.
const Version = 1

// MaxOperationSize bounds one encoded operation.
const MaxOperationSize = 256 << 10

// Head is SHA-256 of an operation's bytes; the empty roster's head is zero.
type Head [32]byte

// String prints the head as hex with a prefix.
func (h Head) String() string { return fmt.Sprintf("head_%x", h[:]) }

// ShortString prints 8 hex digits.
func (h Head) ShortString() string { return fmt.Sprintf("head_%x", h[:4]) }

// HeadOf returns SHA-256(operation bytes).
func HeadOf(op []byte) Head { return sha256.Sum256(op) }

// OpType identifies an operation body.
type OpType uint8

// Operation types (wire values).
const (
	OpGenesis          OpType = 1
	OpAdmitDevice      OpType = 2
	OpAdmitAgent       OpType = 3
	OpAdmitRecovery    OpType = 4
	OpRedeemInvite     OpType = 5
	OpRevoke           OpType = 6
	OpSetRole          OpType = 7
	OpGroupPolicy      OpType = 8
	OpGroupRename      OpType = 9
	OpGroupReorder     OpType = 10
	OpGroupArchive     OpType = 11
	OpGroupDelete      OpType = 12
	OpInvite           OpType = 13
	OpInviteRevoke     OpType = 14
	OpPendingAdd       OpType = 15
	OpPendingResolve   OpType = 16
	OpRetentionPolicy  OpType = 17
	OpRetentionApprove OpType = 18
	OpRecoverDevice    OpType = 19
	OpApproveDevice    OpType = 20
	OpSetName          OpType = 21
	OpPairDevice       OpType = 22
)

var opNames = map[OpType]string{
	OpGenesis: "genesis", OpAdmitDevice: "admit-device", OpAdmitAgent: "admit-agent",
	OpAdmitRecovery: "admit-recovery", OpRedeemInvite: "redeem-invite", OpRevoke: "revoke",
	OpSetRole: "set-role", OpGroupPolicy: "group-policy", OpGroupRename: "group-rename",
	OpGroupReorder: "group-reorder", OpGroupArchive: "group-archive", OpGroupDelete: "group-delete",
	OpInvite: "invite", OpInviteRevoke: "invite-revoke", OpPendingAdd: "pending-add",
	OpPendingResolve: "pending-resolve", OpRetentionPolicy: "retention-policy",
	OpRetentionApprove: "retention-approve", OpRecoverDevice: "recover-device",
	OpApproveDevice: "approve-device", OpRetentionDestroy: "retention-destroy", OpRetentionResolve: "retention-resolve", OpRemovalReceipt: "removal-receipt", OpSetName: "set-name",
	OpPairDevice: "pair-device", OpSetRecoveryQuorum: "set-recovery-quorum", OpVouchDevice: "vouch-device",
}

func (t OpType) String() string {
	if s, ok := opNames[t]; ok {
		return s
	}
	return fmt.Sprintf("op(%d)", uint8(t))
}

// Body is the type-specific part of an operation.
type Body interface {
	Type() OpType
	encode(w *codec.Writer)
}

// Operation is one roster operation.
//
//	struct {
//	  uint8 version = 1;
//	  opaque prev_head[32];
//	  uint64 created_at;                 // unix milliseconds
//	  uint8 actor_kind; opaque actor[32]; // the signing principal
//	  uint8 type;
//	  opaque body<V>;
//	} OperationTBS;
//	struct { OperationTBS tbs; opaque signature<V>; } RosterOperation;
//
// The signature is by the actor's key, label "roster-op", over OperationTBS.
type Operation struct {
	PrevHead  Head
	CreatedAt time.Time
	Actor     identity.Principal
	Body      Body
	Signature []byte

	raw []byte // the full encoding, set by Sign and Decode
}

// Bytes returns the operation's encoding (what the relay stores).
func (op *Operation) Bytes() []byte { return op.raw }

// Head returns SHA-256 of the operation's encoding.
func (op *Operation) Head() Head { return HeadOf(op.raw) }

// Type returns the body's type.
func (op *Operation) Type() OpType { return op.Body.Type() }

func (op *Operation) tbs() ([]byte, error) {
	var body codec.Writer
	op.Body.encode(&body)
	var w codec.Writer
	w.U8(Version)
	w.Raw(op.PrevHead[:])
	w.U64(identity.UnixMilli(op.CreatedAt))
	w.U8(uint8(op.Actor.Kind))
	w.Raw(op.Actor.ID[:])
	w.U8(uint8(op.Body.Type()))
	w.Opaque(body.Bytes())
	if err := body.Err(); err != nil {
		return nil, err
	}
	return w.Bytes(), w.Err()
}

// Signer is a principal's signing key: a device, an agent or a recovery principal.
type Signer interface {
	Principal() identity.Principal
	Sign(label identity.Label, content []byte) ([]byte, error)
}

type deviceSigner struct{ k identity.DevicePrivate }

func (s deviceSigner) Principal() identity.Principal {
	return identity.DevicePrincipal(identity.DeviceIDOf(s.k.Public()))
}
func (s deviceSigner) Sign(l identity.Label, c []byte) ([]byte, error) { return s.k.Sign(l, c) }

type agentSigner struct{ k identity.AgentPrivate }

func (s agentSigner) Principal() identity.Principal {
	return identity.AgentPrincipal(identity.AgentIDOf(s.k.Public()))
}
func (s agentSigner) Sign(l identity.Label, c []byte) ([]byte, error) { return s.k.Sign(l, c) }

type recoverySigner struct{ k identity.RecoveryPrivate }

func (s recoverySigner) Principal() identity.Principal {
	return identity.RecoveryPrincipal(identity.RecoveryIDOf(s.k.Public()))
}
func (s recoverySigner) Sign(l identity.Label, c []byte) ([]byte, error) { return s.k.Sign(l, c) }

// RecoverySigner signs as a recovery principal (only recover-device).
func RecoverySigner(k identity.RecoveryPrivate) Signer { return recoverySigner{k} }

// DeviceSigner signs as a device.
func DeviceSigner(k identity.DevicePrivate) Signer { return deviceSigner{k} }

// AgentSigner signs as an agent.
func AgentSigner(k identity.AgentPrivate) Signer { return agentSigner{k} }

// Sign builds and signs an operation extending prev. The time is truncated
// to milliseconds, as on the wire. For a group-policy operation signed by a
// device, Sign fills the policy's created_by and created_at from the signer
// and the operation's time (on a copy of body), since they must agree.
func Sign(s Signer, prev Head, at time.Time, body Body) (*Operation, error) {
	op := &Operation{PrevHead: prev, CreatedAt: identity.FromUnixMilli(identity.UnixMilli(at)),
		Actor: s.Principal(), Body: body}
	if cg, ok := body.(*CreateGroup); ok && op.Actor.Kind == identity.KindDevice {
		c := *cg
		c.Policy.CreatedBy = identity.DeviceID(op.Actor.ID)
		c.Policy.CreatedAt = op.CreatedAt
		op.Body = &c
	}
	tbs, err := op.tbs()
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", body.Type(), err)
	}
	if op.Signature, err = s.Sign(identity.LabelRosterOp, tbs); err != nil {
		return nil, fmt.Errorf("sign %s: %w", body.Type(), err)
	}
	var w codec.Writer
	w.Raw(tbs)
	w.Opaque(op.Signature)
	op.raw = w.Bytes()
	if len(op.raw) > MaxOperationSize {
		return nil, reject(ErrDecode, "operation is %d bytes, at most %d", len(op.raw), MaxOperationSize)
	}
	return op, nil
}

// Decode parses one operation. It checks the encoding only; meaning and
// signatures are checked by State.Apply. Errors are *Error with Index -1.
func Decode(b []byte) (*Operation, error) {
	op, err := decode(b)
	var e *Error
	if errors.As(err, &e) {
		e.Index = -1
	}
	return op, err
}

func decode(b []byte) (*Operation, error) {
	if len(b) > MaxOperationSize {
		return nil, reject(ErrDecode, "operation is %d bytes, at most %d", len(b), MaxOperationSize)
	}
	r := codec.NewReader(b)
	if v := r.U8(); r.Err() == nil && v != Version {
		return nil, reject(ErrVersion, "version %d", v)
	}
	op := &Operation{}
	op.PrevHead = r.Array32()
	op.CreatedAt = identity.ReadTime(r)
	op.Actor.Kind = identity.PrincipalKind(r.U8())
	op.Actor.ID = r.Array32()
	t := OpType(r.U8())
	body := r.OpaqueMax(MaxOperationSize)
	op.Signature = r.OpaqueMax(64)
	if err := r.Done(); err != nil {
		return nil, reject(ErrDecode, "%v", err)
	}
	br := codec.NewReader(body)
	op.Body = decodeBody(t, br)
	if op.Body == nil {
		return nil, reject(ErrDecode, "unknown operation type %d", uint8(t))
	}
	if err := br.Done(); err != nil {
		return nil, reject(ErrDecode, "%s body: %v", t, err)
	}
	op.raw = append([]byte(nil), b...)
	return op, nil
}
