package store

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"

	"weald/backend/wire"
)

// Workspace is the workspace this database belongs to and who this client
// is in it.
type Workspace struct {
	ID            wire.ID
	Name          string
	RelayURL      string
	UserID        wire.ID // zero when not known (an agent without a user)
	SelfKind      string  // "device" or "agent": the principal that signs this client's envelopes
	SelfID        wire.ID // its id (device_id or agent id)
	RecoveryID    wire.ID // the user's recovery principal; zero when not known
	BootstrapStep int     // the last bootstrap step completed (issue 5 "Bootstrap")
	Ready         bool    // set only once bootstrap (or join) has finished
}

// ErrWrongWorkspace: a database belongs to exactly one workspace.
var ErrWrongWorkspace = errors.New("store/wrong_workspace: this database belongs to another workspace")

// PutWorkspace records the workspace row, or updates it. The workspace id of
// a database never changes. The bootstrap step never goes backwards.
func (t *Tx) PutWorkspace(w Workspace) error {
	if w.SelfKind != "device" && w.SelfKind != "agent" {
		return fmt.Errorf("store: self kind %q is neither device nor agent", w.SelfKind)
	}
	old, err := t.Workspace()
	switch {
	case errors.Is(err, ErrNoWorkspace):
	case err != nil:
		return err
	case old.ID != w.ID:
		return ErrWrongWorkspace
	default:
		w.BootstrapStep = max(w.BootstrapStep, old.BootstrapStep)
	}
	_, err = t.exec(`INSERT INTO workspace (singleton, id, name, relay_url, user_id, self_kind, self_id, recovery_id, bootstrap_step, ready)
		VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (singleton) DO UPDATE SET name = excluded.name, relay_url = excluded.relay_url,
			user_id = excluded.user_id, self_kind = excluded.self_kind, self_id = excluded.self_id,
			recovery_id = excluded.recovery_id, bootstrap_step = excluded.bootstrap_step, ready = excluded.ready`,
		w.ID[:], w.Name, w.RelayURL, idOrNil(w.UserID), w.SelfKind, w.SelfID[:], idOrNil(w.RecoveryID),
		w.BootstrapStep, b2i(w.Ready))
	if err != nil {
		return fmt.Errorf("store: put workspace: %w", err)
	}
	return nil
}

// Workspace returns the workspace row, or [ErrNoWorkspace].
func (t *Tx) Workspace() (Workspace, error) {
	var w Workspace
	var id, user, self, rec []byte
	var ready int
	err := t.row(`SELECT id, name, relay_url, user_id, self_kind, self_id, recovery_id, bootstrap_step, ready
		FROM workspace WHERE singleton = 1`).Scan(&id, &w.Name, &w.RelayURL, &user, &w.SelfKind, &self, &rec, &w.BootstrapStep, &ready)
	if errors.Is(err, sql.ErrNoRows) {
		return w, ErrNoWorkspace
	}
	if err != nil {
		return w, fmt.Errorf("store: workspace: %w", err)
	}
	w.Ready = ready == 1
	if err := scanID(id, &w.ID); err != nil {
		return w, err
	}
	if err := scanID(self, &w.SelfID); err != nil {
		return w, err
	}
	if user != nil {
		if err := scanID(user, &w.UserID); err != nil {
			return w, err
		}
	}
	if rec != nil {
		if err := scanID(rec, &w.RecoveryID); err != nil {
			return w, err
		}
	}
	return w, nil
}

// SetBootstrapStep records that step has completed. It never lowers the
// recorded step, so a retried earlier step cannot undo a later one.
func (t *Tx) SetBootstrapStep(step int) error {
	res, err := t.exec(`UPDATE workspace SET bootstrap_step = max(bootstrap_step, ?) WHERE singleton = 1`, step)
	return oneRow(res, err, ErrNoWorkspace)
}

// SetReady sets the ready flag.
func (t *Tx) SetReady(ready bool) error {
	res, err := t.exec(`UPDATE workspace SET ready = ? WHERE singleton = 1`, b2i(ready))
	return oneRow(res, err, ErrNoWorkspace)
}

func oneRow(res sql.Result, err error, none error) error {
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: %w", err)
	} else if n == 0 {
		return none
	}
	return nil
}

// Key is sealed private key material.
type Key struct {
	Kind   string // e.g. "device-signature", "hpke-init", "recovery"
	ID     []byte // the key's id within its kind (a key id, a key-package ref)
	Sealed []byte
}

