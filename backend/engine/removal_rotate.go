package engine

import (
	"context"
	"fmt"
	"slices"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/mls"
	"weald/backend/wire"
)

// The removal's rotate step (docs/protocol/lifecycle.md "Steps", 2), a
// batch of groups at a time: every group caught up, one Remove commit
// staged in each and persisted with the group in one transaction, the
// commits sent in one SEND (one relay transaction), each merged from its
// ack when nothing came before it in the log (else from a catch-up), and
// the groups persisted again in one transaction.

// rotateBatch is how many groups' commits a device revocation sends
// together (the removal's batches are lifecycle's, of the same size).
const rotateBatch = 64

// rotation is one group's commit of a batch.
type rotation struct {
	slot *lifecycle.GroupSlot
	g    *group
	p    *pendingCommit
	env  wire.Envelope
}

func (s removalSteps) Rotate(ctx context.Context, op *lifecycle.RemovalOperation, slots []*lifecycle.GroupSlot) (err error) {
	e := s.e
	var keys []fetchKey
	for _, slot := range slots {
		if g := e.groups[identity.GroupID(slot.Group)]; g != nil && g.mls != nil && g.mls.Active() {
			keys = append(keys, fetchKey{wire.ID(slot.Group), g.rec.LastSeq})
		}
	}
	e.prefetch(ctx, keys)
	defer e.dropPrefetched()
	var batch []*rotation
	for _, slot := range slots {
		g, err := e.rotateReady(ctx, op, slot)
		if err != nil {
			return fmt.Errorf("%s: %w", slot.Name, err)
		}
		if g == nil {
			continue
		}
		p, err := e.stageCommit(g, mls.CommitOptions{Remove: removalLeaves(g.mls, op.Leaves)})
		if err != nil {
			return fmt.Errorf("%s: %w", slot.Name, err)
		}
		batch = append(batch, &rotation{slot: slot, g: g, p: p})
	}
	if len(batch) == 0 {
		return nil
	}
	// Durable before sent: a crash from here on finds each commit in its
	// group's record (commit.go).
	if err := e.db.update(ctx, func(t *txn) error {
		for _, r := range batch {
			if err := e.saveGroup(t, r.g); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		for _, r := range batch {
			r.g.pending, r.g.rec.Pending = nil, nil
		}
		return err
	}
	if err := e.crash("commit/staged"); err != nil {
		return err
	}
	envs := make([]wire.Envelope, len(batch))
	for i, r := range batch {
		r.env = wire.Envelope{Group: wire.ID(r.g.rec.ID), Kind: wire.KindMLSCommit, Ctr: r.g.rec.OwnCtr + 1,
			Prev: wire.ID(r.g.rec.OwnPrev), CT: r.p.msg}
		wire.SignEnvelope(&r.env, e.edKey)
		envs[i] = r.env
	}
	acks, err := e.client.Send(ctx, envs...)
	if err != nil {
		// A stale chain head, a lost answer: group by group instead; each
		// group's log says whether its commit was taken (the persisted
		// record merges it then).
		for _, r := range batch {
			r.g.pending = nil
		}
		for _, r := range batch {
			if err := e.rotateOne(ctx, op, r.slot); err != nil {
				return fmt.Errorf("%s: %w", r.slot.Name, err)
			}
		}
		return nil
	}
	for _, r := range batch {
		r.g.rec.OwnCtr, r.g.rec.OwnPrev = r.env.Ctr, hexID(r.env.Hash())
	}
	if err := e.crash("commit/sent"); err != nil {
		return err
	}
	e.deferSaves = map[*group]bool{}
	defer func() {
		if ferr := e.flushDeferred(ctx); err == nil {
			err = ferr
		}
	}()
	var lost []*rotation
	for i, r := range batch {
		g := r.g
		if len(acks) == len(batch) && acks[i].Group == r.env.Group && acks[i].Seq == g.rec.LastSeq+1 {
			// Nothing came before it: the commit is the log's next envelope.
			err = e.processEnvelopes(ctx, g, []wire.SeqEnvelope{{Seq: acks[i].Seq, Envelope: r.env}})
		} else {
			err = e.catchUp(ctx, g)
		}
		g.pending = nil
		if err != nil {
			return fmt.Errorf("%s: %w", r.slot.Name, err)
		}
		if !r.p.merged {
			lost = append(lost, r)
			continue
		}
		r.slot.Rotated, r.slot.Epoch = true, g.mls.Epoch()
	}
	if err := e.flushDeferred(ctx); err != nil {
		return err
	}
	if err := e.crash("commit/merged"); err != nil {
		return err
	}
	for _, r := range batch {
		if r.slot.Rotated {
			if err := e.afterCommit(ctx, r.g); err != nil {
				return fmt.Errorf("%s: %w", r.slot.Name, err)
			}
		}
	}
	// Another commit took the epoch first: that group again, on its own.
	for _, r := range lost {
		if err := e.rotateOne(ctx, op, r.slot); err != nil {
			return fmt.Errorf("%s: %w", r.slot.Name, err)
		}
	}
	return nil
}

// rotateReady catches slot's group up and returns it when a Remove commit
// is to be made there, with slot.Tags computed; otherwise it fills the
// slot (no_leaf, not_member, or, in a removal operation, rotated by this
// device's own commit merged since, after a crash) and returns nil. A
// device revocation run again reports no group: it finds its work done.
func (e *Engine) rotateReady(ctx context.Context, op *lifecycle.RemovalOperation, slot *lifecycle.GroupSlot) (*group, error) {
	id := identity.GroupID(slot.Group)
	g := e.groups[id]
	if gi, ok := e.roster.Group(id); !ok || gi.Deleted {
		slot.NoLeaf = true
		return nil, nil
	}
	if g == nil || g.mls == nil || !g.mls.Active() {
		slot.NotMember = true
		return nil, nil
	}
	if err := e.catchUp(ctx, g); err != nil {
		return nil, err
	}
	if len(removalLeaves(g.mls, op.Leaves)) == 0 {
		if r := g.rec.OwnRemove; r != nil && op.ID != (lifecycle.ID{}) && slices.ContainsFunc(r.Removed, func(id []byte) bool {
			return len(id) == 32 && slices.Contains(op.Leaves, lifecycle.ID(id))
		}) {
			slot.Rotated, slot.Epoch = true, r.Epoch // this device's commit, merged after a crash
			return nil, nil
		}
		slot.NoLeaf, slot.Epoch = true, g.mls.Epoch()
		return nil, nil
	}
	// The tags of this epoch's wraps, while this client can still compute
	// them (step 4 deletes by them).
	slot.Tags = nil
	for _, pub := range e.recoveryPubs(identity.UserID(op.User)) {
		if tag, err := groups.RecoveryTag(g.mls, pub); err == nil {
			slot.Tags = append(slot.Tags, lifecycle.ID(tag))
		}
	}
	return g, nil
}

// rotateOne is the rotate step for one group with commit's retries.
func (e *Engine) rotateOne(ctx context.Context, op *lifecycle.RemovalOperation, slot *lifecycle.GroupSlot) error {
	g, err := e.rotateReady(ctx, op, slot)
	if err != nil || g == nil {
		return err
	}
	if err := e.commit(ctx, g, mls.CommitOptions{Remove: removalLeaves(g.mls, op.Leaves)}); err != nil {
		return err
	}
	slot.Rotated, slot.Epoch = true, g.mls.Epoch()
	return nil
}

// flushDeferred persists, in one transaction, the groups whose saves
// processEnvelopes deferred (e.deferSaves) and the content shards, and
// stops deferring.
func (e *Engine) flushDeferred(ctx context.Context) error {
	pending := e.deferSaves
	e.deferSaves = nil
	if len(pending) == 0 {
		return nil
	}
	return e.db.update(ctx, func(t *txn) error {
		if err := e.saveShards(t); err != nil {
			return err
		}
		for g := range pending {
			if err := e.saveGroup(t, g); err != nil {
				return err
			}
		}
		return nil
	})
}
