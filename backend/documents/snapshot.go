package documents

import (
	"crypto/sha256"
	"errors"
	"fmt"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/errcode"
	"weald/backend/internal/codec"
)

// Snapshot is a whole document at named heads, the unit a checkpoint lists
// (spec/lifecycle.md "Checkpoints": documents: [{document_id,
// snapshot_hash, automerge_heads}]).
type Snapshot struct {
	Doc   DocID
	Heads []Head // ascending
	Bytes []byte // Automerge document encoding
	Hash  [32]byte
}

// ErrBadSnapshot: snapshot bytes do not match their hash or heads.
var ErrBadSnapshot = errcode.New("docs/bad_snapshot", "the snapshot does not match its hash or heads")

// SnapshotHash binds a snapshot to its document and heads:
//
//	SHA-256(struct {
//	    opaque label<V> = "weald 1 snapshot";
//	    opaque document_id[32];
//	    opaque heads<V>;     // the 32-byte heads, ascending, concatenated
//	    opaque snapshot<V>;  // the Automerge document bytes
//	})
func SnapshotHash(doc DocID, heads []Head, b []byte) [32]byte {
	var w codec.Writer
	w.String("weald 1 snapshot")
	w.Raw(doc[:])
	w.Vector(func(w *codec.Writer) {
		for _, h := range heads {
			w.Raw(h[:])
		}
	})
	w.Opaque(b)
	return sha256.Sum256(w.Bytes())
}

// Snapshot returns the document as it is now (held changes excluded),
// through [Document.Save], so the bytes are proven to load.
func (d *Document) Snapshot() (Snapshot, error) {
	b, err := d.Save()
	if err != nil {
		return Snapshot{}, err
	}
	heads := d.Heads()
	return Snapshot{Doc: d.id, Heads: heads, Bytes: b, Hash: SnapshotHash(d.id, heads, b)}, nil
}

// SnapshotAt returns the document as it was at heads: exactly the changes
// that are ancestors of heads (or heads themselves), which is how a
// checkpoint writer captures the document at its author barriers.
func (d *Document) SnapshotAt(heads []Head) (Snapshot, error) {
	hs := make([]automerge.ChangeHash, len(heads))
	for i, h := range heads {
		if !d.Has(h) {
			return Snapshot{}, fmt.Errorf("%w: %s", ErrUnknownHeads, h)
		}
		hs[i] = automerge.ChangeHash(h)
	}
	var b []byte
	if len(hs) == 0 {
		b = automerge.New().Save()
	} else {
		f, err := d.doc.Fork(hs...)
		if err != nil {
			return Snapshot{}, fmt.Errorf("docs: snapshot at heads: %w", err)
		}
		b = f.Save()
	}
	sorted := sortHeads(append([]Head(nil), heads...))
	if !loadsTo(b, sorted) {
		return Snapshot{}, fmt.Errorf("%w: the document at these heads does not load", ErrBadSnapshot)
	}
	return Snapshot{Doc: d.id, Heads: sorted, Bytes: b, Hash: SnapshotHash(d.id, sorted, b)}, nil
}

// Opened is a snapshot whose hash and heads are verified, loaded once so
// that reading it does not load it again.
type Opened struct {
	Snapshot
	am *automerge.Doc
}

// OpenSnapshot checks that s.Hash is the hash of its document id, heads
// and bytes, and that the bytes load to a document whose heads are exactly
// s.Heads ("the writer proves locally that each listed snapshot applies to
// the named heads"; receivers check the same), and keeps what it loaded.
func OpenSnapshot(s Snapshot) (Opened, error) {
	if SnapshotHash(s.Doc, s.Heads, s.Bytes) != s.Hash {
		return Opened{}, fmt.Errorf("%w: hash", ErrBadSnapshot)
	}
	am, err := automerge.Load(s.Bytes)
	if err != nil {
		return Opened{}, fmt.Errorf("%w: %v", ErrBadSnapshot, err)
	}
	got := make([]Head, 0, len(s.Heads))
	for _, h := range am.Heads() {
		got = append(got, Head(h))
	}
	if !equalHeads(sortHeads(got), s.Heads) {
		return Opened{}, fmt.Errorf("%w: heads", ErrBadSnapshot)
	}
	return Opened{Snapshot: s, am: am}, nil
}

// VerifySnapshot is [OpenSnapshot] for a caller that only judges.
func VerifySnapshot(s Snapshot) error {
	_, err := OpenSnapshot(s)
	return err
}

// LoadSnapshot verifies s and opens it as a document.
func LoadSnapshot(s Snapshot, o Options) (*Document, error) {
	if err := VerifySnapshot(s); err != nil {
		return nil, err
	}
	return LoadDocument(s.Doc, s.Bytes, nil, o)
}

// MergeSnapshot verifies s and adds the changes d lacks ([Document.Merge]).
func (d *Document) MergeSnapshot(s Snapshot) error {
	o, err := OpenSnapshot(s)
	if err != nil {
		return err
	}
	return d.Merge(o)
}

// Merge adds the changes of a verified snapshot that d lacks (a reader
// whose log was compacted below a checkpoint reads what went from the
// snapshot; spec/lifecycle.md "Interaction with open history"), from the
// document OpenSnapshot already loaded. The next Save proves the result
// loads. An empty d takes that document itself, so o must not be merged
// again anywhere else; its saved form is then the snapshot's bytes, which
// OpenSnapshot proved load to exactly its heads, so Save returns them
// until the document changes (no Automerge save, no proving load).
func (d *Document) Merge(o Opened) error {
	if o.Doc != d.id {
		return fmt.Errorf("%w: the snapshot is another document's", ErrBadSnapshot)
	}
	if o.am == nil {
		return fmt.Errorf("%w: not opened", ErrBadSnapshot)
	}
	if len(d.doc.Heads()) == 0 && len(d.pending) == 0 {
		// An empty document (a joiner's shard) takes the loaded one as it
		// is: merging would apply every change of it again. o is consumed.
		d.doc = o.am
		if !d.author.IsZero() {
			if err := d.setActor(d.opts.Rand); err != nil {
				return err
			}
		}
		d.proven, d.unproven = o.Heads, false
		d.saved, d.savedHeads = o.Bytes, o.Heads
	} else if _, err := d.doc.Merge(o.am); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSnapshot, err)
	} else {
		d.unproven = true
		if err := d.release(); err != nil {
			return err
		}
	}
	d.dropIndex() // rebuilt from the changes when next needed
	return nil
}

// release applies, after a merge, the held changes whose dependencies the
// snapshot brought (a change sent after a checkpoint's writer read the log
// depends on changes only the snapshot holds for a reader across the drop)
// and forgets those the snapshot itself held. A held change Automerge then
// refuses stays held, as it was before the merge.
func (d *Document) release() error {
	for h := range d.pending {
		if d.applied(h) {
			delete(d.pending, h)
		}
	}
	if len(d.pending) == 0 {
		return nil
	}
	if _, err := d.applyRaw(nil); errors.Is(err, ErrBroken) {
		return err
	}
	return nil
}
