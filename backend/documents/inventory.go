package documents

import (
	"fmt"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// InventoryEntry is one document of a checkpoint's inventory
// (spec/lifecycle.md "Checkpoints": documents: [{document_id,
// snapshot_hash, automerge_heads}]).
type InventoryEntry struct {
	Doc          DocID
	SnapshotHash [32]byte
	Heads        []Head // ascending
}

// ErrBadInventory: a checkpoint's document list is not the inventory its
// index snapshot discovers.
var ErrBadInventory = errcode.New("docs/bad_inventory", "the checkpoint's document list does not match its channel index")

// Entry returns the inventory entry of a snapshot.
func (s Snapshot) Entry() InventoryEntry {
	return InventoryEntry{Doc: s.Doc, SnapshotHash: s.Hash, Heads: s.Heads}
}

// Checkpoint snapshots the channel as it is now: the index and every chat
// shard it lists. The first element is the index snapshot (its hash is the
// checkpoint's index_snapshot_hash); the inventory is the entries of all.
func (c *Channel) Checkpoint() ([]Snapshot, error) {
	is, err := c.index.Snapshot()
	if err != nil {
		return nil, err
	}
	out := []Snapshot{is}
	for _, day := range c.index.Shards() {
		s, err := c.Shard(day)
		if err != nil {
			return nil, err
		}
		ss, err := s.Snapshot()
		if err != nil {
			return nil, err
		}
		out = append(out, ss)
	}
	return out, nil
}

// VerifyInventory checks a checkpoint's inventory against its index
// snapshot: the index snapshot is valid and is group's index, and entries
// hold exactly one entry for the index (with the index snapshot's hash and
// heads) and one for every chat shard that index lists: nothing omitted,
// nothing extra, nothing twice. The snapshots of the shards are verified
// with [VerifySnapshot] against their entries when fetched.
func VerifyInventory(group wire.ID, index Snapshot, entries []InventoryEntry) error {
	if index.Doc != IndexID(group) {
		return fmt.Errorf("%w: the index snapshot is not this group's index", ErrBadInventory)
	}
	if err := VerifySnapshot(index); err != nil {
		return err
	}
	x, err := LoadIndex(group, index.Bytes, nil, Options{Clock: zeroClock})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadInventory, err)
	}
	want := map[DocID]bool{index.Doc: true}
	for _, day := range x.Shards() {
		want[ChatID(group, day)] = true
	}
	seen := map[DocID]bool{}
	for _, e := range entries {
		switch {
		case seen[e.Doc]:
			return fmt.Errorf("%w: document %s listed twice", ErrBadInventory, e.Doc.Short())
		case !want[e.Doc]:
			return fmt.Errorf("%w: document %s is not in the index", ErrBadInventory, e.Doc.Short())
		case e.Doc == index.Doc && (e.SnapshotHash != index.Hash || !equalHeads(e.Heads, index.Heads)):
			return fmt.Errorf("%w: the index entry does not match the index snapshot", ErrBadInventory)
		}
		seen[e.Doc] = true
	}
	for d := range want {
		if !seen[d] {
			return fmt.Errorf("%w: document %s is omitted", ErrBadInventory, d.Short())
		}
	}
	return nil
}

// VerifyEntry checks a fetched snapshot against its inventory entry.
func VerifyEntry(e InventoryEntry, s Snapshot) error {
	_, err := OpenEntry(e, s)
	return err
}

// OpenEntry is [VerifyEntry] keeping what it loaded ([OpenSnapshot]).
func OpenEntry(e InventoryEntry, s Snapshot) (Opened, error) {
	if s.Doc != e.Doc || s.Hash != e.SnapshotHash || !equalHeads(s.Heads, e.Heads) {
		return Opened{}, fmt.Errorf("%w: the snapshot is not the one the inventory names", ErrBadSnapshot)
	}
	return OpenSnapshot(s)
}
