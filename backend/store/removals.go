package store

// Removals returns every stored removal operation (backend/lifecycle's
// RemovalOperation, encoded by its owner) by operation id.
func (t *Tx) Removals() (map[[32]byte][]byte, error) {
	return t.sealedByID("removals", "removal")
}

// PutRemoval stores removal operation id.
func (t *Tx) PutRemoval(id [32]byte, op []byte) error {
	return t.putSealedByID("removals", id, op)
}
