package retention

import (
	"bytes"
	"fmt"

	"weald/backend/documents"
	"weald/backend/internal/codec"
	"weald/backend/wire"
)

// DocKey names one document of a group's inventory: a chat day shard, and in
// a closed group the content epoch it was written under (the engine keeps
// one shard per day and epoch there; docs/protocol/groups.md).
type DocKey struct {
	Kind  uint8  `json:"kind"` // KindChat
	Day   uint32 `json:"day"`
	Epoch uint64 `json:"epoch"`
}

// KindChat is a chat day shard.
const KindChat uint8 = 1

func (k DocKey) less(o DocKey) bool {
	if k.Kind != o.Kind {
		return k.Kind < o.Kind
	}
	if k.Day != o.Day {
		return k.Day < o.Day
	}
	return k.Epoch < o.Epoch
}

// Entry is one document of the inventory.
type Entry struct {
	Key          DocKey
	Doc          documents.DocID
	SnapshotHash [32]byte
	Heads        []documents.Head // ascending
	Snapshot     wire.EnvelopeRef // the snapshot envelope that carries it
}

// Manifest is the sealed part of a checkpoint (spec/lifecycle.md
// "Checkpoints"): the complete document inventory at the author barrier.
//
//	struct {
//	    uint8 version = 1;
//	    opaque group[32];
//	    uint64 created_at;            // Unix ms, the writer's clock
//	    uint64 changes;               // content envelopes at or below the barrier
//	    Entry documents<V>;           // ascending by (kind, day, epoch), no repeats
//	} Manifest;
//	struct {
//	    uint8 kind; uint32 day; uint64 epoch;
//	    opaque document_id[32];       // documents.ChatID(group, day)
//	    opaque snapshot_hash[32];     // documents.SnapshotHash(document_id, heads, bytes)
//	    opaque heads<V>;              // 32-byte change hashes, ascending, at most 4096
//	    EnvelopeRef snapshot;         // author[32], uint64 ctr, hash[32]
//	} Entry;
type Manifest struct {
	Group     wire.ID
	CreatedAt uint64
	Changes   uint64
	Documents []Entry
}

// Bounds of a manifest.
const (
	maxDocuments = 1 << 16
	maxHeads     = 4096
	version      = 1
)

// Encode returns the canonical encoding.
func (m *Manifest) Encode() []byte {
	var w codec.Writer
	w.U8(version)
	w.Raw(m.Group[:])
	w.U64(m.CreatedAt)
	w.U64(m.Changes)
	w.Vector(func(w *codec.Writer) {
		for _, e := range m.Documents {
			w.U8(e.Key.Kind)
			w.U32(e.Key.Day)
			w.U64(e.Key.Epoch)
			w.Raw(e.Doc[:])
			w.Raw(e.SnapshotHash[:])
			w.Vector(func(w *codec.Writer) {
				for _, h := range e.Heads {
					w.Raw(h[:])
				}
			})
			w.Raw(e.Snapshot.Author[:])
			w.U64(e.Snapshot.Ctr)
			w.Raw(e.Snapshot.Hash[:])
		}
	})
	return w.Bytes()
}

// DecodeManifest parses and checks a manifest: version 1, entries in
// ascending order without repeats, each a chat shard whose document id is
// its group's and day's, heads ascending without repeats. Anything else is
// ErrBadManifest.
func DecodeManifest(b []byte) (Manifest, error) {
	r := codec.NewReader(b)
	var m Manifest
	v := r.U8()
	m.Group = r.Array32()
	m.CreatedAt = r.U64()
	m.Changes = r.U64()
	r.VectorMax(maxDocuments, func(r *codec.Reader) {
		var e Entry
		e.Key.Kind = r.U8()
		e.Key.Day = r.U32()
		e.Key.Epoch = r.U64()
		e.Doc = r.Array32()
		e.SnapshotHash = r.Array32()
		hb := r.OpaqueMax(maxHeads * 32)
		if len(hb)%32 != 0 {
			r.Fail(fmt.Errorf("heads are not whole 32-byte hashes"))
		}
		for i := 0; i+32 <= len(hb); i += 32 {
			e.Heads = append(e.Heads, documents.Head(hb[i:i+32]))
		}
		e.Snapshot.Author = r.Array32()
		e.Snapshot.Ctr = r.U64()
		e.Snapshot.Hash = r.Array32()
		m.Documents = append(m.Documents, e)
	})
	if err := r.Done(); err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrBadManifest, err)
	}
	if v != version {
		return Manifest{}, fmt.Errorf("%w: version %d", ErrBadManifest, v)
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

func (m *Manifest) check() error {
	for i, e := range m.Documents {
		if e.Key.Kind != KindChat {
			return fmt.Errorf("%w: document kind %d", ErrBadManifest, e.Key.Kind)
		}
		if e.Doc != documents.ChatID(m.Group, documents.Day(e.Key.Day)) {
			return fmt.Errorf("%w: document %d is not its day's shard of this group", ErrBadManifest, i)
		}
		if i > 0 && !m.Documents[i-1].Key.less(e.Key) {
			return fmt.Errorf("%w: documents out of order or repeated", ErrBadManifest)
		}
		if len(e.Heads) == 0 {
			return fmt.Errorf("%w: document %d has no heads", ErrBadManifest, i)
		}
		for j := 1; j < len(e.Heads); j++ {
			if bytes.Compare(e.Heads[j-1][:], e.Heads[j][:]) >= 0 {
				return fmt.Errorf("%w: heads out of order or repeated", ErrBadManifest)
			}
		}
	}
	return nil
}

// Refs returns the snapshot envelopes the manifest references, in order:
// the checkpoint's snapshots list.
func (m *Manifest) Refs() []wire.EnvelopeRef {
	out := make([]wire.EnvelopeRef, len(m.Documents))
	for i, e := range m.Documents {
		out[i] = e.Snapshot
	}
	return out
}
