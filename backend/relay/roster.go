package relay

import (
	"context"
	"crypto/sha256"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// RosterAppend appends an opaque roster operation if the roster head is
// expected (conventions "Roster append"): head = SHA-256(op) of the last
// accepted operation, 32 zero bytes for an empty roster. A mismatch is
// cas/conflict {head}. The relay never parses op.
func (s *Service) RosterAppend(ctx context.Context, ws wire.ID, _ wire.AuthOK, expected wire.ID, op []byte) (*wire.RosterAppended, error) {
	if len(op) == 0 || len(op) > MaxRosterOp {
		return nil, wire.Errorf(wire.CodeMalformed, "A roster operation is between 1 byte and 1 MiB.")
	}
	var out *wire.RosterAppended
	err := s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		if w.RosterHead != expected {
			return wire.Errorf(wire.CodeCASConflict, "The roster has moved on; fetch the new operations and retry.",
				wire.B("head", w.RosterHead[:]), wire.U("index", w.RosterIndex))
		}
		head := wire.ID(sha256.Sum256(op))
		idx := w.RosterIndex + 1
		if err := tx.RosterAppend(ctx, ws, idx, head, op); err != nil {
			return err
		}
		out = &wire.RosterAppended{Index: idx, Head: head}
		return tx.Emit(ctx, store.Change{Kind: store.ChangeRoster, Workspace: ws, Version: idx, Head: head})
	})
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
