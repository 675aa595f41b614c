package store

import (
	"database/sql"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Outgoing is an envelope written by this client and not yet accepted by
// the relay. Envelopes leave in the order they were queued, which keeps each
// author chain in ctr order.
type Outgoing struct {
	ID             int64 // assigned by Enqueue
	Group          wire.ID
	IdempotencyKey []byte // the same key queues the same work only once
	Kind           wire.Kind
	Author         wire.ID
	Ctr            uint64
	Hash           wire.ID // wire.Envelope.Hash
	Envelope       []byte  // the signed wire.Envelope encoding
	Attempts       int
	LastError      string
}

// Enqueue queues an envelope. If work with the same idempotency key is
// already queued it returns that entry's id and existed = true and changes
// nothing.
func (t *Tx) Enqueue(o Outgoing) (id int64, existed bool, err error) {
	if len(o.IdempotencyKey) == 0 || len(o.Envelope) == 0 || o.Ctr == 0 {
		return 0, false, errors.New("store: outgoing work needs an idempotency key, an envelope and a ctr")
	}
	err = t.row(`SELECT id FROM outbox WHERE idempotency_key = ?`, o.IdempotencyKey).Scan(&id)
	if err == nil {
		return id, true, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, fmt.Errorf("store: enqueue: %w", err)
	}
	res, err := t.exec(`INSERT INTO outbox (group_id, idempotency_key, kind, author, ctr, hash, envelope)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, o.Group[:], o.IdempotencyKey, int(o.Kind), o.Author[:], int64(o.Ctr), o.Hash[:], o.Envelope)
	if err != nil {
		return 0, false, fmt.Errorf("store: enqueue: %w", err)
	}
	id, err = res.LastInsertId()
	return id, false, err
}

// Outbox returns up to limit envelopes still to be sent, oldest first.
func (t *Tx) Outbox(limit int) ([]Outgoing, error) {
	rows, err := t.query(`SELECT id, group_id, idempotency_key, kind, author, ctr, hash, envelope, attempts, last_error
		FROM outbox WHERE sent = 0 ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: outbox: %w", err)
	}
	defer rows.Close()
	var out []Outgoing
	for rows.Next() {
		var o Outgoing
		var g, a, h []byte
		var kind int
		var ctr int64
		if err := rows.Scan(&o.ID, &g, &o.IdempotencyKey, &kind, &a, &ctr, &h, &o.Envelope, &o.Attempts, &o.LastError); err != nil {
			return nil, fmt.Errorf("store: outbox: %w", err)
		}
		o.Kind, o.Ctr = wire.Kind(kind), uint64(ctr)
		for _, p := range []struct {
			b  []byte
			id *wire.ID
		}{{g, &o.Group}, {a, &o.Author}, {h, &o.Hash}} {
			if err := scanID(p.b, p.id); err != nil {
				return nil, err
			}
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// OutboxLen returns how many envelopes wait to be sent ("pending work").
func (t *Tx) OutboxLen() (int, error) {
	var n int
	err := t.row(`SELECT count(*) FROM outbox WHERE sent = 0`).Scan(&n)
	return n, err
}

// MarkSent records that the relay accepted an envelope. The row stays
// (out of [Tx.Outbox]) until the envelope itself is stored by
// [Tx.PutEnvelope], so [Tx.NextLink] keeps counting it.
func (t *Tx) MarkSent(id int64) error {
	res, err := t.exec(`UPDATE outbox SET sent = 1 WHERE id = ? AND sent = 0`, id)
	return oneRow(res, err, ErrNotFound)
}

// RecordAttempt counts a failed send and keeps its error for status output.
func (t *Tx) RecordAttempt(id int64, errText string) error {
	res, err := t.exec(`UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?`, errText, id)
	return oneRow(res, err, ErrNotFound)
}

// NextLink returns the ctr and previous hash of author's next envelope in
// group: one past the newest of its verified chain head and its queued
// envelopes, so an envelope written while others are still unsent continues
// the chain instead of forking it.
func (t *Tx) NextLink(group, author wire.ID) (ctr uint64, prev wire.ID, err error) {
	c, h, ok, err := t.ChainHead(group, author)
	if err != nil {
		return 0, prev, err
	}
	if ok {
		ctr, prev = c, h
	}
	var qc int64
	var qh []byte
	err = t.row(`SELECT ctr, hash FROM outbox WHERE group_id = ? AND author = ? ORDER BY ctr DESC LIMIT 1`,
		group[:], author[:]).Scan(&qc, &qh)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return 0, prev, fmt.Errorf("store: next link: %w", err)
	case uint64(qc) > ctr:
		ctr = uint64(qc)
		if err := scanID(qh, &prev); err != nil {
			return 0, prev, err
		}
	}
	return ctr + 1, prev, nil
}
