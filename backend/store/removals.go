package store

import "fmt"

// Removals returns every stored removal operation (backend/lifecycle's
// RemovalOperation, encoded by its owner) by operation id.
func (t *Tx) Removals() (map[[32]byte][]byte, error) {
	rows, err := t.query(`SELECT id, sealed FROM removals`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[32]byte][]byte{}
	for rows.Next() {
		var id, sealed []byte
		if err := rows.Scan(&id, &sealed); err != nil {
			return nil, err
		}
		if len(id) != 32 {
			return nil, fmt.Errorf("%w (removal id of %d bytes)", ErrUnreadable, len(id))
		}
		v, err := t.open("removals", id, sealed)
		if err != nil {
			return nil, err
		}
		out[[32]byte(id)] = v
	}
	return out, rows.Err()
}

// PutRemoval stores removal operation id.
func (t *Tx) PutRemoval(id [32]byte, op []byte) error {
	sealed, err := t.seal("removals", id[:], op)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO removals (id, sealed) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET sealed = excluded.sealed`, id[:], sealed)
	return err
}
