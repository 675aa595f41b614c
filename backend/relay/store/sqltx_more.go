package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// The roster, key-package, retention and stats methods of sqlTx.

func (t *sqlTx) RosterAppend(ctx context.Context, ws wire.ID, index uint64, head wire.ID, op []byte) error {
	if _, err := t.exec(ctx, `INSERT INTO roster_ops (workspace_id, idx, head, op) VALUES (?, ?, ?, ?)`,
		b(ws), int64(index), b(head), nonNil(op)); err != nil {
		return fmt.Errorf("roster append: %w", err)
	}
	_, err := t.exec(ctx, `UPDATE workspaces SET roster_index = ?, roster_head = ? WHERE id = ?`, int64(index), b(head), b(ws))
	return err
}

func (t *sqlTx) RosterOps(ctx context.Context, ws wire.ID, afterIndex uint64, limit int, maxBytes int64) ([][]byte, error) {
	rows, err := t.rows(ctx, `SELECT op FROM (
			SELECT idx, op, sum(length(op)) OVER (ORDER BY idx) - length(op) AS before
			  FROM roster_ops WHERE workspace_id = ? AND idx > ? ORDER BY idx LIMIT ?
		) AS page WHERE before < ? ORDER BY idx`, b(ws), int64(afterIndex), limit, maxBytes)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var op []byte
		if err := rows.Scan(&op); err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, rows.Err()
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

func (t *sqlTx) PutKeyPackage(ctx context.Context, ws, owner wire.ID, kp KeyPackage, now int64) error {
	if kp.LastResort {
		if _, err := t.exec(ctx, `DELETE FROM key_packages WHERE workspace_id = ? AND owner = ? AND last_resort = 1`, b(ws), b(owner)); err != nil {
			return fmt.Errorf("replace last-resort key package: %w", err)
		}
	}
	_, err := t.exec(ctx, `INSERT INTO key_packages (workspace_id, owner, body, last_resort, created_at) VALUES (?, ?, ?, ?, ?)`,
		b(ws), b(owner), nonNil(kp.Body), boolInt(kp.LastResort), now)
	return err
}

func (t *sqlTx) ClaimKeyPackage(ctx context.Context, ws, owner wire.ID) (KeyPackage, error) {
	var id int64
	var body []byte
	err := t.row(ctx, `SELECT id, body FROM key_packages WHERE workspace_id = ? AND owner = ? AND last_resort = 0 ORDER BY id LIMIT 1`+t.s.d.forUpdate,
		b(ws), b(owner)).Scan(&id, &body)
	if err == nil {
		if _, err := t.exec(ctx, `DELETE FROM key_packages WHERE id = ?`, id); err != nil {
			return KeyPackage{}, fmt.Errorf("claim key package: %w", err)
		}
		return KeyPackage{Body: body}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return KeyPackage{}, fmt.Errorf("claim key package: %w", err)
	}
	err = t.row(ctx, `SELECT body FROM key_packages WHERE workspace_id = ? AND owner = ? AND last_resort = 1`, b(ws), b(owner)).Scan(&body)
	if err != nil {
		return KeyPackage{}, notFound(err, "key package")
	}
	return KeyPackage{Body: body, LastResort: true}, nil
}

func (t *sqlTx) KeyPackageStock(ctx context.Context, ws, owner wire.ID) (int, bool, error) {
	var oneUse, lr int
	err := t.row(ctx, `SELECT coalesce(sum(1 - last_resort), 0), coalesce(sum(last_resort), 0) FROM key_packages WHERE workspace_id = ? AND owner = ?`,
		b(ws), b(owner)).Scan(&oneUse, &lr)
	return oneUse, lr > 0, err
}

func (t *sqlTx) KeyPackageBytes(ctx context.Context, ws wire.ID) (uint64, error) {
	var n int64
	err := t.row(ctx, `SELECT coalesce(sum(length(body)), 0) FROM key_packages WHERE workspace_id = ?`, b(ws)).Scan(&n)
	return uint64(n), err
}

func (t *sqlTx) RetentionKeys(ctx context.Context, ws, group wire.ID) ([]RetentionKey, error) {
	rows, err := t.rows(ctx, `SELECT key, prev_key, epoch, seq, dead FROM retention_keys WHERE workspace_id = ? AND group_id = ? ORDER BY seq`,
		b(ws), b(group))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RetentionKey
	for rows.Next() {
		var k RetentionKey
		var epoch, seq int64
		var dead int
		if err := rows.Scan(&k.Key, &k.PrevKey, &epoch, &seq, &dead); err != nil {
			return nil, err
		}
		k.Dead = dead != 0
		if len(k.PrevKey) == 0 {
			k.PrevKey = nil
		}
		k.Epoch, k.Seq = uint64(epoch), uint64(seq)
		out = append(out, k)
	}
	return out, rows.Err()
}

func (t *sqlTx) PutRetentionKey(ctx context.Context, ws, group wire.ID, k RetentionKey) error {
	_, err := t.exec(ctx, `INSERT INTO retention_keys (workspace_id, group_id, key, prev_key, epoch, seq) VALUES (?, ?, ?, ?, ?, ?)`,
		b(ws), b(group), k.Key, nonNil(k.PrevKey), int64(k.Epoch), int64(k.Seq))
	return err
}

func (t *sqlTx) ResolveRetention(ctx context.Context, ws, group wire.ID, dead [][]byte) error {
	for _, k := range dead {
		if _, err := t.exec(ctx, `UPDATE retention_keys SET dead = 1 WHERE workspace_id = ? AND group_id = ? AND key = ?`, b(ws), b(group), k); err != nil {
			return fmt.Errorf("resolve retention: %w", err)
		}
	}
	_, err := t.exec(ctx, `UPDATE groups SET retention_frozen = 0 WHERE workspace_id = ? AND id = ?`, b(ws), b(group))
	return err
}

func (t *sqlTx) PutPolicy(ctx context.Context, ws, group wire.ID, p Policy) error {
	_, err := t.exec(ctx, `INSERT INTO retention_policies (workspace_id, group_id, version, seq, author, ctr, hash, text_window_days, media_window_days, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b(ws), b(group), int64(p.Version), int64(p.Seq), b(p.Ref.Author), int64(p.Ref.Ctr), b(p.Ref.Hash),
		int64(p.TextWindowDays), int64(p.MediaWindowDays), p.Body)
	return err
}

func (t *sqlTx) LatestPolicy(ctx context.Context, ws, group wire.ID) (Policy, error) {
	var p Policy
	var version, seq, ctr, text, media int64
	var author, hash []byte
	err := t.row(ctx, `SELECT version, seq, author, ctr, hash, text_window_days, media_window_days, body FROM retention_policies
		WHERE workspace_id = ? AND group_id = ? ORDER BY version DESC LIMIT 1`, b(ws), b(group)).Scan(&version, &seq, &author, &ctr, &hash, &text, &media, &p.Body)
	if err != nil {
		return Policy{}, notFound(err, "retention policy")
	}
	p.Version, p.Seq = uint64(version), uint64(seq)
	p.Ref = wire.EnvelopeRef{Author: toID(author), Ctr: uint64(ctr), Hash: toID(hash)}
	p.TextWindowDays, p.MediaWindowDays = uint32(text), uint32(media)
	return p, nil
}

func (t *sqlTx) PutCheckpoint(ctx context.Context, ws, group wire.ID, c CheckpointRow) error {
	_, err := t.exec(ctx, `INSERT INTO checkpoints (workspace_id, group_id, seq, author, ctr, hash, manifest_hash, retention_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		b(ws), b(group), int64(c.Seq), b(c.Ref.Author), int64(c.Ref.Ctr), b(c.Ref.Hash), b(c.ManifestHash), c.RetentionKey)
	return err
}

func (t *sqlTx) Stats(ctx context.Context, ws wire.ID, overRetentionBefore int64) (WorkspaceStats, error) {
	var s WorkspaceStats
	if err := t.row(ctx, `SELECT log_bytes FROM workspaces WHERE id = ?`, b(ws)).Scan(&s.LogBytes); err != nil {
		return s, notFound(err, "workspace stats")
	}
	if err := t.row(ctx, `SELECT count(*) FROM groups WHERE workspace_id = ?`, b(ws)).Scan(&s.Groups); err != nil {
		return s, err
	}
	err := t.row(ctx, `SELECT count(*), coalesce(min(e.accepted_at), 0),
			coalesce(sum(CASE WHEN e.accepted_at < ? THEN 1 ELSE 0 END), 0), coalesce(sum(length(e.ct)), 0)
		FROM envelopes e WHERE e.workspace_id = ?`, overRetentionBefore, b(ws)).
		Scan(&s.Envelopes, &s.OldestAt, &s.OverRetention, &s.SumCT)
	return s, err
}
