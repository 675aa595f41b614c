package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/wire"
)

// maxPages bounds one catch-up (pages of up to the relay's page size).
const maxPages = 100000

// send sends one envelope in g, its ct made by mk for the envelope's
// position (content binds author and ctr), and advances the chain head on
// ack. It returns the seq the relay assigned.
func (e *Engine) send(ctx context.Context, g *group, kind wire.Kind, mk func(env *wire.Envelope) ([]byte, error)) (uint64, error) {
	build := func() (wire.Envelope, error) {
		env := wire.Envelope{Group: wire.ID(g.rec.ID), Kind: kind, Ctr: g.rec.OwnCtr + 1, Prev: wire.ID(g.rec.OwnPrev)}
		ct, err := mk(&env)
		if err != nil {
			return env, err
		}
		env.CT = ct
		wire.SignEnvelope(&env, e.edKey)
		return env, nil
	}
	env, err := build()
	if err != nil {
		return 0, err
	}
	acks, err := e.client.Send(ctx, env)
	var we *wire.Error
	if errors.As(err, &we) && (we.Code == wire.CodeChainReplay || we.Code == wire.CodeChainFork || we.Code == wire.CodeChainGap) {
		// Our chain head is stale (a crash after a send): learn it from
		// the log and build the envelope again.
		if err := e.learnOwnHead(ctx, g); err != nil {
			return 0, err
		}
		if env, err = build(); err != nil {
			return 0, err
		}
		acks, err = e.client.Send(ctx, env)
	}
	if err != nil {
		return 0, err
	}
	g.rec.OwnCtr, g.rec.OwnPrev = env.Ctr, hexID(env.Hash())
	if len(acks) == 1 {
		return acks[0].Seq, nil
	}
	return 0, nil
}

// sendCT sends a fixed ct.
func (e *Engine) sendCT(ctx context.Context, g *group, kind wire.Kind, ct []byte) (uint64, error) {
	return e.send(ctx, g, kind, func(*wire.Envelope) ([]byte, error) { return ct, nil })
}

// learnOwnHead reads the whole log of g for this device's last envelope.
func (e *Engine) learnOwnHead(ctx context.Context, g *group) error {
	envs, err := e.fetchAll(ctx, wire.ID(g.rec.ID), 0)
	if err != nil {
		return err
	}
	for _, se := range envs {
		if se.Envelope.Author == wire.ID(e.devID) && se.Envelope.Ctr > g.rec.OwnCtr {
			g.rec.OwnCtr, g.rec.OwnPrev = se.Envelope.Ctr, hexID(se.Envelope.Hash())
		}
	}
	return nil
}

// fetchAll returns every envelope of group after afterSeq, up to the first
// seq the relay passed over without a deletion this client can check
// (gaps.go).
func (e *Engine) fetchAll(ctx context.Context, group wire.ID, afterSeq uint64) ([]wire.SeqEnvelope, error) {
	envs, _, err := e.fetchThrough(ctx, group, afterSeq)
	return envs, err
}

// fetchThrough is fetchAll that also returns the seq the envelopes account
// for: every seq up to it is an envelope, dropped or deleted.
func (e *Engine) fetchThrough(ctx context.Context, group wire.ID, afterSeq uint64) ([]wire.SeqEnvelope, uint64, error) {
	var out []wire.SeqEnvelope
	for page := 0; page < maxPages; page++ {
		p, err := e.fetchPage(ctx, group, afterSeq)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p.envs...)
		if !p.more || p.through <= afterSeq {
			return out, p.through, nil
		}
		afterSeq = p.through
	}
	return nil, 0, fmt.Errorf("engine: log of %s is longer than this client reads in one go", group.Short())
}

