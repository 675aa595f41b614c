package store

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Scopes of a content key (design/gaps.md "Groups and keys").
const (
	ScopeHistory = "history" // an open group's history key: valid from FromEpoch on, until replaced
	ScopeEpoch   = "epoch"   // a closed group's per-epoch key: valid in FromEpoch only
)

// HistoryKey is a key content envelopes of a group are encrypted under.
type HistoryKey struct {
	Group     wire.ID
	KeyID     []byte
	Scope     string
	Key       []byte
	FromEpoch uint64
}

// ErrKeyConflict: a different key is already stored under the same id.
var ErrKeyConflict = errors.New("store/key_conflict: a different key is already stored under this key id")

// PutHistoryKey stores a content key. Storing the same key again is a
// no-op; a different key under the same id is [ErrKeyConflict].
func (t *Tx) PutHistoryKey(k HistoryKey) error {
	if k.Scope != ScopeHistory && k.Scope != ScopeEpoch {
		return fmt.Errorf("store: key scope %q", k.Scope)
	}
	if len(k.KeyID) == 0 || len(k.Key) == 0 {
		return errors.New("store: a content key needs an id and key bytes")
	}
	old, err := t.HistoryKey(k.Group, k.KeyID)
	if err == nil {
		if old.Scope == k.Scope && bytes.Equal(old.Key, k.Key) && old.FromEpoch == k.FromEpoch {
			return nil
		}
		return ErrKeyConflict
	}
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	_, err = t.exec(`INSERT INTO history_keys (group_id, key_id, scope, key, from_epoch) VALUES (?, ?, ?, ?, ?)`,
		k.Group[:], k.KeyID, k.Scope, k.Key, int64(k.FromEpoch))
	if err != nil {
		return fmt.Errorf("store: put content key: %w", err)
	}
	return nil
}

// HistoryKey returns one content key, or [ErrNotFound].
func (t *Tx) HistoryKey(group wire.ID, keyID []byte) (HistoryKey, error) {
	k := HistoryKey{Group: group, KeyID: keyID}
	var from int64
	err := t.row(`SELECT scope, key, from_epoch FROM history_keys WHERE group_id = ? AND key_id = ?`,
		group[:], keyID).Scan(&k.Scope, &k.Key, &from)
	if errors.Is(err, sql.ErrNoRows) {
		return k, ErrNotFound
	}
	if err != nil {
		return k, fmt.Errorf("store: content key: %w", err)
	}
	k.FromEpoch = uint64(from)
	return k, nil
}

// EpochKeyID is the key id under which a closed group's content key of
// epoch is stored: the epoch as 8 big-endian bytes.
func EpochKeyID(epoch uint64) []byte { return binary.BigEndian.AppendUint64(nil, epoch) }

// LatestHistoryKey returns the history-scope key with the highest from
// epoch (the one new content is encrypted under), or [ErrNotFound].
func (t *Tx) LatestHistoryKey(group wire.ID) (HistoryKey, error) {
	k := HistoryKey{Group: group, Scope: ScopeHistory}
	var from int64
	err := t.row(`SELECT key_id, key, from_epoch FROM history_keys WHERE group_id = ? AND scope = 'history'
		ORDER BY from_epoch DESC, key_id DESC LIMIT 1`, group[:]).Scan(&k.KeyID, &k.Key, &from)
	if errors.Is(err, sql.ErrNoRows) {
		return k, ErrNotFound
	}
	if err != nil {
		return k, fmt.Errorf("store: latest history key: %w", err)
	}
	k.FromEpoch = uint64(from)
	return k, nil
}

// HistoryKeys returns a group's content keys, oldest epoch first.
func (t *Tx) HistoryKeys(group wire.ID) ([]HistoryKey, error) {
	rows, err := t.query(`SELECT key_id, scope, key, from_epoch FROM history_keys WHERE group_id = ?
		ORDER BY from_epoch, key_id`, group[:])
	if err != nil {
		return nil, fmt.Errorf("store: content keys: %w", err)
	}
	defer rows.Close()
	var out []HistoryKey
	for rows.Next() {
		k := HistoryKey{Group: group}
		var from int64
		if err := rows.Scan(&k.KeyID, &k.Scope, &k.Key, &from); err != nil {
			return nil, fmt.Errorf("store: content keys: %w", err)
		}
		k.FromEpoch = uint64(from)
		out = append(out, k)
	}
	return out, rows.Err()
}

