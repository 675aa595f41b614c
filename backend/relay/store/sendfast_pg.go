package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The PostgreSQL half of the fast send (docs/protocol/wire.md "The fast path").

// Send implements [Store.Send] for PostgreSQL. One envelope with nothing
// else in flight: await first, then the fast statement on its own,
// committed as it completes, so the workspace lock is held for the
// statement only. A batch, or one envelope while others are in flight:
// sendPipelined.
func (s *pgStore) Send(ctx context.Context, r SendRequest, await func() error) (bool, error) {
	rows, total, err := r.check()
	if err != nil {
		return false, err
	}
	if len(rows) > 1 || r.Busy {
		return s.sendPipelined(ctx, r, rows, total, await)
	}
	if err := await(); err != nil {
		return false, err
	}
	changes := sendChanges(r)
	ok, err := s.sendOne(ctx, r, rows[0], total, changes[0])
	if err != nil || !ok {
		return false, err
	}
	s.deliver(changes)
	return true, nil
}

// sendPipelined sends BEGIN, the gate (weald_send_gate, schema 0005) and the
// plain bulk insert for a batch in one pipeline, so the insert is the very
// statement a raw insert uses and nothing is planned afresh. With r.Overlap
// it runs await while the server executes them and commits only if the
// gate, the insert and await all passed (else rolls back): the signature
// check costs no wall time. Without, await runs first and the COMMIT rides
// in the same pipeline: one round trip, and the locks are held only while
// the server runs it.
func (s *pgStore) sendPipelined(ctx context.Context, r SendRequest, rows []EnvelopeRow, total uint64, await func() error) (bool, error) {
	changes := sendChanges(r)
	payloads := make([]string, len(changes))
	for i, c := range changes {
		payloads[i] = c.Payload()
	}
	groups, firsts := make([][]byte, 0, len(r.Heads)), make([]int64, 0, len(r.Heads))
	for g, h := range r.Heads {
		groups, firsts = append(groups, b(g)), append(firsts, int64(h)+1)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("send: %w", err)
	}
	defer conn.Close()
	var ok bool
	err = conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		batch := &pgx.Batch{}
		batch.Queue("BEGIN")
		batch.Queue(`SELECT weald_send_gate($1, $2, $3, $4, $5, $6, $7, $8)`, b(r.Workspace), int64(r.AccessVersion),
			int64(r.MaxLogBytes), int64(total), groups, firsts, NotifyChannel, payloads)
		batch.Queue(s.q(insertEnvelopesPG), envelopeArrays(r.Workspace, rows)...)
		var awaitErr error
		if !r.Overlap {
			// Checked before anything is sent; then the commit rides in
			// the same pipeline, so the locks are held only while the
			// server runs it.
			if awaitErr = await(); awaitErr != nil {
				return awaitErr
			}
			batch.Queue("COMMIT")
		}
		results := pc.SendBatch(ctx, batch)
		if r.Overlap {
			awaitErr = await()
		}
		_, beginErr := results.Exec()
		_, gateErr := results.Exec()
		_, insertErr := results.Exec()
		var commitErr error
		if !r.Overlap {
			_, commitErr = results.Exec()
		}
		closeErr := results.Close()
		end := "ROLLBACK"
		var pe *pgconn.PgError
		switch {
		case beginErr != nil:
			err = fmt.Errorf("send: begin: %w", beginErr)
		case errors.As(gateErr, &pe) && pe.Code == "WG001":
			// The gate did not hold: nothing stored, ok = false.
		case gateErr != nil:
			err = fmt.Errorf("send: gate: %w", gateErr)
		case insertErr != nil:
			err = conflict(insertErr)
		case closeErr != nil:
			err = fmt.Errorf("send: %w", closeErr)
		case awaitErr != nil:
			err = awaitErr
		case commitErr != nil:
			err = fmt.Errorf("send: commit: %w", commitErr)
		case !r.Overlap:
			ok = true
			return nil // committed in the pipeline
		default:
			ok, end = true, "COMMIT"
		}
		if _, endErr := pc.Exec(ctx, end); endErr != nil && err == nil {
			ok, err = false, fmt.Errorf("send: %s: %w", strings.ToLower(end), endErr)
		}
		return err
	})
	if err != nil || !ok {
		return false, err
	}
	s.deliver(changes)
	return true, nil
}