// PutKey stores sealed key material, replacing any with the same kind and
// id. The store does not encrypt: Sealed is written as given (see
// docs/protocol/store.md "Keys at rest").
func (t *Tx) PutKey(k Key) error {
	if k.Kind == "" || len(k.ID) == 0 || len(k.Sealed) == 0 {
		return errors.New("store: a key needs a kind, an id and sealed bytes")
	}
	_, err := t.exec(`INSERT INTO keys (kind, key_id, sealed) VALUES (?, ?, ?)
		ON CONFLICT (kind, key_id) DO UPDATE SET sealed = excluded.sealed`, k.Kind, k.ID, k.Sealed)
	if err != nil {
		return fmt.Errorf("store: put key: %w", err)
	}
	return nil
}

// Key returns one key, or [ErrNotFound].
func (t *Tx) Key(kind string, id []byte) (Key, error) {
	k := Key{Kind: kind, ID: id}
	err := t.row(`SELECT sealed FROM keys WHERE kind = ? AND key_id = ?`, kind, id).Scan(&k.Sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return k, ErrNotFound
	}
	if err != nil {
		return k, fmt.Errorf("store: key: %w", err)
	}
	return k, nil
}

// Keys returns every key of kind, ordered by id.
func (t *Tx) Keys(kind string) ([]Key, error) {
	rows, err := t.query(`SELECT key_id, sealed FROM keys WHERE kind = ? ORDER BY key_id`, kind)
	if err != nil {
		return nil, fmt.Errorf("store: keys: %w", err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		k := Key{Kind: kind}
		if err := rows.Scan(&k.ID, &k.Sealed); err != nil {
			return nil, fmt.Errorf("store: keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// DeleteKey removes a key (a used one-time key package, say); deleting a
// key that is not there is not an error.
func (t *Tx) DeleteKey(kind string, id []byte) error {
	_, err := t.exec(`DELETE FROM keys WHERE kind = ? AND key_id = ?`, kind, id)
	if err != nil {
		return fmt.Errorf("store: delete key: %w", err)
	}
	return nil
}

// RosterOp is one stored roster operation.
type RosterOp struct {
	Index uint64
	Bytes []byte
	Hash  wire.ID // SHA-256(Bytes)
}

// AppendRosterOps appends validated roster operations after the stored ones
// and returns the new head (conventions.md: head = SHA-256 of the last
// operation's bytes). Validation is the roster package's; the store keeps
// the chain contiguous.
func (t *Tx) AppendRosterOps(ops ...[]byte) (wire.ID, error) {
	n, head, err := t.RosterHead()
	if err != nil {
		return head, err
	}
	for _, op := range ops {
		if len(op) == 0 {
			return head, errors.New("store: empty roster operation")
		}
		head = sha256.Sum256(op)
		if _, err := t.exec(`INSERT INTO roster_ops (idx, bytes, hash) VALUES (?, ?, ?)`, n, op, head[:]); err != nil {
			return head, fmt.Errorf("store: append roster operation %d: %w", n, err)
		}
		n++
	}
	return head, nil
}

// RosterHead returns the number of stored operations and the head (32 zero
// bytes for an empty roster).
func (t *Tx) RosterHead() (uint64, wire.ID, error) {
	var head wire.ID
	var n uint64
	var h []byte
	err := t.row(`SELECT idx + 1, hash FROM roster_ops ORDER BY idx DESC LIMIT 1`).Scan(&n, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, head, nil
	}
	if err != nil {
		return 0, head, fmt.Errorf("store: roster head: %w", err)
	}
	return n, head, scanID(h, &head)
}

// RosterOps returns the operations from index from on, in order.
func (t *Tx) RosterOps(from uint64) ([]RosterOp, error) {
	rows, err := t.query(`SELECT idx, bytes, hash FROM roster_ops WHERE idx >= ? ORDER BY idx`, from)
	if err != nil {
		return nil, fmt.Errorf("store: roster: %w", err)
	}
	defer rows.Close()
	var out []RosterOp
	for rows.Next() {
		var op RosterOp
		var h []byte
		if err := rows.Scan(&op.Index, &op.Bytes, &h); err != nil {
			return nil, fmt.Errorf("store: roster: %w", err)
		}
		if err := scanID(h, &op.Hash); err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, rows.Err()
}
