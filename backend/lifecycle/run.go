package lifecycle

import (
	"context"
	"fmt"
	"slices"
)

// Steps is what the removing client does for each step; each method is
// idempotent (run again after a crash it finds its work done and changes
// nothing).
type Steps interface {
	// AuthChanges returns the authorization head and the authorization
	// changes made after since by anybody but this device (its own
	// revocation is part of the operation, not an intervening change).
	AuthChanges(ctx context.Context, since ID) (head ID, changes []string, err error)
	// Revoke writes revoked_at on every target still live, in one
	// roster.revoke.
	Revoke(ctx context.Context, op *RemovalOperation) error
	// Rotate removes op.Leaves from each group of slots with one commit
	// per group, setting slot.Rotated and slot.Epoch, or slot.NoLeaf when
	// none is in it, or slot.NotMember. An error leaves the slots it did
	// not reach as they were.
	Rotate(ctx context.Context, op *RemovalOperation, slots []*GroupSlot) error
	// DeleteWraps has the relay delete, in each group of slots, the
	// recovery wraps sealed to the person's recovery key, setting
	// slot.WrapsDeleted.
	DeleteWraps(ctx context.Context, op *RemovalOperation, slots []*GroupSlot) error
	// RevokeInvites revokes every invite of op.Invites still live.
	RevokeInvites(ctx context.Context, op *RemovalOperation) error
	// PublishAccess publishes an access set without the targets (compare
	// and swap on its version) and returns the accepted version.
	PublishAccess(ctx context.Context, op *RemovalOperation) (uint64, error)
	// WriteReceipt appends the receipt to the transparency log, unless the
	// log holds one for op.ID already, and returns it.
	WriteReceipt(ctx context.Context, op *RemovalOperation) (*Receipt, error)
	// Save persists op.
	Save(ctx context.Context, op *RemovalOperation) error
	// Progress reports a step's progress (done of total).
	Progress(op *RemovalOperation, step Step, done, total int)
	// Crash is the test hook called after each saved step; an error stops
	// the run there as a crash would.
	Crash(step string) error
}

// Run takes op from its current step to the receipt, saving it after
// every step. It returns ErrPaused (the operation saved in
// StateNeedsReapproval) when the authorization head moved, before the
// first MLS commit, by somebody else's change.
func Run(ctx context.Context, op *RemovalOperation, s Steps) error {
	if op.State == StateNeedsReapproval {
		return ErrPaused
	}
	for op.State == StateRunning {
		if err := runStep(ctx, op, s); err != nil {
			return err
		}
	}
	if op.State == StateNeedsReapproval {
		return ErrPaused
	}
	return nil
}