// Document is a stored Automerge document (backend/docs).
type Document struct {
	ID        [32]byte
	Group     wire.ID
	Kind      uint8  // docs.Kind
	Day       uint32 // docs.Day for chat shards
	Saved     []byte
	Pending   []byte     // changes held until their dependencies arrive
	Heads     [][32]byte // heads of Saved
	SentHeads [][32]byte // heads at the last sync point: own changes above them are unsent
}

// PutDocument stores a document, replacing the stored one; SentHeads is
// kept when d.SentHeads is nil.
func (t *Tx) PutDocument(d Document) error {
	if len(d.Saved) == 0 {
		return errors.New("store: a document needs saved bytes")
	}
	sent := any(joinHeads(d.SentHeads))
	if d.SentHeads == nil {
		sent = nil
	}
	_, err := t.exec(`INSERT INTO documents (id, group_id, kind, day, saved, pending, heads, sent_heads)
		VALUES (?, ?, ?, ?, ?, ?, ?, coalesce(?, x''))
		ON CONFLICT (id) DO UPDATE SET saved = excluded.saved, pending = excluded.pending,
			heads = excluded.heads, sent_heads = coalesce(?, sent_heads)`,
		d.ID[:], d.Group[:], int(d.Kind), int64(d.Day), d.Saved, nonNil(d.Pending), joinHeads(d.Heads), sent, sent)
	if err != nil {
		return fmt.Errorf("store: put document: %w", err)
	}
	return nil
}

// SetSentHeads records a document's sync point.
func (t *Tx) SetSentHeads(id [32]byte, heads [][32]byte) error {
	res, err := t.exec(`UPDATE documents SET sent_heads = ? WHERE id = ?`, joinHeads(heads), id[:])
	return oneRow(res, err, ErrNotFound)
}

const docCols = `id, group_id, kind, day, saved, pending, heads, sent_heads`

func scanDocument(sc interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var id, g, heads, sent []byte
	var kind int
	var day int64
	if err := sc.Scan(&id, &g, &kind, &day, &d.Saved, &d.Pending, &heads, &sent); err != nil {
		return d, err
	}
	d.Kind, d.Day = uint8(kind), uint32(day)
	copy(d.ID[:], id)
	if err := scanID(g, &d.Group); err != nil {
		return d, err
	}
	var err error
	if d.Heads, err = splitHeads(heads); err != nil {
		return d, err
	}
	d.SentHeads, err = splitHeads(sent)
	return d, err
}

// Document returns one document, or [ErrNotFound].
func (t *Tx) Document(id [32]byte) (Document, error) {
	d, err := scanDocument(t.row(`SELECT `+docCols+` FROM documents WHERE id = ?`, id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return d, ErrNotFound
	}
	if err != nil {
		return d, fmt.Errorf("store: document: %w", err)
	}
	return d, nil
}

// Documents returns a group's documents by kind, then day.
func (t *Tx) Documents(group wire.ID) ([]Document, error) {
	rows, err := t.query(`SELECT `+docCols+` FROM documents WHERE group_id = ? ORDER BY kind, day`, group[:])
	if err != nil {
		return nil, fmt.Errorf("store: documents: %w", err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("store: documents: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func joinHeads(hs [][32]byte) []byte {
	out := make([]byte, 0, 32*len(hs))
	for _, h := range hs {
		out = append(out, h[:]...)
	}
	return out
}

func splitHeads(b []byte) ([][32]byte, error) {
	if len(b)%32 != 0 {
		return nil, fmt.Errorf("store: stored heads have %d bytes", len(b))
	}
	out := make([][32]byte, len(b)/32)
	for i := range out {
		copy(out[i][:], b[32*i:])
	}
	return out, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
