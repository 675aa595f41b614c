package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"weald/backend/wire"
)

type sqlTx struct {
	s        *sqlStore
	tx       *sql.Tx
	readOnly bool
	changes  []Change
	stmts    map[*sql.Stmt]*sql.Stmt // store statement → this transaction's
	// unprepared lists queries to prepare store-wide after this transaction.
	unprepared []string
	unsent     int // changes at the end of changes not yet NOTIFYed

}

func (t *sqlTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.readOnly {
		return nil, fmt.Errorf("store: write in a read-only transaction")
	}
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, t.s.q(query), args...)
}

func (t *sqlTx) row(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, t.s.q(query), args...)
}

func (t *sqlTx) rows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, t.s.q(query), args...)
}

// stmt returns query as a statement of this transaction, prepared once per
// store (SQLite, where preparing costs as much as running a small
// statement); nil on PostgreSQL, whose driver caches prepared statements
// itself.
func (t *sqlTx) stmt(ctx context.Context, query string) *sql.Stmt {
	if t.s.d.name != "sqlite" {
		return nil
	}
	v, ok := t.s.stmts.Load(query)
	if !ok {
		// Preparing needs the connection this transaction holds; prepare it
		// once the transaction is over.
		t.unprepared = append(t.unprepared, query)
		return nil
	}
	prepared := v.(*sql.Stmt)
	if t.stmts == nil {
		t.stmts = map[*sql.Stmt]*sql.Stmt{}
	}
	if st, ok := t.stmts[prepared]; ok {
		return st
	}
	st := t.tx.StmtContext(ctx, prepared)
	t.stmts[prepared] = st
	return st
}

func b(id wire.ID) []byte { return id[:] }

// nonNil makes an empty byte slice bind as an empty BLOB, not NULL.
func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

func toID(v []byte) wire.ID {
	var id wire.ID
	copy(id[:], v)
	return id
}

func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (t *sqlTx) CreateWorkspace(ctx context.Context, id wire.ID, genesisKey []byte, now int64) error {
	res, err := t.exec(ctx, `INSERT INTO workspaces (id, genesis_key, roster_head, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		b(id), nonNil(genesisKey), b(wire.ZeroID), now)
	if err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("create workspace %s: %w", id.Short(), ErrExists)
	}
	return nil
}

const workspaceCols = `id, genesis_key, genesis_consumed, access_version, roster_index, roster_head, log_bytes, created_at`

func scanWorkspace(r *sql.Row) (Workspace, error) {
	var w Workspace
	var id, head []byte
	var consumed int
	var av, ri int64
	if err := r.Scan(&id, &w.GenesisKey, &consumed, &av, &ri, &head, &w.LogBytes, &w.CreatedAt); err != nil {
		return Workspace{}, err
	}
	w.ID, w.RosterHead = toID(id), toID(head)
	w.GenesisConsumed, w.AccessVersion, w.RosterIndex = consumed != 0, uint64(av), uint64(ri)
	return w, nil
}

func (t *sqlTx) Workspace(ctx context.Context, id wire.ID) (Workspace, error) {
	w, err := scanWorkspace(t.row(ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = ?`, b(id)))
	if err != nil {
		return Workspace{}, notFound(err, "workspace "+id.Short())
	}
	return w, nil
}

func (t *sqlTx) LockWorkspace(ctx context.Context, id wire.ID) (Workspace, error) {
	w, err := scanWorkspace(t.row(ctx, `SELECT `+workspaceCols+` FROM workspaces WHERE id = ?`+t.s.d.forUpdate, b(id)))
	if err != nil {
		return Workspace{}, notFound(err, "lock workspace "+id.Short())
	}
	return w, nil
}

func (t *sqlTx) ConsumeGenesis(ctx context.Context, id wire.ID) error {
	_, err := t.exec(ctx, `UPDATE workspaces SET genesis_consumed = 1 WHERE id = ?`, b(id))
	return err
}