func runStep(ctx context.Context, op *RemovalOperation, s Steps) error {
	switch op.Step {
	case StepRevoke:
		if paused, err := checkHead(ctx, op, s); paused || err != nil {
			return err
		}
		if !op.Partial() {
			if err := s.Revoke(ctx, op); err != nil {
				return err
			}
		}
		return advance(ctx, op, s, StepRotate, string(StepRevoke))
	case StepRotate:
		// In batches of rotateBatch groups: one Remove commit per group,
		// the batch's commits sent together and the operation saved once
		// per batch (saving it after each group rewrote every slot each
		// time, quadratic in the number of groups).
		var batch []*GroupSlot
		var index []int
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if !op.committed() {
				if paused, err := checkHead(ctx, op, s); paused || err != nil {
					return err
				}
			}
			if err := s.Rotate(ctx, op, batch); err != nil {
				return err
			}
			if err := s.Save(ctx, op); err != nil {
				return err
			}
			for _, i := range index {
				s.Progress(op, StepRotate, i+1, len(op.Groups))
			}
			for _, i := range index {
				if err := s.Crash(fmt.Sprintf("%s/%d", StepRotate, i)); err != nil {
					return err
				}
			}
			batch, index = batch[:0], index[:0]
			return nil
		}
		for i := range op.Groups {
			slot := &op.Groups[i]
			if slot.Rotated || slot.NoLeaf || slot.NotMember {
				continue
			}
			batch, index = append(batch, slot), append(index, i)
			if len(batch) == rotateBatch || !op.committed() {
				// The first commit alone: the authorization head is
				// checked before it, and nothing pauses after it.
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return advance(ctx, op, s, StepWraps, string(StepRotate))
	case StepWraps:
		// In batches of wrapsBatch groups, the operation saved after each:
		// DeleteWraps is idempotent (run again it deletes nothing), and a
		// save rewrites every slot, so one per group made this step
		// quadratic in the number of groups.
		var batch []*GroupSlot
		var index []int
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if err := s.DeleteWraps(ctx, op, batch); err != nil {
				return err
			}
			for _, slot := range batch {
				slot.Wraps = true
			}
			if err := s.Save(ctx, op); err != nil {
				return err
			}
			for _, i := range index {
				s.Progress(op, StepWraps, i+1, len(op.Groups))
			}
			batch, index = batch[:0], index[:0]
			return nil
		}
		for i := range op.Groups {
			if slot := &op.Groups[i]; !slot.Wraps {
				batch, index = append(batch, slot), append(index, i)
			}
			if len(batch) == wrapsBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return advance(ctx, op, s, StepInvites, string(StepWraps))
	case StepInvites:
		if !op.Partial() {
			if err := s.RevokeInvites(ctx, op); err != nil {
				return err
			}
		}
		return advance(ctx, op, s, StepAccess, string(StepInvites))
	case StepAccess:
		if !op.Partial() {
			v, err := s.PublishAccess(ctx, op)
			if err != nil {
				return err
			}
			op.Access = AccessSlot{Done: true, Version: v}
		}
		return advance(ctx, op, s, StepReceipt, string(StepAccess))
	case StepReceipt:
		if !op.complete() {
			return fmt.Errorf("lifecycle: removal %s reached its receipt with a slot open", op.ID.Hex())
		}
		r, err := s.WriteReceipt(ctx, op)
		if err != nil {
			return err
		}
		op.Receipt, op.State = r, StateDone
		return advance(ctx, op, s, StepDone, string(StepReceipt))
	}
	return fmt.Errorf("lifecycle: removal %s at unknown step %q", op.ID.Hex(), op.Step)
}

// rotateBatch is how many groups' commits are made and sent together.
const rotateBatch = 64

// wrapsBatch is how many groups' wraps are deleted in one request, between
// two saves of the operation.
const wrapsBatch = 64

// advance records that the current step is done and calls the crash hook.
func advance(ctx context.Context, op *RemovalOperation, s Steps, next Step, done string) error {
	op.Step = next
	if err := s.Save(ctx, op); err != nil {
		return err
	}
	s.Progress(op, Step(done), 1, 1)
	return s.Crash(done)
}

// checkHead pauses op when somebody else changed the authorization state
// since op.BasedOn; else it moves BasedOn to the current head.
func checkHead(ctx context.Context, op *RemovalOperation, s Steps) (bool, error) {
	head, changes, err := s.AuthChanges(ctx, op.BasedOn)
	if err != nil {
		return false, err
	}
	if len(changes) > 0 {
		op.State, op.Intervening = StateNeedsReapproval, changes
		if err := s.Save(ctx, op); err != nil {
			return true, err
		}
		return true, ErrPaused
	}
	if head != op.BasedOn {
		op.BasedOn = head // only this device's own changes since
		return false, s.Save(ctx, op)
	}
	return false, nil
}

// committed reports whether a group was rotated already (the first MLS
// commit is behind the operation).
func (op *RemovalOperation) committed() bool {
	for _, g := range op.Groups {
		if g.Rotated {
			return true
		}
	}
	return false
}

// complete reports whether every slot is filled: each group rotated (or
// found without their leaf) with its wraps deleted, and, for a
// whole-workspace removal, the access set accepted.
func (op *RemovalOperation) complete() bool {
	for _, g := range op.Groups {
		if !(g.Rotated || g.NoLeaf || g.NotMember) || !g.Wraps {
			return false
		}
	}
	return op.Partial() || op.Access.Done
}

// Reapprove resumes a paused operation on the current authorization head:
// the caller has shown the intervening changes and the admin approved
// again; what the new roster enumerates (a device admitted meanwhile) is
// added to the targets, leaves and invites.
func Reapprove(op *RemovalOperation, head ID, targets []Principal, leaves []ID, invites []ID) {
	op.BasedOn, op.State, op.Intervening = head, StateRunning, nil
	op.Targets = union(op.Targets, targets)
	op.Leaves = union(op.Leaves, leaves)
	op.Invites = union(op.Invites, invites)
}

func union[T comparable](a, b []T) []T {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}
