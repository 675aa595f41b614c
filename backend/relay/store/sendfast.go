package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"weald/backend/wire"
)

// ErrConflict is returned by [Tx.SendFast] when a seq or an author-chain
// place it was told to fill is already taken: the caller's heads were stale
// (another relay process accepted into the group meanwhile). The transaction
// must be abandoned; the caller's general path decides afresh.
var ErrConflict = errors.New("store: seq or chain place already taken")

// SendRequest is a batch for [Tx.SendFast]: envelopes of non-relay-visible
// kinds, by authors of the access set of version AccessVersion, into groups
// known to belong to Workspace, each with the seq the caller assigned from
// the heads it knows (Heads), and each continuing its author's chain as the
// caller knows it.
type SendRequest struct {
	Workspace     wire.ID
	AccessVersion uint64
	MaxLogBytes   uint64 // 0: no budget
	Now           int64
	Envelopes     []wire.Envelope
	Hashes        []wire.ID
	Seqs          []uint64
	// Heads are the caller's head seqs of the batch's groups, before the
	// batch. SQLite's gate compares each with the group's head;
	// PostgreSQL's checks that the head envelope exists and no drop_before
	// went past head+1, and leaves a moved head to the primary key.
	Heads map[wire.ID]uint64
	// Overlap says the caller's signature check may run while the
	// statement executes (it is the only send in flight, so holding the
	// workspace lock meanwhile costs nobody); otherwise the store awaits the
	// check before it locks anything.
	Overlap bool
	// Busy says other sends are in flight. PostgreSQL then sends even one
	// envelope as the pipelined gate and insert, whose locks are held for
	// less time than the one-statement form's (measured with four senders:
	// 0.62 of a raw insert against 0.46); alone, the one statement is the
	// faster.
	Busy bool
}

// check validates r's shape and returns its rows and ct bytes.
func (r *SendRequest) check() ([]EnvelopeRow, uint64, error) {
	n := len(r.Envelopes)
	if n == 0 || len(r.Hashes) != n || len(r.Seqs) != n {
		return nil, 0, fmt.Errorf("store: send of %d envelopes with %d hashes and %d seqs", n, len(r.Hashes), len(r.Seqs))
	}
	var total uint64
	rows := make([]EnvelopeRow, n)
	for i := range rows {
		rows[i] = EnvelopeRow{Seq: r.Seqs[i], Envelope: r.Envelopes[i], Hash: r.Hashes[i], AcceptedAt: r.Now}
		total += uint64(len(r.Envelopes[i].CT))
	}
	return rows, total, nil
}

// SendFast implements [Tx.SendFast].
func (t *sqlTx) SendFast(ctx context.Context, r SendRequest) (bool, error) {
	if t.readOnly {
		return false, fmt.Errorf("store: send in a read-only transaction")
	}
	rows, total, err := r.check()
	if err != nil {
		return false, err
	}
	changes := sendChanges(r)
	var ok bool
	if t.s.d.name == "postgres" {
		ok, err = t.sendFastPG(ctx, t.tx, r, rows, total, changes)
	} else {
		ok, err = t.sendFastSQLite(ctx, r, rows, total)
	}
	if err != nil || !ok {
		return false, err
	}
	t.changes = append(t.changes, changes...) // PostgreSQL: already notified
	return true, nil
}

// InProcess implements [Store.InProcess].
func (s *sqlStore) InProcess() bool { return s.d.name != "postgres" }

// errNotFast rolls back the transaction of a Send whose gate did not hold.
var errNotFast = errors.New("store: not a fast send")

// Send implements [Store.Send] for SQLite: Tx.SendFast in a write
// transaction, await before the commit (the inserts run in this process, so
// a concurrent signature check overlaps them).
func (s *sqlStore) Send(ctx context.Context, r SendRequest, await func() error) (bool, error) {
	err := s.Update(ctx, func(tx Tx) error {
		ok, err := tx.SendFast(ctx, r)
		if err != nil {
			return err
		}
		if !ok {
			return errNotFast
		}
		return await()
	})
	if errors.Is(err, errNotFast) {
		return false, nil
	}
	return err == nil, err
}

// Send implements [Store.Send] for PostgreSQL: await first, then the fast
// statement on its own, committed as it completes, so the workspace lock is
// held for the statement only and never across a round trip.
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
	ok, err := (&sqlTx{s: s.sqlStore}).sendFastPG(ctx, s.db, r, rows, total, changes)
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
		batch.Queue(s.q(insertEnvelopesPG), envelopeArrays(rows)...)
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

// sendChanges is one ChangeEnvelopes per group of r, with its highest seq.
func sendChanges(r SendRequest) []Change {
	var out []Change
	at := map[wire.ID]int{}
	for i := range r.Envelopes {
		g := r.Envelopes[i].Group
		j, ok := at[g]
		if !ok {
			at[g] = len(out)
			out = append(out, Change{Kind: ChangeEnvelopes, Workspace: r.Workspace, Group: g, Seq: r.Seqs[i]})
		} else if r.Seqs[i] > out[j].Seq {
			out[j].Seq = r.Seqs[i]
		}
	}
	return out
}

