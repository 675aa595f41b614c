package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Chain errors (wire error codes chain/gap, chain/fork, chain/replay).
var (
	ErrChainGap    = errors.New("chain/gap: an envelope is missing before this one in its author's chain")
	ErrChainFork   = errors.New("chain/fork: this envelope contradicts one already received from the same author")
	ErrChainReplay = errors.New("chain/replay: this envelope is at or below its author's verified chain head")
	ErrSeqConflict = errors.New("store/seq_conflict: a different envelope is already stored at this seq")
)

// Envelope is a received envelope with the fields the store indexes. Bytes
// is its whole encoding (wire.SeqEnvelope).
type Envelope struct {
	Group     wire.ID
	Seq       uint64
	Author    wire.ID
	Ctr       uint64
	Prev      wire.ID // hash of the author's previous envelope (zero when Ctr = 1)
	Hash      wire.ID // wire.Envelope.Hash
	Kind      wire.Kind
	Bytes     []byte
	Processed bool
}

// PutEnvelope stores a received, signature-verified envelope and advances
// its author's chain head. The chain must continue: Ctr one past the head
// and Prev equal to the head's hash (or Ctr 1 and a zero Prev for an author
// not seen before). An envelope already stored is reported as not inserted
// and is not an error. Nothing is written when an error is returned.
func (t *Tx) PutEnvelope(e Envelope) (inserted bool, err error) {
	if e.Seq == 0 || e.Ctr == 0 {
		return false, errors.New("store: envelope seq and ctr start at 1")
	}
	var oldHash []byte
	err = t.row(`SELECT hash FROM envelopes WHERE group_id = ? AND seq = ?`, e.Group[:], int64(e.Seq)).Scan(&oldHash)
	switch {
	case err == nil && bytes.Equal(oldHash, e.Hash[:]):
		return false, nil
	case err == nil:
		return false, fmt.Errorf("%w (group %s seq %d)", ErrSeqConflict, e.Group.Short(), e.Seq)
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("store: envelope: %w", err)
	}
	ctr, head, ok, err := t.ChainHead(e.Group, e.Author)
	if err != nil {
		return false, err
	}
	switch {
	case !ok && (e.Ctr != 1 || !e.Prev.IsZero()):
		return false, fmt.Errorf("%w (author %s: first envelope has ctr %d)", ErrChainGap, e.Author.Short(), e.Ctr)
	case ok && e.Ctr <= ctr:
		var h []byte
		err := t.row(`SELECT hash FROM envelopes WHERE group_id = ? AND author = ? AND ctr = ?`,
			e.Group[:], e.Author[:], int64(e.Ctr)).Scan(&h)
		if err == nil && !bytes.Equal(h, e.Hash[:]) {
			return false, fmt.Errorf("%w (author %s ctr %d)", ErrChainFork, e.Author.Short(), e.Ctr)
		}
		return false, fmt.Errorf("%w (author %s ctr %d, head %d)", ErrChainReplay, e.Author.Short(), e.Ctr, ctr)
	case ok && e.Ctr > ctr+1:
		return false, fmt.Errorf("%w (author %s: ctr %d after %d)", ErrChainGap, e.Author.Short(), e.Ctr, ctr)
	case ok && e.Prev != head:
		return false, fmt.Errorf("%w (author %s ctr %d names another previous envelope)", ErrChainFork, e.Author.Short(), e.Ctr)
	}
	if _, err := t.exec(`INSERT INTO envelopes (group_id, seq, author, ctr, hash, kind, bytes, processed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.Group[:], int64(e.Seq), e.Author[:], int64(e.Ctr), e.Hash[:],
		int(e.Kind), e.Bytes, b2i(e.Processed)); err != nil {
		return false, fmt.Errorf("store: put envelope: %w", err)
	}
	if err := t.putChainHead(e.Group, e.Author, e.Ctr, e.Hash); err != nil {
		return false, err
	}
	// One of ours came back: the outbox entry is done with, whether or not
	// MarkSent was reached before a crash.
	if _, err := t.exec(`DELETE FROM outbox WHERE group_id = ? AND author = ? AND ctr = ? AND hash = ?`,
		e.Group[:], e.Author[:], int64(e.Ctr), e.Hash[:]); err != nil {
		return false, fmt.Errorf("store: settle outbox: %w", err)
	}
	return true, nil
}

// ChainHead returns the verified head of author's chain in group.
func (t *Tx) ChainHead(group, author wire.ID) (ctr uint64, hash wire.ID, ok bool, err error) {
	var c int64
	var h []byte
	err = t.row(`SELECT ctr, hash FROM chain_heads WHERE group_id = ? AND author = ?`, group[:], author[:]).Scan(&c, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, hash, false, nil
	}
	if err != nil {
		return 0, hash, false, fmt.Errorf("store: chain head: %w", err)
	}
	return uint64(c), hash, true, scanID(h, &hash)
}

// SetChainHead sets an author's chain head from a trusted checkpoint's
// barrier (spec/lifecycle.md "Checkpoints": chains are verified above the
// newest trusted checkpoint). It never moves a head backwards.
func (t *Tx) SetChainHead(group, author wire.ID, ctr uint64, hash wire.ID) error {
	old, _, ok, err := t.ChainHead(group, author)
	if err != nil {
		return err
	}
	if ok && ctr <= old {
		return nil
	}
	return t.putChainHead(group, author, ctr, hash)
}

func (t *Tx) putChainHead(group, author wire.ID, ctr uint64, hash wire.ID) error {
	_, err := t.exec(`INSERT INTO chain_heads (group_id, author, ctr, hash) VALUES (?, ?, ?, ?)
		ON CONFLICT (group_id, author) DO UPDATE SET ctr = excluded.ctr, hash = excluded.hash`,
		group[:], author[:], int64(ctr), hash[:])
	if err != nil {
		return fmt.Errorf("store: chain head: %w", err)
	}
	return nil
}

const envCols = `group_id, seq, author, ctr, hash, kind, bytes, processed`

func scanEnvelopes(rows *sql.Rows, err error) ([]Envelope, error) {
	if err != nil {
		return nil, fmt.Errorf("store: envelopes: %w", err)
	}
	defer rows.Close()
	var out []Envelope
	for rows.Next() {
		var e Envelope
		var g, a, h []byte
		var seq, ctr int64
		var kind, processed int
		if err := rows.Scan(&g, &seq, &a, &ctr, &h, &kind, &e.Bytes, &processed); err != nil {
			return nil, fmt.Errorf("store: envelopes: %w", err)
		}
		e.Seq, e.Ctr, e.Kind, e.Processed = uint64(seq), uint64(ctr), wire.Kind(kind), processed == 1
		for _, p := range []struct {
			b  []byte
			id *wire.ID
		}{{g, &e.Group}, {a, &e.Author}, {h, &e.Hash}} {
			if err := scanID(p.b, p.id); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Envelopes returns up to limit envelopes of group with seq > afterSeq, in
// seq order.
func (t *Tx) Envelopes(group wire.ID, afterSeq uint64, limit int) ([]Envelope, error) {
	return scanEnvelopes(t.query(`SELECT `+envCols+` FROM envelopes WHERE group_id = ? AND seq > ?
		ORDER BY seq LIMIT ?`, group[:], int64(afterSeq), limit))
}

// Unprocessed returns up to limit envelopes of group not yet marked
// processed (for example content that arrived before its key), in seq order.
func (t *Tx) Unprocessed(group wire.ID, limit int) ([]Envelope, error) {
	return scanEnvelopes(t.query(`SELECT `+envCols+` FROM envelopes WHERE group_id = ? AND processed = 0
		ORDER BY seq LIMIT ?`, group[:], limit))
}

// MarkProcessed records that an envelope has been acted on.
func (t *Tx) MarkProcessed(group wire.ID, seq uint64) error {
	res, err := t.exec(`UPDATE envelopes SET processed = 1 WHERE group_id = ? AND seq = ?`, group[:], int64(seq))
	return oneRow(res, err, ErrNotFound)
}