func (t *sqlTx) DeleteUnconsumedWorkspace(ctx context.Context, id wire.ID) (bool, error) {
	if _, err := t.LockWorkspace(ctx, id); err != nil {
		return false, err
	}
	res, err := t.exec(ctx, `DELETE FROM workspaces WHERE id = ? AND genesis_consumed = 0`, b(id))
	if err != nil {
		return false, fmt.Errorf("delete workspace %s: %w", id.Short(), err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *sqlTx) ListWorkspaces(ctx context.Context) ([]wire.ID, error) {
	rows, err := t.rows(ctx, `SELECT id FROM workspaces ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []wire.ID
	for rows.Next() {
		var id []byte
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, toID(id))
	}
	return out, rows.Err()
}

func (t *sqlTx) RelayID(ctx context.Context, fresh wire.ID) (wire.ID, error) {
	if _, err := t.exec(ctx, `INSERT INTO relay_identity (singleton, relay_id) VALUES (1, ?) ON CONFLICT (singleton) DO NOTHING`, b(fresh)); err != nil {
		return wire.ID{}, fmt.Errorf("relay id: %w", err)
	}
	var id []byte
	if err := t.row(ctx, `SELECT relay_id FROM relay_identity WHERE singleton = 1`).Scan(&id); err != nil {
		return wire.ID{}, fmt.Errorf("relay id: %w", err)
	}
	return toID(id), nil
}

func (t *sqlTx) AccessSet(ctx context.Context, ws wire.ID, version uint64) ([]byte, int64, error) {
	var body []byte
	var at int64
	err := t.row(ctx, `SELECT body, accepted_at FROM access_sets WHERE workspace_id = ? AND version = ?`, b(ws), int64(version)).Scan(&body, &at)
	if err != nil {
		return nil, 0, notFound(err, "access set")
	}
	return body, at, nil
}

func (t *sqlTx) PutAccessSet(ctx context.Context, ws wire.ID, version uint64, body []byte, now int64) error {
	if _, err := t.exec(ctx, `INSERT INTO access_sets (workspace_id, version, body, accepted_at) VALUES (?, ?, ?, ?)`,
		b(ws), int64(version), body, now); err != nil {
		return fmt.Errorf("put access set: %w", err)
	}
	_, err := t.exec(ctx, `UPDATE workspaces SET access_version = ? WHERE id = ?`, int64(version), b(ws))
	return err
}

func (t *sqlTx) AddDepartedKeys(ctx context.Context, ws wire.ID, keys []wire.ID, version uint64) error {
	for _, k := range keys {
		if _, err := t.exec(ctx, `INSERT INTO departed_keys (workspace_id, key_id, version) VALUES (?, ?, ?)
			ON CONFLICT (workspace_id, key_id) DO UPDATE SET version = excluded.version`, b(ws), b(k), int64(version)); err != nil {
			return fmt.Errorf("add departed key: %w", err)
		}
	}
	return nil
}

func (t *sqlTx) KeyDeparted(ctx context.Context, ws wire.ID, key wire.ID) (bool, error) {
	var n int
	err := t.row(ctx, `SELECT count(*) FROM departed_keys WHERE workspace_id = ? AND key_id = ?`, b(ws), b(key)).Scan(&n)
	return n > 0, err
}

func (t *sqlTx) AddGrants(ctx context.Context, ws wire.ID, hashes []wire.ID, version uint64) error {
	for _, h := range hashes {
		if _, err := t.exec(ctx, `INSERT INTO grants (workspace_id, hash, void, since) VALUES (?, ?, 0, ?)
			ON CONFLICT (workspace_id, hash) DO NOTHING`, b(ws), b(h), int64(version)); err != nil {
			return fmt.Errorf("add grant: %w", err)
		}
	}
	return nil
}

func (t *sqlTx) VoidGrants(ctx context.Context, ws wire.ID, hashes []wire.ID, version uint64) error {
	for _, h := range hashes {
		if _, err := t.exec(ctx, `INSERT INTO grants (workspace_id, hash, void, since) VALUES (?, ?, 1, ?)
			ON CONFLICT (workspace_id, hash) DO UPDATE SET void = 1, since = excluded.since`, b(ws), b(h), int64(version)); err != nil {
			return fmt.Errorf("void grant: %w", err)
		}
	}
	return nil
}

func (t *sqlTx) GrantVoid(ctx context.Context, ws wire.ID, hash wire.ID) (bool, error) {
	var n int
	err := t.row(ctx, `SELECT count(*) FROM grants WHERE workspace_id = ? AND hash = ? AND void = 1`, b(ws), b(hash)).Scan(&n)
	return n > 0, err
}

func (t *sqlTx) BindGrantKey(ctx context.Context, ws, grant wire.ID, key []byte, uses int) error {
	id := wire.KeyID(key)
	// The next free slot, if fewer than uses are taken; a key already bound
	// (to this or another grant) or a slot taken meanwhile is a conflict.
	_, err := t.exec(ctx, `INSERT INTO grant_keys (workspace_id, key_id, key, grant_hash, slot)
		SELECT ?, ?, ?, ?, count(*) FROM grant_keys WHERE workspace_id = ? AND grant_hash = ? HAVING count(*) < ?
		ON CONFLICT DO NOTHING`, b(ws), b(id), key, b(grant), b(ws), b(grant), uses)
	return err
}

func (t *sqlTx) GrantKey(ctx context.Context, ws, keyID wire.ID) ([]byte, wire.ID, error) {
	var key, grant []byte
	err := t.row(ctx, `SELECT key, grant_hash FROM grant_keys WHERE workspace_id = ? AND key_id = ?`, b(ws), b(keyID)).Scan(&key, &grant)
	if err != nil {
		return nil, wire.ID{}, notFound(err, "grant key")
	}
	return key, toID(grant), nil
}

func (t *sqlTx) Group(ctx context.Context, ws, id wire.ID) (Group, error) {
	var head, dropped int64
	var frozen int
	err := t.row(ctx, `SELECT `+groupHeadSQL+`, dropped_below, retention_frozen
		FROM groups WHERE workspace_id = ? AND id = ?`, b(ws), b(id), b(ws), b(id), b(ws), b(id)).Scan(&head, &dropped, &frozen)
	if err != nil {
		return Group{}, notFound(err, "group "+id.Short())
	}
	return Group{ID: id, Workspace: ws, HeadSeq: uint64(head), DroppedBelow: uint64(dropped), RetentionFrozen: frozen != 0}, nil
}

func (t *sqlTx) CreateGroup(ctx context.Context, ws, id wire.ID, now int64) error {
	res, err := t.exec(ctx, `INSERT INTO groups (workspace_id, id, created_at) VALUES (?, ?, ?) ON CONFLICT (workspace_id, id) DO NOTHING`,
		b(ws), b(id), now)
	if err != nil {
		return fmt.Errorf("create group: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("create group %s: %w", id.Short(), ErrExists)
	}
	return nil
}

func (t *sqlTx) GroupHead(ctx context.Context, ws, id wire.ID) (uint64, error) {
	var head int64
	err := t.row(ctx, `SELECT `+groupHeadSQL, b(ws), b(id), b(ws), b(id)).Scan(&head)
	return uint64(head), err
}

// groupHeadSQL is a group's head seq: its highest envelope, or a higher
// deleted recovery.wrap, whose seq is never given again (its tombstone
// accounts for it). Arguments: workspace, group, workspace, group.
const groupHeadSQL = `(SELECT coalesce(max(s), 0) FROM (
	SELECT max(seq) AS s FROM envelopes WHERE workspace_id = ? AND group_id = ?
	UNION ALL SELECT max(seq) FROM wrap_tombstones WHERE workspace_id = ? AND group_id = ?) AS heads)`

func (t *sqlTx) SetRetentionFrozen(ctx context.Context, ws, id wire.ID) error {
	_, err := t.exec(ctx, `UPDATE groups SET retention_frozen = 1 WHERE workspace_id = ? AND id = ?`, b(ws), b(id))
	return err
}

func (t *sqlTx) AuthorHead(ctx context.Context, ws, group, author wire.ID) (AuthorHead, error) {
	var ctr int64
	var h []byte
	err := t.row(ctx, `SELECT ctr, hash FROM (
			SELECT ctr, hash FROM (SELECT ctr, hash FROM envelopes WHERE workspace_id = ? AND group_id = ? AND author = ? ORDER BY ctr DESC LIMIT 1) AS newest
			UNION ALL
			SELECT ctr, hash FROM author_heads WHERE workspace_id = ? AND group_id = ? AND author = ?
		) AS heads ORDER BY ctr DESC LIMIT 1`, b(ws), b(group), b(author), b(ws), b(group), b(author)).Scan(&ctr, &h)
	if err != nil {
		return AuthorHead{}, notFound(err, "author head")
	}
	return AuthorHead{Ctr: uint64(ctr), Hash: toID(h)}, nil
}

func (t *sqlTx) InsertEnvelope(ctx context.Context, ws wire.ID, r *EnvelopeRow) error {
	e := &r.Envelope
	_, err := t.exec(ctx, `INSERT INTO envelopes (workspace_id, group_id, seq, author, ctr, prev, hash, kind, ct, sig, accepted_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		b(ws), b(e.Group), int64(r.Seq), b(e.Author), int64(e.Ctr), b(e.Prev), b(r.Hash), int(e.Kind), nonNil(e.CT), nonNil(e.Signature), r.AcceptedAt)
	if err != nil {
		return fmt.Errorf("insert envelope: %w", err)
	}
	return nil
}

const envelopeCols = `seq, author, ctr, prev, hash, kind, ct, sig, accepted_at`

func scanEnvelope(group wire.ID, scan func(...any) error) (EnvelopeRow, error) {
	var r EnvelopeRow
	var seq, ctr int64
	var author, prev, hash []byte
	var kind int
	if err := scan(&seq, &author, &ctr, &prev, &hash, &kind, &r.Envelope.CT, &r.Envelope.Signature, &r.AcceptedAt); err != nil {
		return EnvelopeRow{}, err
	}
	if len(r.Envelope.CT) == 0 {
		r.Envelope.CT = nil
	}
	r.Seq, r.Hash = uint64(seq), toID(hash)
	r.Envelope.Group, r.Envelope.Author, r.Envelope.Prev = group, toID(author), toID(prev)
	r.Envelope.Ctr, r.Envelope.Kind = uint64(ctr), wire.Kind(kind)
	return r, nil
}

func (t *sqlTx) Envelopes(ctx context.Context, ws, group wire.ID, afterSeq uint64, limit int, maxBytes int64) ([]EnvelopeRow, error) {
	rows, err := t.rows(ctx, `SELECT `+envelopeCols+` FROM (
			SELECT `+envelopeCols+`, sum(length(ct)) OVER (ORDER BY seq) - length(ct) AS before
			  FROM envelopes WHERE workspace_id = ? AND group_id = ? AND seq > ? ORDER BY seq LIMIT ?
		) AS page WHERE before < ? ORDER BY seq`,
		b(ws), b(group), int64(afterSeq), limit, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("fetch envelopes: %w", err)
	}
	defer rows.Close()
	var out []EnvelopeRow
	for rows.Next() {
		r, err := scanEnvelope(group, rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// LatestEnvelopes runs one indexed lookup (envelopes_by_kind) per kind,
// all in this transaction, so the answer is one consistent snapshot.
func (t *sqlTx) LatestEnvelopes(ctx context.Context, ws, group wire.ID, kinds []wire.Kind) ([]EnvelopeRow, error) {
	var out []EnvelopeRow
	for _, k := range kinds {
		r, err := scanEnvelope(group, t.row(ctx, `SELECT `+envelopeCols+` FROM envelopes
			WHERE workspace_id = ? AND group_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1`, b(ws), b(group), int(k)).Scan)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("latest envelope of %s: %w", k, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (t *sqlTx) EnvelopeByAuthor(ctx context.Context, ws, group, author wire.ID, ctr uint64) (EnvelopeRow, error) {
	r, err := scanEnvelope(group, t.row(ctx, `SELECT `+envelopeCols+` FROM envelopes
		WHERE workspace_id = ? AND group_id = ? AND author = ? AND ctr = ?`,
		b(ws), b(group), b(author), int64(ctr)).Scan)
	if err != nil {
		return EnvelopeRow{}, notFound(err, "envelope")
	}
	return r, nil
}

// DropEnvelopesBelow holds the relay's only envelope DELETE statement, run
// once per author of the barrier (each on the author's chain index).
func (t *sqlTx) DropEnvelopesBelow(ctx context.Context, ws, group wire.ID, barrier uint64, covered []wire.EnvelopeRef, keepKinds []wire.Kind) (int64, int64, error) {
	keep := make([]string, 0, len(keepKinds))
	for _, k := range keepKinds {
		keep = append(keep, fmt.Sprint(int(k)))
	}
	if len(keep) == 0 {
		keep = append(keep, "-1")
	}
	cond := `workspace_id = ? AND group_id = ? AND author = ? AND ctr <= ? AND seq < ? AND kind NOT IN (` + strings.Join(keep, ",") + `)
		AND seq NOT IN (SELECT seq FROM anchors WHERE workspace_id = ? AND group_id = ?)`
	if err := t.recordAuthorHeads(ctx, ws, group); err != nil {
		return 0, 0, err
	}
	upto := make(map[wire.ID]uint64, len(covered))
	for _, c := range covered {
		upto[c.Author] = max(upto[c.Author], c.Ctr)
	}
	// The authors the group holds envelopes of below the barrier: a
	// barrier naming more (it is a member's writing) costs nothing.
	rows, err := t.rows(ctx, `SELECT DISTINCT author FROM envelopes WHERE workspace_id = ? AND group_id = ? AND seq < ?`,
		b(ws), b(group), int64(barrier))
	if err != nil {
		return 0, 0, fmt.Errorf("authors below the barrier: %w", err)
	}
	var authors []wire.ID
	for rows.Next() {
		var a []byte
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("authors below the barrier: %w", err)
		}
		if id := toID(a); upto[id] > 0 {
			authors = append(authors, id)
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, 0, fmt.Errorf("authors below the barrier: %w", err)
	}
	var n, bytes int64
	for _, a := range authors {
		args := []any{b(ws), b(group), b(a), int64(min(upto[a], math.MaxInt64)), int64(barrier), b(ws), b(group)}
		var an, abytes int64
		if err := t.row(ctx, `SELECT count(*), coalesce(sum(length(ct)), 0) FROM envelopes WHERE `+cond, args...).Scan(&an, &abytes); err != nil {
			return 0, 0, fmt.Errorf("measure drop: %w", err)
		}
		if an == 0 {
			continue
		}
		res, err := t.exec(ctx, `DELETE FROM envelopes WHERE `+cond, args...)
		if err != nil {
			return 0, 0, fmt.Errorf("drop envelopes: %w", err)
		}
		if got, _ := res.RowsAffected(); got != an {
			return 0, 0, fmt.Errorf("drop envelopes: deleted %d rows, measured %d", got, an)
		}
		n, bytes = n+an, bytes+abytes
	}
	// Below the barrier the drop explains every missing seq.
	if _, err := t.exec(ctx, `DELETE FROM wrap_tombstones WHERE workspace_id = ? AND group_id = ? AND seq < ?`,
		b(ws), b(group), int64(barrier)); err != nil {
		return 0, 0, fmt.Errorf("drop tombstones: %w", err)
	}
	return n, bytes, nil
}

// recordAuthorHeads keeps each author's newest (ctr, hash) of the group in
// author_heads, so its chain continues after envelopes are deleted.
func (t *sqlTx) recordAuthorHeads(ctx context.Context, ws, group wire.ID) error {
	if _, err := t.exec(ctx, `INSERT INTO author_heads (workspace_id, group_id, author, ctr, hash)
		SELECT e.workspace_id, e.group_id, e.author, e.ctr, e.hash FROM envelopes e
		 WHERE e.workspace_id = ? AND e.group_id = ? AND e.ctr = (SELECT max(m.ctr) FROM envelopes m
		   WHERE m.workspace_id = e.workspace_id AND m.group_id = e.group_id AND m.author = e.author)
		ON CONFLICT (workspace_id, group_id, author) DO UPDATE SET ctr = excluded.ctr, hash = excluded.hash WHERE excluded.ctr > author_heads.ctr`,
		b(ws), b(group)); err != nil {
		return fmt.Errorf("record author heads: %w", err)
	}
	return nil
}

// DeleteRecoveryWraps holds the relay's second envelope DELETE statement,
// limited to one recovery.wrap row at a time by its seq and kind.
func (t *sqlTx) DeleteRecoveryWraps(ctx context.Context, ws, group wire.ID, d *wire.WrapsDelete) (int64, int64, error) {
	tags := make(map[wire.ID]bool, len(d.Tags))
	for _, tag := range d.Tags {
		tags[tag] = true
	}
	rows, err := t.rows(ctx, `SELECT seq, ct FROM envelopes WHERE workspace_id = ? AND group_id = ? AND kind = ? ORDER BY seq`,
		b(ws), b(group), int64(wire.KindRecoveryWrap))
	if err != nil {
		return 0, 0, fmt.Errorf("read recovery wraps: %w", err)
	}
	type hit struct {
		seq, size int64
		tag       wire.ID
	}
	var hits []hit
	for rows.Next() {
		var seq int64
		var ct []byte
		if err := rows.Scan(&seq, &ct); err != nil {
			rows.Close()
			return 0, 0, err
		}
		if tag, ok := wire.WrapTag(ct); ok && tags[tag] {
			hits = append(hits, hit{seq, int64(len(ct)), tag})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, err
	}
	if len(hits) == 0 {
		return 0, 0, nil
	}
	if err := t.recordAuthorHeads(ctx, ws, group); err != nil {
		return 0, 0, err
	}
	hash := d.Hash()
	if _, err := t.exec(ctx, `INSERT INTO wrap_deletions (workspace_id, group_id, hash, body) VALUES (?, ?, ?, ?)
		ON CONFLICT (workspace_id, group_id, hash) DO NOTHING`, b(ws), b(group), b(hash), d.Encode()); err != nil {
		return 0, 0, fmt.Errorf("record wrap deletion: %w", err)
	}
	var n, size int64
	for _, h := range hits {
		res, err := t.exec(ctx, `DELETE FROM envelopes WHERE workspace_id = ? AND group_id = ? AND seq = ? AND kind = ?`,
			b(ws), b(group), h.seq, int64(wire.KindRecoveryWrap))
		if err != nil {
			return 0, 0, fmt.Errorf("delete recovery wrap: %w", err)
		}
		if got, _ := res.RowsAffected(); got == 1 {
			n, size = n+1, size+h.size
			if _, err := t.exec(ctx, `INSERT INTO wrap_tombstones (workspace_id, group_id, seq, tag, deletion) VALUES (?, ?, ?, ?, ?)`,
				b(ws), b(group), h.seq, b(h.tag), b(hash)); err != nil {
				return 0, 0, fmt.Errorf("record wrap tombstone: %w", err)
			}
		}
	}
	return n, size, nil
}

// Tombstones returns the group's tombstones with afterSeq < seq <= upto,
// ascending, at most limit.
func (t *sqlTx) Tombstones(ctx context.Context, ws, group wire.ID, afterSeq, upto uint64, limit int) ([]Tombstone, error) {
	rows, err := t.rows(ctx, `SELECT seq, tag, deletion FROM wrap_tombstones
		WHERE workspace_id = ? AND group_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
		b(ws), b(group), int64(afterSeq), int64(min(upto, 1<<63-1)), limit)
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	defer rows.Close()
	var out []Tombstone
	for rows.Next() {
		var seq int64
		var tag, del []byte
		if err := rows.Scan(&seq, &tag, &del); err != nil {
			return nil, err
		}
		out = append(out, Tombstone{Seq: uint64(seq), Tag: wire.ID(tag), Deletion: wire.ID(del)})
	}
	return out, rows.Err()
}

// WrapDeletion returns the signed WrapsDelete body of hash.
func (t *sqlTx) WrapDeletion(ctx context.Context, ws, group, hash wire.ID) ([]byte, error) {
	var body []byte
	if err := t.row(ctx, `SELECT body FROM wrap_deletions WHERE workspace_id = ? AND group_id = ? AND hash = ?`,
		b(ws), b(group), b(hash)).Scan(&body); err != nil {
		return nil, notFound(err, "wrap deletion")
	}
	return body, nil
}

func (t *sqlTx) AddAccessRefusal(ctx context.Context, ws wire.ID, at uint64, set []byte) error {
	var last int64
	if err := t.row(ctx, `SELECT COALESCE(MAX(id), 0) FROM access_refusals WHERE workspace_id = ?`, b(ws)).Scan(&last); err != nil {
		return fmt.Errorf("access refusals: %w", err)
	}
	if _, err := t.exec(ctx, `INSERT INTO access_refusals (workspace_id, id, at, body) VALUES (?, ?, ?, ?)`,
		b(ws), last+1, int64(at), set); err != nil {
		return fmt.Errorf("add access refusal: %w", err)
	}
	_, err := t.exec(ctx, `DELETE FROM access_refusals WHERE workspace_id = ? AND id <= ?`, b(ws), last+1-wire.MaxAccessRefusals)
	return err
}

func (t *sqlTx) AccessRefusals(ctx context.Context, ws wire.ID, after uint64) ([]wire.AccessRefusal, error) {
	rows, err := t.rows(ctx, `SELECT id, at, body FROM access_refusals WHERE workspace_id = ? AND id > ? ORDER BY id LIMIT ?`,
		b(ws), int64(after), wire.MaxAccessRefusals)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []wire.AccessRefusal
	for rows.Next() {
		var id, at int64
		var body []byte
		if err := rows.Scan(&id, &at, &body); err != nil {
			return nil, err
		}
		out = append(out, wire.AccessRefusal{ID: uint64(id), At: uint64(at), Set: body})
	}
	return out, rows.Err()
}

func (t *sqlTx) AddAnchors(ctx context.Context, ws, group wire.ID, seqs []uint64) error {
	for _, s := range seqs {
		if _, err := t.exec(ctx, `INSERT INTO anchors (workspace_id, group_id, seq) VALUES (?, ?, ?)
			ON CONFLICT (workspace_id, group_id, seq) DO NOTHING`, b(ws), b(group), int64(s)); err != nil {
			return fmt.Errorf("add anchor: %w", err)
		}
	}
	return nil
}

func (t *sqlTx) DropAnchorsBelow(ctx context.Context, ws, group wire.ID, barrier uint64) error {
	if _, err := t.exec(ctx, `DELETE FROM anchors WHERE workspace_id = ? AND group_id = ? AND seq < ?`,
		b(ws), b(group), int64(barrier)); err != nil {
		return fmt.Errorf("drop anchors: %w", err)
	}
	return nil
}

func (t *sqlTx) SetDroppedBelow(ctx context.Context, ws, group wire.ID, seq uint64) error {
	_, err := t.exec(ctx, `UPDATE groups SET dropped_below = ? WHERE workspace_id = ? AND id = ? AND dropped_below < ?`,
		int64(seq), b(ws), b(group), int64(seq))
	return err
}

func (t *sqlTx) Emit(ctx context.Context, c Change) error {
	if t.readOnly {
		return fmt.Errorf("store: emit in a read-only transaction")
	}
	t.changes = append(t.changes, c)
	t.unsent++
	return nil
}

// pendingPayloads returns the NOTIFY payloads of changes not yet sent.
func (t *sqlTx) pendingPayloads() []string {
	if !t.s.d.notify || t.unsent == 0 {
		return nil
	}
	out := make([]string, 0, t.unsent)
	for _, c := range t.changes[len(t.changes)-t.unsent:] {
		out = append(out, c.Payload())
	}
	return out
}

// flushNotify sends the pending notifications (PostgreSQL) in one statement.
// run calls it before commit; NOTIFY is delivered only if the commit succeeds.
func (t *sqlTx) flushNotify(ctx context.Context) error {
	p := t.pendingPayloads()
	if len(p) == 0 {
		return nil
	}
	if _, err := t.exec(ctx, `SELECT count(pg_notify(?, p)) FROM unnest(?::text[]) AS p`, NotifyChannel, p); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	t.unsent = 0
	return nil
}

func (t *sqlTx) LogBytesAndNotify(ctx context.Context, ws wire.ID) (int64, error) {
	var n int64
	p := t.pendingPayloads()
	if len(p) == 0 {
		if err := t.row(ctx, `SELECT log_bytes FROM workspaces WHERE id = ?`, b(ws)).Scan(&n); err != nil {
			return 0, notFound(err, "log bytes")
		}
		return n, nil
	}
	var sent int64
	err := t.row(ctx, `SELECT log_bytes, (SELECT count(pg_notify(?, p)) FROM unnest(?::text[]) AS p) FROM workspaces WHERE id = ?`,
		NotifyChannel, p, b(ws)).Scan(&n, &sent)
	if err != nil {
		return 0, notFound(err, "log bytes")
	}
	t.unsent = 0
	return n, nil
}

const headsQuery = `SELECT ` + groupHeadSQL + `, h.ctr, h.hash
	FROM (SELECT 1 AS one) AS one
	LEFT JOIN (SELECT ctr, hash FROM (
		SELECT ctr, hash FROM (SELECT ctr, hash FROM envelopes WHERE workspace_id = ? AND group_id = ? AND author = ? ORDER BY ctr DESC LIMIT 1) AS newest
		UNION ALL
		SELECT ctr, hash FROM author_heads WHERE workspace_id = ? AND group_id = ? AND author = ?
	) AS heads ORDER BY ctr DESC LIMIT 1) AS h ON true`

// headsArgs are headsQuery's arguments.
func headsArgs(ws, group, author wire.ID) []any {
	return []any{b(ws), b(group), b(ws), b(group), b(ws), b(group), b(author), b(ws), b(group), b(author)}
}

func (t *sqlTx) LockForSend(ctx context.Context, ws, group, author wire.ID) (Workspace, uint64, AuthorHead, bool, error) {
	var ghead int64
	var actr sql.NullInt64
	var ahash []byte
	var w Workspace
	if t.s.d.name == "postgres" {
		// One statement locks the row and reads the heads. A statement that
		// waited for the lock still reads the heads from the snapshot it
		// started with, so it also returns log_changes twice: from the
		// locked (latest) row and from its snapshot. If they differ, an
		// envelope committed in between and the heads are read again.
		var id, head []byte
		var consumed int
		var av, ri, locked, seen int64
		err := t.row(ctx, `SELECT `+workspaceCols+`, w.log_changes, (SELECT s.log_changes FROM workspaces s WHERE s.id = ?), hs.*
			FROM workspaces w CROSS JOIN (`+headsQuery+`) AS hs WHERE w.id = ? FOR UPDATE OF w`,
			append(append([]any{b(ws)}, headsArgs(ws, group, author)...), b(ws))...).
			Scan(&id, &w.GenesisKey, &consumed, &av, &ri, &head, &w.LogBytes, &w.CreatedAt, &locked, &seen, &ghead, &actr, &ahash)
		if err != nil {
			return Workspace{}, 0, AuthorHead{}, false, notFound(err, "lock workspace "+ws.Short())
		}
		w.ID, w.RosterHead = toID(id), toID(head)
		w.GenesisConsumed, w.AccessVersion, w.RosterIndex = consumed != 0, uint64(av), uint64(ri)
		if locked == seen {
			return w, uint64(ghead), AuthorHead{Ctr: uint64(actr.Int64), Hash: toID(ahash)}, actr.Valid, nil
		}
	} else {
		var err error
		// SQLite's BEGIN IMMEDIATE already serialized the whole transaction.
		if w, err = t.LockWorkspace(ctx, ws); err != nil {
			return Workspace{}, 0, AuthorHead{}, false, err
		}
	}
	if err := t.row(ctx, headsQuery, headsArgs(ws, group, author)...).Scan(&ghead, &actr, &ahash); err != nil {
		return Workspace{}, 0, AuthorHead{}, false, fmt.Errorf("send heads: %w", err)
	}
	return w, uint64(ghead), AuthorHead{Ctr: uint64(actr.Int64), Hash: toID(ahash)}, actr.Valid, nil
}

func (t *sqlTx) AddWelcomeNotice(ctx context.Context, ws, owner wire.ID, ref wire.WelcomeRef, at uint64) (bool, error) {
	var last, dup int64
	if err := t.row(ctx, `SELECT COALESCE(MAX(id), 0), COALESCE(SUM(CASE WHEN group_id = ? AND seq = ? THEN 1 ELSE 0 END), 0)
		FROM welcome_notices WHERE workspace_id = ? AND owner = ?`, b(ref.Group), int64(ref.Seq), b(ws), b(owner)).Scan(&last, &dup); err != nil {
		return false, fmt.Errorf("welcome notices: %w", err)
	}
	if dup > 0 {
		return false, nil
	}
	if _, err := t.exec(ctx, `INSERT INTO welcome_notices (workspace_id, owner, id, group_id, seq, at) VALUES (?, ?, ?, ?, ?, ?)`,
		b(ws), b(owner), last+1, b(ref.Group), int64(ref.Seq), int64(at)); err != nil {
		return false, fmt.Errorf("add welcome notice: %w", err)
	}
	_, err := t.exec(ctx, `DELETE FROM welcome_notices WHERE workspace_id = ? AND owner = ? AND id <= ?`, b(ws), b(owner), last+1-wire.MaxWelcomesKept)
	return true, err
}

func (t *sqlTx) WelcomeNotices(ctx context.Context, ws, owner wire.ID) ([]wire.WelcomeRef, error) {
	rows, err := t.rows(ctx, `SELECT group_id, seq FROM welcome_notices WHERE workspace_id = ? AND owner = ? ORDER BY id LIMIT ?`,
		b(ws), b(owner), wire.MaxWelcomes)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []wire.WelcomeRef
	for rows.Next() {
		var g []byte
		var seq int64
		if err := rows.Scan(&g, &seq); err != nil {
			return nil, err
		}
		id, ok := wire.IDFromBytes(g)
		if !ok {
			return nil, fmt.Errorf("welcome notices: group id of %d bytes", len(g))
		}
		out = append(out, wire.WelcomeRef{Group: id, Seq: uint64(seq)})
	}
	return out, rows.Err()
}

func (t *sqlTx) ClearWelcomeNotices(ctx context.Context, ws, owner wire.ID, refs []wire.WelcomeRef) error {
	for _, r := range refs {
		if _, err := t.exec(ctx, `DELETE FROM welcome_notices WHERE workspace_id = ? AND owner = ? AND group_id = ? AND seq = ?`,
			b(ws), b(owner), b(r.Group), int64(r.Seq)); err != nil {
			return fmt.Errorf("clear welcome notices: %w", err)
		}
	}
	return nil
}
