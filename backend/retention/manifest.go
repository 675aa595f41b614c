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

// Document kinds of an inventory.
const (
	// KindChat is a chat day shard.
	KindChat uint8 = 1
	// KindIndex is the group's index document, which lists its chat
	// shards (documents.Index; the manifest's index_snapshot_hash).
	KindIndex uint8 = 2
)

// IndexKey is the inventory key of the index document.
var IndexKey = DocKey{Kind: KindIndex}

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
//	    uint8 version = 2;            // 1: written before the index, without index_snapshot_hash; 3: omits expired days
//	    opaque group[32];
//	    uint64 created_at;            // Unix ms, the writer's clock
//	    uint64 changes;               // content envelopes at or below the barrier
//	    opaque index_snapshot_hash[32]; // versions 2 and 3: the snapshot hash of the one index entry
//	    uint8 flags;                  // version 3 only: 1 = omits_expired
//	    Entry documents<V>;           // ascending by (kind, day, epoch), no repeats
//	} Manifest;
//	struct {
//	    uint8 kind; uint32 day; uint64 epoch; // kind 1 chat shard; kind 2 the index (day and epoch 0)
//	    opaque document_id[32];       // documents.ChatID(group, day), or documents.IndexID(group)
//	    opaque snapshot_hash[32];     // documents.SnapshotHash(document_id, heads, bytes)
//	    opaque heads<V>;              // 32-byte change hashes, ascending, at most 4096
//	    EnvelopeRef snapshot;         // author[32], uint64 ctr, hash[32]
//	} Entry;
type Manifest struct {
	Group     wire.ID
	CreatedAt uint64
	Changes   uint64
	// OmitsExpired: the writer left out every chat shard whose whole day
	// ended a text window before CreatedAt (Expired), under the group's
	// finite text window (docs/protocol/retention.md "What a text window
	// removes"). Encoded as version 3; a complete manifest stays version 2.
	OmitsExpired bool
	Documents    []Entry
}

// Bounds of a manifest.
const (
	maxDocuments   = 1 << 16
	maxHeads       = 4096
	versionNoIndex = 1
	version        = 2
	versionPartial = 3
	flagExpired    = 1
)

// ChatDays lists the days of the manifest's chat shards.
func (m *Manifest) ChatDays() []uint32 {
	var out []uint32
	for _, e := range m.Documents {
		if e.Key.Kind == KindChat {
			out = append(out, e.Key.Day)
		}
	}
	return out
}

// Index returns the index entry, if the manifest has one (every manifest
// written since version 2).
func (m *Manifest) Index() (Entry, bool) {
	for _, e := range m.Documents {
		if e.Key.Kind == KindIndex {
			return e, true
		}
	}
	return Entry{}, false
}

// Encode returns the canonical encoding: version 2 with the index entry's
// hash as index_snapshot_hash, or version 1 for a manifest without one.
func (m *Manifest) Encode() []byte {
	var w codec.Writer
	ix, ok := m.Index()
	switch {
	case ok && m.OmitsExpired:
		w.U8(versionPartial)
	case ok:
		w.U8(version)
	default:
		w.U8(versionNoIndex)
	}
	w.Raw(m.Group[:])
	w.U64(m.CreatedAt)
	w.U64(m.Changes)
	if ok {
		w.Raw(ix.SnapshotHash[:])
	}
	if ok && m.OmitsExpired {
		w.U8(flagExpired)
	}
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

// DecodeManifest parses and checks a manifest: version 1, 2 or 3, entries in
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
	var indexHash [32]byte
	if v == version || v == versionPartial {
		indexHash = r.Array32()
	}
	if v == versionPartial {
		if f := r.U8(); f != flagExpired {
			r.Fail(fmt.Errorf("flags %d", f))
		}
		m.OmitsExpired = true
	}
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
	if v != version && v != versionNoIndex && v != versionPartial {
		return Manifest{}, fmt.Errorf("%w: version %d", ErrBadManifest, v)
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	ix, ok := m.Index()
	switch {
	case v == versionNoIndex && ok:
		return Manifest{}, fmt.Errorf("%w: a version 1 manifest lists an index", ErrBadManifest)
	case v != versionNoIndex && (!ok || ix.SnapshotHash != indexHash):
		return Manifest{}, fmt.Errorf("%w: index_snapshot_hash is not the index entry's", ErrBadManifest)
	}
	return m, nil
}

func (m *Manifest) check() error {
	for i, e := range m.Documents {
		switch e.Key.Kind {
		case KindChat:
			if e.Doc != documents.ChatID(m.Group, documents.Day(e.Key.Day)) {
				return fmt.Errorf("%w: document %d is not its day's shard of this group", ErrBadManifest, i)
			}
		case KindIndex:
			if e.Key != IndexKey || e.Doc != documents.IndexID(m.Group) {
				return fmt.Errorf("%w: document %d is not this group's index", ErrBadManifest, i)
			}
		default:
			return fmt.Errorf("%w: document kind %d", ErrBadManifest, e.Key.Kind)
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