// syncRoster fetches and validates roster operations after the local head.
// It reports whether anything was applied. An operation the roster's rules
// refuse is not an error of the sync: the valid prefix before it is kept
// (and stored), an alert names the operation, and nothing after it is
// applied (docs/protocol/roster.md "A client meeting an invalid operation").
func (e *Engine) syncRoster(ctx context.Context) (bool, error) {
	changed := false
	e.rosterStuck = nil
	for page := 0; page < maxPages; page++ {
		r, err := e.client.RosterFetch(ctx, uint64(e.roster.Len()), 0)
		if err != nil {
			return changed, err
		}
		if a := e.rosterAnswerBreak(r); a != nil {
			e.rosterLogBreak(ctx, *a)
			break
		}
		if len(r.Ops) == 0 {
			break
		}
		var bad []byte
		var badErr error
		var brk *logBreak
		applied := 0
		start := e.roster.Len()
		err = e.db.update(ctx, func(t *txn) error {
			for _, op := range r.Ops {
				if d, derr := roster.Decode(op); derr == nil && d.PrevHead != e.roster.Head() {
					// Not built on this device's head: a log that
					// skips an operation or branches (not an invalid
					// operation of this log).
					brk = &logBreak{kind: breakOp, index: e.roster.Len(), op: op, prev: d.PrevHead}
					return nil
				}
				if err := e.roster.ApplyBytes(op); err != nil {
					bad, badErr = op, err
					return nil // keep the valid prefix
				}
				applied++
				if err := t.addRosterOp(e.roster.Len(), op); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			// The applied prefix stays in memory; reload from disk to
			// keep memory and disk equal.
			e.reloadRoster(ctx)
			return changed, err
		}
		changed = changed || applied > 0
		for i, op := range r.Ops[:applied] {
			e.noticeRosterOp(ctx, start+i, op)
		}
		if brk != nil {
			e.rosterLogBreak(ctx, *brk)
			break
		}
		if bad != nil {
			e.invalidRosterOp(ctx, bad, badErr)
			break
		}
		if !r.More {
			break
		}
	}
	if changed {
		e.emit(Event{Kind: EventRoster})
	}
	return changed, nil
}

// ErrRosterUntrusted refuses a roster write while the relay serves an
// operation this client refuses at the head of its valid prefix, or a log
// with a gap or a fork (rosterlog.go).
var ErrRosterUntrusted = errcode.New("roster/untrusted", "the relay serves a membership log this client refuses (an invalid operation, a gap or a fork; see the alerts), so nothing can be added to the roster until that is resolved")

// invalidRosterOp raises the roster/invalid_op alert for op, refused at the
// position after the valid prefix, and marks the roster stuck there.
func (e *Engine) invalidRosterOp(ctx context.Context, op []byte, err error) {
	h := roster.HeadOf(op)
	ref := &AlertOp{Index: e.roster.Len(), Head: hex.EncodeToString(h[:])}
	e.rosterStuck, e.rosterBreak = ref, "roster/invalid_op"
	a := Alert{Code: "roster/invalid_op", Op: ref,
		Message: fmt.Sprintf("The relay serves roster operation %d (%s), which this client refuses: %v. The roster before it is kept; nothing after it is trusted.",
			ref.Index, ref.Head[:16], err)}
	if d, derr := roster.Decode(op); derr == nil {
		a.Actor = d.Actor.String()
	}
	e.raise(ctx, a)
}

func (e *Engine) reloadRoster(ctx context.Context) {
	st := roster.New(roster.Options{})
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return
	}
	for _, op := range ops {
		if st.ApplyBytes(op) != nil {
			break
		}
	}
	e.roster = st
}

// appendRoster signs body as the next operation and appends it by CAS,
// re-syncing and retrying on conflict. build is re-run after each re-sync
// and returns a nil body when the operation is no longer needed.
func (e *Engine) appendRoster(ctx context.Context, build func() (roster.Body, error)) error {
	return e.appendRosterOp(ctx, func(time.Time) (roster.Body, error) { return build() }, false)
}

// appendRosterAt is appendRoster for a body that names its own operation's
// time (a retention proposal's relay approval signs it).
func (e *Engine) appendRosterAt(ctx context.Context, build func(at time.Time) (roster.Body, error)) error {
	return e.appendRosterOp(ctx, build, true)
}

// appendRosterOp signs what build returns. With atGiven the operation's time
// is the one build was given; otherwise it is read after build, so a time
// the body read itself (a Revoke's revoked_at) is never after the
// operation's own (roster.checkRevoke refuses that).
func (e *Engine) appendRosterOp(ctx context.Context, build func(at time.Time) (roster.Body, error), atGiven bool) error {
	for attempt := 0; attempt < 8; attempt++ {
		at := e.now()
		body, err := build(at)
		if err != nil || body == nil {
			return err
		}
		if !atGiven {
			at = e.now()
		}
		signer := roster.DeviceSigner(e.dev)
		if e.signAs != nil {
			signer = e.signAs
		}
		op, err := roster.Sign(signer, e.roster.Head(), at, body)
		if err != nil {
			return err
		}
		// Validate locally first: an operation the roster rules reject is
		// never sent (it would make every client distrust the chain from
		// it on). Apply leaves the state unchanged when it refuses.
		prev := e.roster.Head()
		if err := e.roster.Apply(op); err != nil {
			return err
		}
		_, err = e.client.RosterAppend(ctx, wire.ID(prev), op.Bytes())
		if err != nil {
			e.reloadRoster(ctx) // undo the local apply
			if errors.Is(err, relayclient.ErrDisconnected) {
				// The append may have landed before the connection
				// dropped: if the roster now holds it, it is done.
				if landed, lerr := e.rosterLanded(ctx, op.Bytes()); lerr != nil {
					return err
				} else if landed {
					e.emit(Event{Kind: EventRoster})
					return nil
				}
				continue
			}
			var we *wire.Error
			if errors.As(err, &we) && we.Code == wire.CodeCASConflict {
				if _, err := e.syncRoster(ctx); err != nil {
					return err
				}
				if e.rosterStuck != nil {
					return ErrRosterUntrusted
				}
				continue
			}
			return err
		}
		if err := e.db.update(ctx, func(t *txn) error { return t.addRosterOp(e.roster.Len(), op.Bytes()) }); err != nil {
			return err
		}
		e.emit(Event{Kind: EventRoster})
		_, err = e.syncRoster(ctx)
		return err
	}
	return errcode.New("roster/busy", "the roster kept moving; try again")
}

// rosterLanded syncs the roster and reports whether op is the operation
// that followed the local head it was signed on.
func (e *Engine) rosterLanded(ctx context.Context, op []byte) (bool, error) {
	n := e.roster.Len()
	if _, err := e.syncRoster(ctx); err != nil {
		return false, err
	}
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return false, err
	}
	return len(ops) > n && bytes.Equal(ops[n], op), nil
}

// devicePub returns the roster key of a device id.
func (e *Engine) devicePub(id wire.ID) ([]byte, bool) {
	d, ok := e.roster.Device(identity.DeviceID(id))
	if !ok {
		return nil, false
	}
	return d.Public.Bytes(), true
}

// checkRosterBody reports whether the roster would accept body as the next
// operation now, without recording it (the local roster is left as it was).
func (e *Engine) checkRosterBody(ctx context.Context, body roster.Body) error {
	op, err := roster.Sign(roster.DeviceSigner(e.dev), e.roster.Head(), e.now(), body)
	if err != nil {
		return err
	}
	if err := e.roster.Apply(op); err != nil {
		return err
	}
	e.reloadRoster(ctx)
	return nil
}
