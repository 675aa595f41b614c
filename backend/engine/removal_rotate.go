package engine

import (
	"context"
	"fmt"
	"slices"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// The removal's rotate step (docs/protocol/lifecycle.md "Steps", 2), a
// batch of groups at a time: every group caught up, then one Remove commit
// in each, made as one batch (commitBatch).

// rotateBatch is how many groups' commits a device revocation sends
// together (the removal's batches are lifecycle's, of the same size).
const rotateBatch = 64

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
	var batch []*batchCommit
	bySlot := map[*batchCommit]*lifecycle.GroupSlot{}
	for _, slot := range slots {
		g, err := e.rotateReady(ctx, op, slot)
		if err != nil {
			return fmt.Errorf("%s: %w", slot.Name, err)
		}
		if g == nil {
			continue
		}
		c := &batchCommit{g: g, name: slot.Name, opts: mls.CommitOptions{Remove: removalLeaves(g.mls, op.Leaves)}}
		bySlot[c] = slot
		batch = append(batch, c)
	}
	redo, err := e.commitBatch(ctx, batch, func(c *batchCommit) {
		bySlot[c].Rotated, bySlot[c].Epoch = true, c.g.mls.Epoch()
	})
	if err != nil {
		return err
	}
	for _, c := range redo {
		if err := e.rotateOne(ctx, op, bySlot[c]); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

// batchCommit is one group's commit of a batch (commitBatch).
type batchCommit struct {
	g    *group
	name string // for errors
	opts mls.CommitOptions
	p    *pendingCommit
	env  wire.Envelope
}

// commitBatch makes one commit in each group of batch, each group caught
// up by the caller: every commit staged and persisted with its group in one
// transaction, the commits sent in one SEND (one relay transaction), each
// merged from its ack when nothing came before it in the log (else from a
// catch-up), the groups persisted again in one transaction; merged is
// called for each then. The Welcomes the merged commits owe go in one SEND
// and their notices in one request per set of added keys; then each
// group's bundles (afterCommit). What the batch could not do comes back in
// redo, for the caller to commit group by group with commit's retries: all
// of it when the SEND failed (a stale chain head, a lost answer: each
// group's log then says whether its commit was taken, and the persisted
// record merges it), else the groups where another commit took the epoch
// first.
func (e *Engine) commitBatch(ctx context.Context, batch []*batchCommit, merged func(*batchCommit)) (redo []*batchCommit, err error) {
	for _, c := range batch {
		p, err := e.stageCommit(c.g, c.opts)
		if err != nil {
			for _, d := range batch {
				if d.p != nil {
					d.g.pending, d.g.rec.Pending = nil, nil
				}
			}
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		c.p = p
	}
	if len(batch) == 0 {
		return nil, nil
	}
	// Durable before sent: a crash from here on finds each commit in its
	// group's record (commit.go).
	if err := e.db.update(ctx, func(t *txn) error {
		for _, c := range batch {
			if err := e.saveGroup(t, c.g); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		for _, c := range batch {
			c.g.pending, c.g.rec.Pending = nil, nil
		}
		return nil, err
	}
	if err := e.crash("commit/staged"); err != nil {
		return nil, err
	}
	envs := make([]wire.Envelope, len(batch))
	for i, c := range batch {
		c.env = wire.Envelope{Group: wire.ID(c.g.rec.ID), Kind: wire.KindMLSCommit, Ctr: c.g.rec.OwnCtr + 1,
			Prev: wire.ID(c.g.rec.OwnPrev), CT: c.p.msg}
		wire.SignEnvelope(&c.env, e.edKey)
		envs[i] = c.env
	}
	acks, err := e.client.Send(ctx, envs...)
	if err != nil {
		for _, c := range batch {
			c.g.pending = nil
		}
		return batch, nil
	}
	for _, c := range batch {
		c.g.rec.OwnCtr, c.g.rec.OwnPrev = c.env.Ctr, hexID(c.env.Hash())
	}
	if err := e.crash("commit/sent"); err != nil {
		return nil, err
	}
	e.deferSaves = map[*group]bool{}
	defer func() {
		if ferr := e.flushDeferred(ctx); err == nil {
			err = ferr
		}
	}()
	var done []*batchCommit
	for i, c := range batch {
		g := c.g
		if len(acks) == len(batch) && acks[i].Group == c.env.Group && acks[i].Seq == g.rec.LastSeq+1 {
			// Nothing came before it: the commit is the log's next envelope.
			err = e.processEnvelopes(ctx, g, []wire.SeqEnvelope{{Seq: acks[i].Seq, Envelope: c.env}})
		} else {
			err = e.catchUp(ctx, g)
		}
		g.pending = nil
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if !c.p.merged {
			redo = append(redo, c)
			continue
		}
		done = append(done, c)
		merged(c)
	}
	if err := e.flushDeferred(ctx); err != nil {
		return nil, err
	}
	if err := e.crash("commit/merged"); err != nil {
		return nil, err
	}
	if err := e.sendWelcomesOwed(ctx, done); err != nil {
		return nil, err
	}
	// A channel's after-commit work is its bundles: all of them in one
	// SEND. The root's (re-sealing every child) goes on its own.
	var channels []*group
	for _, c := range done {
		if gi, ok := e.roster.Group(identity.GroupID(c.g.rec.ID)); ok && gi.Policy.Kind != roster.KindWorkspace {
			channels = append(channels, c.g)
			continue
		}
		if err := e.afterCommit(ctx, c.g); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if err := e.publishBundlesMany(ctx, channels); err != nil {
		return nil, err
	}
	return redo, nil
}

// sendWelcomesOwed sends the Welcomes the groups of batch owe in one SEND,
// then their notices (sendNotices). If the SEND fails, each group sends its
// own (sendWelcomeOwed: a stale chain head is learnt from the log).
func (e *Engine) sendWelcomesOwed(ctx context.Context, batch []*batchCommit) error {
	var owe []*batchCommit
	var envs []wire.Envelope
	for _, c := range batch {
		g := c.g
		if len(g.rec.WelcomeOwed) == 0 {
			continue
		}
		env := wire.Envelope{Group: wire.ID(g.rec.ID), Kind: wire.KindMLSWelcome, Ctr: g.rec.OwnCtr + 1,
			Prev: wire.ID(g.rec.OwnPrev), CT: g.rec.WelcomeOwed}
		wire.SignEnvelope(&env, e.edKey)
		owe, envs = append(owe, c), append(envs, env)
	}
	if len(envs) == 0 {
		return nil
	}
	acks, err := e.client.Send(ctx, envs...)
	if err != nil || len(acks) != len(envs) {
		for _, c := range owe {
			if err := e.sendWelcomeOwed(ctx, c.g); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		return nil
	}
	gs := make([]*group, len(owe))
	for i, c := range owe {
		g := c.g
		g.rec.OwnCtr, g.rec.OwnPrev = envs[i].Ctr, hexID(envs[i].Hash())
		if len(g.rec.WelcomeTo) > 0 {
			g.rec.NoticeOwed = &welcomeNotice{Seq: acks[i].Seq, To: g.rec.WelcomeTo}
		}
		g.rec.WelcomeOwed, g.rec.WelcomeTo = nil, nil
		gs[i] = g
	}
	if err := e.db.update(ctx, func(t *txn) error {
		for _, g := range gs {
			if err := e.saveGroup(t, g); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return e.sendNotices(ctx, gs)
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