// sendOnePGQuery is the fast send of one envelope in one statement. It
// locks the workspace row if its access-set version is the caller's and the
// envelope fits the budget, and locks (shares) the group row if no
// drop_before has gone past the seq the caller assigned. Both locks read the
// rows' latest versions even after a wait, so these gates hold against
// every committed change. The seq must follow the group's head exactly: the
// caller's head must be an envelope or tombstone the statement sees, the
// seq no tombstone's (a head that another
// send planned but did not commit, or that committed while this statement
// waited, is not), and a seq already taken is caught by the primary key
// (ErrConflict). Then it inserts the envelope and notifies the payload.
// Scalar parameters, so PostgreSQL soon settles on one generic plan (with
// array parameters it would plan every execution afresh, which costs more
// than the statement).
const sendOnePGQuery = `WITH w AS (SELECT 1 FROM workspaces
	  WHERE id = ? AND access_version = ? AND (?::bigint = 0 OR log_bytes + ?::bigint <= ?::bigint) FOR UPDATE),
	p AS (SELECT ?::bytea AS ws, ?::bytea AS g, ?::bigint AS s),
	g AS (SELECT 1 FROM groups gr, p WHERE gr.workspace_id = p.ws AND gr.id = p.g AND gr.dropped_below < p.s
	    AND (p.s = 1 OR EXISTS (SELECT 1 FROM envelopes e WHERE e.workspace_id = p.ws AND e.group_id = p.g AND e.seq = p.s - 1)
	      OR EXISTS (SELECT 1 FROM wrap_tombstones d WHERE d.workspace_id = p.ws AND d.group_id = p.g AND d.seq = p.s - 1))
	    AND NOT EXISTS (SELECT 1 FROM wrap_tombstones d WHERE d.workspace_id = p.ws AND d.group_id = p.g AND d.seq = p.s)
	  FOR SHARE OF gr),
	ins AS (INSERT INTO envelopes (workspace_id, group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
	  SELECT p.ws, p.g, p.s, ?::bytea, ?::bigint, ?::bytea, ?::bytea, ?::integer, ?::bytea, ?::bytea, ?::bigint FROM p
	  WHERE EXISTS (SELECT 1 FROM w) AND EXISTS (SELECT 1 FROM g)
	  RETURNING 1)
	SELECT (SELECT count(*) FROM ins),
	  (SELECT count(pg_notify(?, ?)) WHERE EXISTS (SELECT 1 FROM ins))`

// sendOne runs sendOnePGQuery for row, committed as it completes.
func (s *pgStore) sendOne(ctx context.Context, r SendRequest, row EnvelopeRow, total uint64, change Change) (bool, error) {
	e := &row.Envelope
	var inserted, notified int64
	err := s.db.QueryRowContext(ctx, s.q(sendOnePGQuery),
		b(r.Workspace), int64(r.AccessVersion), int64(r.MaxLogBytes), int64(total), int64(r.MaxLogBytes),
		b(r.Workspace), b(e.Group), int64(row.Seq),
		b(e.Author), int64(e.Ctr), b(e.Prev), b(row.Hash), int32(e.Kind), nonNil(e.CT), nonNil(e.Signature), row.AcceptedAt,
		NotifyChannel, change.Payload()).Scan(&inserted, &notified)
	if err != nil {
		return false, conflict(err)
	}
	switch inserted {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, fmt.Errorf("send: inserted %d of 1 envelope", inserted)
}