// sendGateSQLite inserts the first row only if the workspace's access-set
// version is the caller's, the batch fits the budget and the first group's
// head is the caller's (BEGIN IMMEDIATE has serialized the transaction, so
// what it reads stays current).
const sendGateSQLite = `INSERT INTO envelopes (group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
	SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM workspaces w
	 WHERE w.id = ? AND w.access_version = ? AND (? = 0 OR w.log_bytes + ? <= ?)
	   AND (SELECT coalesce(max(e.seq), 0) FROM envelopes e WHERE e.group_id = ?) = ?`

func (t *sqlTx) sendFastSQLite(ctx context.Context, r SendRequest, rows []EnvelopeRow, total uint64) (bool, error) {
	first := r.Envelopes[0].Group
	for g, h := range r.Heads {
		if g == first {
			continue
		}
		if head, err := t.GroupHead(ctx, g); err != nil || head != h {
			return false, err
		}
	}
	e := &rows[0].Envelope
	res, err := t.exec(ctx, sendGateSQLite,
		b(e.Group), int64(rows[0].Seq), b(e.Author), int64(e.Ctr), b(e.Prev), b(rows[0].Hash), int(e.Kind), nonNil(e.CT), nonNil(e.Signature), r.Now,
		b(r.Workspace), int64(r.AccessVersion), int64(r.MaxLogBytes), int64(total), int64(r.MaxLogBytes),
		b(first), int64(r.Heads[first]))
	if err != nil {
		return false, conflict(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	for i := 1; i < len(rows); i++ {
		if err := t.InsertEnvelope(ctx, &rows[i]); err != nil {
			return false, conflict(err)
		}
	}
	return true, nil
}

// sendFastPGQuery locks the workspace row if its access-set version is the
// caller's and the batch fits the budget, and locks (shares) the batch's
// group rows if no drop_before has gone past the seqs the caller assigned.
// Both locks read the rows' latest versions even after a wait, so these
// gates hold against every committed change. The seqs must follow the
// group's head exactly: the caller's head must be an envelope the statement
// sees (a head that another send planned but did not commit, or that
// committed while this statement waited, is not), and a seq already taken
// is caught by the primary key (ErrConflict). Then it inserts the batch and
// notifies the payloads.
const sendFastPGQuery = `WITH w AS (SELECT 1 FROM workspaces
	  WHERE id = ? AND access_version = ? AND (?::bigint = 0 OR log_bytes + ?::bigint <= ?::bigint) FOR UPDATE),
	g AS (SELECT 1 FROM groups gr JOIN unnest(?::bytea[], ?::bigint[]) AS x (id, first) ON gr.id = x.id
	  WHERE gr.dropped_below < x.first
	    AND (x.first = 1 OR EXISTS (SELECT 1 FROM envelopes e WHERE e.group_id = x.id AND e.seq = x.first - 1))
	  FOR SHARE OF gr),
	ok AS (SELECT 1 WHERE EXISTS (SELECT 1 FROM w) AND (SELECT count(*) FROM g) = ?),
	ins AS (INSERT INTO envelopes (group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
	  SELECT u.* FROM unnest(?::bytea[], ?::bigint[], ?::bytea[], ?::bigint[], ?::bytea[], ?::bytea[], ?::integer[], ?::bytea[], ?::bytea[], ?::bigint[]) AS u
	  WHERE EXISTS (SELECT 1 FROM ok)
	  RETURNING 1)
	SELECT (SELECT count(*) FROM ins),
	  (SELECT count(pg_notify(?, p)) FROM unnest(?::text[]) AS p WHERE EXISTS (SELECT 1 FROM ins))`

// sendOnePGQuery is sendFastPGQuery for one envelope.
const sendOnePGQuery = `WITH w AS (SELECT 1 FROM workspaces
	  WHERE id = ? AND access_version = ? AND (?::bigint = 0 OR log_bytes + ?::bigint <= ?::bigint) FOR UPDATE),
	p AS (SELECT ?::bytea AS g, ?::bigint AS s),
	g AS (SELECT 1 FROM groups gr, p WHERE gr.id = p.g AND gr.dropped_below < p.s
	    AND (p.s = 1 OR EXISTS (SELECT 1 FROM envelopes e WHERE e.group_id = p.g AND e.seq = p.s - 1))
	  FOR SHARE OF gr),
	ins AS (INSERT INTO envelopes (group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
	  SELECT p.g, p.s, ?::bytea, ?::bigint, ?::bytea, ?::bytea, ?::integer, ?::bytea, ?::bytea, ?::bigint FROM p
	  WHERE EXISTS (SELECT 1 FROM w) AND EXISTS (SELECT 1 FROM g)
	  RETURNING 1)
	SELECT (SELECT count(*) FROM ins),
	  (SELECT count(pg_notify(?, ?)) WHERE EXISTS (SELECT 1 FROM ins))`

// sendFastPGArgs is the fast statement for rows and its arguments
// (placeholders already in PostgreSQL style).
func (t *sqlTx) sendFastPGArgs(r SendRequest, rows []EnvelopeRow, total uint64, changes []Change) (string, []any) {
	cols := envelopeArrays(rows)
	payloads := make([]string, len(changes))
	for i, c := range changes {
		payloads[i] = c.Payload()
	}
	groups, firsts := make([][]byte, 0, len(r.Heads)), make([]int64, 0, len(r.Heads))
	for g, h := range r.Heads {
		groups, firsts = append(groups, b(g)), append(firsts, int64(h)+1)
	}
	args := []any{b(r.Workspace), int64(r.AccessVersion), int64(r.MaxLogBytes), int64(total), int64(r.MaxLogBytes),
		groups, firsts, int64(len(groups))}
	args = append(args, cols...)
	args = append(args, NotifyChannel, payloads)
	query := sendFastPGQuery
	if len(rows) == 1 {
		// The same gate with scalar parameters: PostgreSQL soon settles on
		// one generic plan for it, where array parameters make it plan
		// every execution afresh, which costs more than the statement.
		e := &rows[0].Envelope
		query = sendOnePGQuery
		args = []any{b(r.Workspace), int64(r.AccessVersion), int64(r.MaxLogBytes), int64(total), int64(r.MaxLogBytes),
			b(e.Group), int64(rows[0].Seq),
			b(e.Author), int64(e.Ctr), b(e.Prev), b(rows[0].Hash), int32(e.Kind), nonNil(e.CT), nonNil(e.Signature), rows[0].AcceptedAt,
			NotifyChannel, payloads[0]}
	}
	return t.s.q(query), args
}

// rowQuerier is a *sql.Tx or a *sql.DB (autocommit).
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (t *sqlTx) sendFastPG(ctx context.Context, q rowQuerier, r SendRequest, rows []EnvelopeRow, total uint64, changes []Change) (bool, error) {
	query, args := t.sendFastPGArgs(r, rows, total, changes)
	var inserted, notified int64
	if err := q.QueryRowContext(ctx, query, args...).Scan(&inserted, &notified); err != nil {
		return false, conflict(err)
	}
	switch inserted {
	case 0:
		return false, nil
	case int64(len(rows)):
		return true, nil
	}
	return false, fmt.Errorf("send: inserted %d of %d envelopes", inserted, len(rows))
}

// conflict maps a unique-constraint violation (a taken seq or chain place)
// to ErrConflict.
func conflict(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("send: %w (%s)", ErrConflict, pe.ConstraintName)
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY || se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
		return fmt.Errorf("send: %w", ErrConflict)
	}
	return fmt.Errorf("send: %w", err)
}

// envelopeArrays is rows as the column arrays of insertEnvelopesPG, in its
// column order.
func envelopeArrays(rows []EnvelopeRow) []any {
	n := len(rows)
	groups, authors, prevs, hashes := make([][]byte, n), make([][]byte, n), make([][]byte, n), make([][]byte, n)
	cts, sigs := make([][]byte, n), make([][]byte, n)
	seqs, ctrs, at := make([]int64, n), make([]int64, n), make([]int64, n)
	kinds := make([]int32, n)
	for i := range rows {
		e := &rows[i].Envelope
		groups[i], authors[i], prevs[i], hashes[i] = b(e.Group), b(e.Author), b(e.Prev), b(rows[i].Hash)
		cts[i], sigs[i] = nonNil(e.CT), nonNil(e.Signature)
		seqs[i], ctrs[i], at[i], kinds[i] = int64(rows[i].Seq), int64(e.Ctr), rows[i].AcceptedAt, int32(e.Kind)
	}
	return []any{groups, seqs, authors, ctrs, prevs, hashes, kinds, cts, sigs, at}
}

// insertEnvelopesPG is one statement for the whole batch.
const insertEnvelopesPG = `INSERT INTO envelopes (group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
	SELECT * FROM unnest(?::bytea[], ?::bigint[], ?::bytea[], ?::bigint[], ?::bytea[], ?::bytea[], ?::integer[], ?::bytea[], ?::bytea[], ?::bigint[])`

// InsertEnvelopes implements [Tx.InsertEnvelopes]: PostgreSQL in one
// statement, SQLite one prepared statement per row (in-process, where a
// statement costs no round trip).
func (t *sqlTx) InsertEnvelopes(ctx context.Context, rows []EnvelopeRow) error {
	if t.s.d.name != "postgres" {
		for i := range rows {
			if err := t.InsertEnvelope(ctx, &rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := t.exec(ctx, insertEnvelopesPG, envelopeArrays(rows)...); err != nil {
		return fmt.Errorf("insert envelopes: %w", err)
	}
	return nil
}
