package relay

import (
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// RosterAppend appends a roster operation if the roster head is expected
// (conventions "Roster append"): head = SHA-256(op) of the last accepted
// operation, 32 zero bytes for an empty roster. A mismatch, of expected or
// of the operation's own prev_head, is cas/conflict {head}. The operation
// must be signed by the connection's principal (auth/not_actor), be a
// redemption of its own invite on a grant connection (auth/roster_kind),
// fit the workspace's roster bound (quota/roster_budget_exhausted) and pass
// the roster's rules against the stored roster
// (bad_request/roster_invalid): the relay appends only what every client
// accepts (docs/protocol/roster.md "Relay append").
func (s *Service) RosterAppend(ctx context.Context, ws wire.ID, p wire.AuthOK, expected wire.ID, b []byte) (*wire.RosterAppended, error) {
	op, err := guardRosterOp(p, b)
	if err != nil {
		return nil, err
	}
	var out *wire.RosterAppended
	applied := false
	err = s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		if w.RosterHead != expected || wire.ID(op.PrevHead) != w.RosterHead {
			return wire.Errorf(wire.CodeCASConflict, "The roster has moved on; fetch the new operations and retry.",
				wire.B("head", w.RosterHead[:]), wire.U("index", w.RosterIndex))
		}
		f, err := s.foldRoster(ctx, tx, ws, w)
		if err != nil {
			return err
		}
		defer f.mu.Unlock()
		if err := s.checkRosterOp(ctx, tx, ws, p, f, op); err != nil {
			return err
		}
		applied = true
		head := wire.ID(op.Head())
		idx := w.RosterIndex + 1
		if err := tx.RosterAppend(ctx, ws, idx, head, b); err != nil {
			return err
		}
		out = &wire.RosterAppended{Index: idx, Head: head}
		return tx.Emit(ctx, store.Change{Kind: store.ChangeRoster, Workspace: ws, Version: idx, Head: head})
	})
	if err != nil && applied {
		s.dropFold(ws)
	}
	return out, err
}

// RosterFetch returns roster operations with index > afterIndex.
func (s *Service) RosterFetch(ctx context.Context, ws wire.ID, afterIndex uint64, limit uint32) (*wire.RosterOps, error) {
	n := int(limit)
	if n <= 0 {
		n = DefaultFetchLimit
	}
	if n > MaxFetchLimit {
		n = MaxFetchLimit
	}
	var out *wire.RosterOps
	err := s.st.View(ctx, func(tx store.Tx) error {
		w, err := tx.Workspace(ctx, ws)
		if errors.Is(err, store.ErrNotFound) {
			return errUnknownWorkspace(ws)
		}
		if err != nil {
			return err
		}
		ops, err := tx.RosterOps(ctx, ws, afterIndex, n, MaxFetchBytes)
		if err != nil {
			return err
		}
		out = &wire.RosterOps{FirstIndex: afterIndex + 1, Ops: ops, Head: w.RosterHead, HeadIndex: w.RosterIndex,
			More: afterIndex+uint64(len(ops)) < w.RosterIndex}
		return nil
	})
	return out, err
}

// Stats reports a workspace's usage. Envelopes older than RetentionDays are
// counted as a warning; nothing is deleted because of it
// (spec/lifecycle.md "What the relay never does").
func (s *Service) Stats(ctx context.Context, ws wire.ID) (*wire.Stats, error) {
	cutoff := int64(0)
	if s.retentionDays > 0 {
		cutoff = s.unix() - int64(s.retentionDays)*86400
	}
	var out *wire.Stats
	err := s.st.View(ctx, func(tx store.Tx) error {
		st, err := tx.Stats(ctx, ws, cutoff)
		if errors.Is(err, store.ErrNotFound) {
			return errUnknownWorkspace(ws)
		}
		if err != nil {
			return err
		}
		out = &wire.Stats{Workspace: ws, LogBytes: uint64(st.LogBytes), LimitBytes: s.maxLogBytes, Envelopes: uint64(st.Envelopes),
			Groups: uint64(st.Groups), RetentionDays: s.retentionDays, OldestUnix: uint64(st.OldestAt)}
		if s.retentionDays > 0 {
			out.OverRetention = uint64(st.OverRetention)
		}
		return nil
	})
	return out, err
}
