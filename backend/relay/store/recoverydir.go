package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"weald/backend/wire"
)

// The recovery tag directory's rows (schema 0012/0014 recovery_dir;
// docs/protocol/lifecycle.md "Recovery tag directory").

func (t *sqlTx) RecoveryDirPut(ctx context.Context, ws, owner, group wire.ID, e wire.DirEntry) (bool, error) {
	var cur int64
	err := t.row(ctx, `SELECT cur_seq FROM recovery_dir WHERE workspace_id = ? AND owner = ? AND group_id = ?`,
		b(ws), b(owner), b(group)).Scan(&cur)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var zero wire.ID
		if _, err := t.exec(ctx, `INSERT INTO recovery_dir (workspace_id, owner, group_id, cur_seq, cur_epoch, cur_tag, fb_seq, fb_epoch, fb_tag)
			VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?)`, b(ws), b(owner), b(group), int64(e.Seq), int64(e.Epoch), b(e.Tag), b(zero)); err != nil {
			return false, fmt.Errorf("recovery directory put: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("recovery directory: %w", err)
	case uint64(cur) == e.Seq:
		return false, nil
	}
	// The current entry becomes the fallback: the slot stays valid through
	// a hand-off that stops between the new wrap and its use.
	if _, err := t.exec(ctx, `UPDATE recovery_dir SET fb_seq = cur_seq, fb_epoch = cur_epoch, fb_tag = cur_tag,
		cur_seq = ?, cur_epoch = ?, cur_tag = ? WHERE workspace_id = ? AND owner = ? AND group_id = ?`,
		int64(e.Seq), int64(e.Epoch), b(e.Tag), b(ws), b(owner), b(group)); err != nil {
		return false, fmt.Errorf("recovery directory put: %w", err)
	}
	return false, nil
}

func (t *sqlTx) RecoveryDirCount(ctx context.Context, ws, owner wire.ID) (int, error) {
	var n int64
	if err := t.row(ctx, `SELECT count(*) FROM recovery_dir WHERE workspace_id = ? AND owner = ?`, b(ws), b(owner)).Scan(&n); err != nil {
		return 0, fmt.Errorf("recovery directory: %w", err)
	}
	return int(n), nil
}

func (t *sqlTx) RecoveryDir(ctx context.Context, ws, owner wire.ID) ([]wire.DirSlot, error) {
	const present = `EXISTS (SELECT 1 FROM envelopes e WHERE e.workspace_id = d.workspace_id AND e.group_id = d.group_id AND e.seq = d.%s AND e.kind = ?)`
	rows, err := t.rows(ctx, `SELECT d.group_id, d.cur_seq, d.cur_epoch, d.cur_tag, `+fmt.Sprintf(present, "cur_seq")+`,
		d.fb_seq, d.fb_epoch, d.fb_tag, `+fmt.Sprintf(present, "fb_seq")+`
		FROM recovery_dir d WHERE d.workspace_id = ? AND d.owner = ? ORDER BY d.group_id LIMIT ?`,
		int64(wire.KindRecoveryWrap), int64(wire.KindRecoveryWrap), b(ws), b(owner), wire.MaxDirSlots)
	if err != nil {
		return nil, fmt.Errorf("recovery directory: %w", err)
	}
	defer rows.Close()
	var out []wire.DirSlot
	for rows.Next() {
		var g, ctag, ftag []byte
		var cseq, cep, fseq, fep int64
		var s wire.DirSlot
		if err := rows.Scan(&g, &cseq, &cep, &ctag, &s.Current.Present, &fseq, &fep, &ftag, &s.Fallback.Present); err != nil {
			return nil, err
		}
		s.Group, s.Current.Tag, s.Fallback.Tag = toID(g), toID(ctag), toID(ftag)
		s.Current.Seq, s.Current.Epoch = uint64(cseq), uint64(cep)
		s.Fallback.Seq, s.Fallback.Epoch = uint64(fseq), uint64(fep)
		if s.Fallback.Seq == 0 {
			s.Fallback = wire.DirEntry{}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (t *sqlTx) DropRecoveryDir(ctx context.Context, ws wire.ID, d *wire.RecoveryDirDrop) (int64, error) {
	q := `DELETE FROM recovery_dir WHERE workspace_id = ? AND owner = ?`
	args := []any{b(ws), b(d.Owner)}
	if len(d.Groups) > 0 {
		q += ` AND group_id IN (?` + strings.Repeat(", ?", len(d.Groups)-1) + `)`
		for _, g := range d.Groups {
			args = append(args, b(g))
		}
	}
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("recovery directory drop: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if n > 0 {
		h := d.Hash()
		if _, err := t.exec(ctx, `INSERT INTO recovery_dir_drops (workspace_id, hash, body) VALUES (?, ?, ?)
			ON CONFLICT (workspace_id, hash) DO NOTHING`, b(ws), b(h), d.Encode()); err != nil {
			return 0, fmt.Errorf("record recovery directory drop: %w", err)
		}
	}
	return n, nil
}

func (t *sqlTx) RecoveryDirDrop(ctx context.Context, ws, hash wire.ID) ([]byte, error) {
	var body []byte
	if err := t.row(ctx, `SELECT body FROM recovery_dir_drops WHERE workspace_id = ? AND hash = ?`, b(ws), b(hash)).Scan(&body); err != nil {
		return nil, notFound(err, "recovery directory drop")
	}
	return body, nil
}
