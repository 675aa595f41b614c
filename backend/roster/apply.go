package roster

import (
	"bytes"
	"errors"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
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
	OpInvite: true, OpInviteRevoke: true, OpRetentionPolicy: true, OpRetentionApprove: true, OpRetentionDestroy: true, OpRetentionResolve: true, OpApproveDevice: true, OpRemovalReceipt: true,
	OpPairDevice: true, OpSetRecoveryQuorum: true, OpVouchDevice: true,
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
	var w codec.Writer
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
		switch b := op.Body.(type) {
		case *RecoverDevice:
			return s.checkRecoverDevice(op, a, b)
		case *ApproveDevice:
			return s.checkSelfApprove(op, a, b)
		}
		return nil, reject(ErrNotAuthorized, "a recovery principal may only sign recover-device and approve-device, not %s", op.Type())
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
	case *PairDevice:
		return s.checkPairDevice(op, a, b)
	case *PendingAdd:
		return s.checkPendingAdd(op, a, b)
	case *PendingResolve:
		return s.checkPendingResolve(op, a, b)
	case *RetentionPolicy:
		return s.checkRetentionPolicy(op, a, b)
	case *RetentionApprove:
		return s.checkRetentionApprove(op, a, b)
	case *RetentionDestroy:
		return s.checkRetentionDestroy(op, a, b)
	case *RetentionResolve:
		return s.checkRetentionResolve(op, a, b)
	case *RemovalReceipt:
		return s.checkRemovalReceipt(op, a, b)
	case *SetName:
		return s.checkSetName(a, b)
	case *SetRecoveryQuorum:
		return s.checkSetRecoveryQuorum(op, a, b)
	case *VouchDevice:
		return s.checkVouchDevice(op, a, b)
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
