package retention

import (
	"crypto/ed25519"
	"fmt"
	"sort"
	"time"

	"weald/backend/documents"
	"weald/backend/wire"
)

// MaxSnapshotBytes is the largest snapshot one envelope carries (the
// envelope's ct limit less room for the seal).
const MaxSnapshotBytes = wire.MaxCTSize - 1024

// Source is one document a writer captures: the document as the writer
// holds it and the set of its changes carried by the content envelopes at
// or below the author barrier (documents.ChangeHashes of each, plus, beneath a
// drop, the changes the trusted checkpoint's snapshot stands for).
type Source struct {
	Key DocKey
	Doc *documents.Document
	Set []documents.Head
}

// Snapshots captures each source exactly at the barrier: its heads are the
// frontier of its set (docs/not_closed if the set misses an ancestor) and
// its snapshot is the document at those heads, proven to load to exactly
// them before anything is signed ("the writer proves locally that each
// listed snapshot applies to the named heads"). The result is in inventory
// order.
func Snapshots(srcs []Source) ([]DocKey, []documents.Snapshot, error) {
	srcs = append([]Source(nil), srcs...)
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key.less(srcs[j].Key) })
	keys := make([]DocKey, len(srcs))
	for i, s := range srcs {
		if i > 0 && !srcs[i-1].Key.less(s.Key) {
			return nil, nil, fmt.Errorf("%w: document listed twice", ErrBadManifest)
		}
		keys[i] = s.Key
	}
	out := make([]documents.Snapshot, len(srcs))
	err := documents.Each(len(srcs), func(i int) error {
		s := srcs[i]
		heads, err := s.Doc.Frontier(s.Set)
		if err != nil {
			return err
		}
		// Both ways prove the bytes load to exactly heads: Snapshot
		// through the document's proven save (the common case: the
		// barrier is everything the writer holds), SnapshotAt by loading
		// the fork it saved.
		var snap documents.Snapshot
		if sameHeads(heads, s.Doc.Heads()) {
			snap, err = s.Doc.Snapshot()
		} else {
			snap, err = s.Doc.SnapshotAt(heads)
		}
		if err != nil {
			return err
		}
		if len(snap.Bytes) > MaxSnapshotBytes {
			return fmt.Errorf("%w: %d bytes", ErrTooLarge, len(snap.Bytes))
		}
		out[i] = snap
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return keys, out, nil
}

// Entries pairs the snapshots with the envelopes that carried them.
func Entries(keys []DocKey, snaps []documents.Snapshot, refs []wire.EnvelopeRef) []Entry {
	out := make([]Entry, len(snaps))
	for i, s := range snaps {
		out[i] = Entry{Key: keys[i], Doc: s.Doc, SnapshotHash: s.Hash, Heads: s.Heads, Snapshot: refs[i]}
	}
	return out
}

// Sign builds the relay-visible checkpoint: the barrier, the snapshot list,
// the sealed manifest and the manifest hash, signed by the group's current
// retention key.
func Sign(group wire.ID, barrier, snapshots []wire.EnvelopeRef, sealed []byte, key ed25519.PrivateKey) wire.Checkpoint {
	cp := wire.Checkpoint{Group: group, Barrier: barrier, Snapshots: snapshots, Manifest: sealed}
	cp.Sign(key)
	return cp
}

// Check is what a receiver holds to judge a checkpoint.
type Check struct {
	// Chain is the group's chain as of the checkpoint's place in the log.
	Chain *Chain
	// Manifest is the opened manifest.
	Manifest *Manifest
	// Snapshots are the opened snapshot bytes, by the envelope that carried
	// them (a missing one is refused).
	Snapshots map[wire.EnvelopeRef][]byte
	// Sets, when the receiver holds the envelopes at or below the barrier,
	// is each document's change set there; nil beneath a drop, where the
	// receiver verifies the signature rather than replaying ("Clients verify
	// chain continuity above the newest checkpoint they trust, and verify
	// the checkpoint's signature rather than replaying beneath it").
	Sets map[DocKey][]documents.Head
	// Frontier returns the heads of a document's change set (the
	// receiver's own copy of the document).
	Frontier func(DocKey, []documents.Head) ([]documents.Head, error)
	// Sealed are snapshot envelopes present in the log that this receiver
	// holds no key for (a closed group's shard of an epoch before it
	// joined). When it cannot replay (Sets nil) their entries are skipped:
	// covered by the signed manifest, but neither checked nor read here.
	Sealed map[wire.EnvelopeRef]bool
	// Window is the text window of the group's active policy if it was
	// active at the manifest's created_at (0: no policy, an unlimited
	// window, or a policy that became active later). A manifest that omits
	// expired days is refused without one (ErrExpiry).
	Window time.Duration
	// Now is the receiver's clock: created_at counts at most up to it.
	Now time.Time
}

// Expired reports whether the whole of day ended a text window (in whole
// days, rounded up as the relay's is) before at: a shard a checkpoint
// written at at may leave out under that window.
func Expired(day uint32, at time.Time, window time.Duration) bool {
	if window <= 0 {
		return false
	}
	end := time.Unix((int64(day)+1)*86400, 0)
	return !end.After(at.Add(-time.Duration(WindowDays(window)) * Day))
}

// At is the manifest's created_at, capped at now (when set).
func (m *Manifest) At(now time.Time) time.Time {
	at := time.UnixMilli(int64(m.CreatedAt))
	if !now.IsZero() && at.After(now) {
		return now
	}
	return at
}

// Verify judges a received checkpoint (spec/lifecycle.md "Checkpoints":
// "Receivers verify the signature, the index inventory, every referenced
// snapshot hash and head, and reject a checkpoint that omits a known
// document or has a snapshot above/below its claimed barrier"; under a
// finite text window a manifest marked OmitsExpired may leave out the
// chat shards of days that expired by its created_at). It returns
// the snapshots, in inventory order and loaded once, for a reader that
// needs them (a zero one for a skipped sealed entry).
func Verify(cp *wire.Checkpoint, c Check) ([]documents.Opened, error) {
	if err := cp.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadCheckpoint, err)
	}
	if c.Chain == nil || !c.Chain.IsTip(cp.RetentionKey) {
		return nil, ErrNotInChain
	}
	m := c.Manifest
	if m.Group != cp.Group {
		return nil, fmt.Errorf("%w: the manifest names another group", ErrBadCheckpoint)
	}
	if !sameRefs(m.Refs(), cp.Snapshots) {
		return nil, fmt.Errorf("%w: the manifest and the checkpoint list different snapshots", ErrBadCheckpoint)
	}
	if _, ok := m.Index(); !ok {
		return nil, fmt.Errorf("%w: the manifest lists no index snapshot", ErrBadCheckpoint)
	}
	if m.OmitsExpired && c.Window <= 0 {
		return nil, ErrExpiry
	}
	listed := map[DocKey]bool{}
	for _, e := range m.Documents {
		listed[e.Key] = true
	}
	if c.Sets != nil {
		for k := range c.Sets {
			if !listed[k] && !(m.OmitsExpired && k.Kind == KindChat && Expired(k.Day, m.At(c.Now), c.Window)) {
				return nil, fmt.Errorf("%w: day %s (epoch %d)", ErrOmitted, documents.Day(k.Day), k.Epoch)
			}
		}
	}
	snaps := make([]documents.Snapshot, len(m.Documents))
	skip := make([]bool, len(m.Documents))
	for i, e := range m.Documents {
		b, ok := c.Snapshots[e.Snapshot]
		if !ok && c.Sets == nil && c.Sealed[e.Snapshot] {
			skip[i] = true
			continue
		}
		if !ok {
			return nil, fmt.Errorf("%w: snapshot of day %s is missing", ErrBadCheckpoint, documents.Day(e.Key.Day))
		}
		snaps[i] = documents.Snapshot{Doc: e.Doc, Heads: e.Heads, Bytes: b, Hash: e.SnapshotHash}
		if c.Sets != nil && e.Key.Kind == KindChat {
			set, ok := c.Sets[e.Key]
			if !ok {
				return nil, fmt.Errorf("%w: day %s has no change at or below the barrier", ErrBarrier, documents.Day(e.Key.Day))
			}
			want, err := c.Frontier(e.Key, set)
			if err != nil {
				return nil, fmt.Errorf("%w: day %s: %v", ErrBarrier, documents.Day(e.Key.Day), err)
			}
			if !sameHeads(want, e.Heads) {
				return nil, fmt.Errorf("%w: day %s", ErrBarrier, documents.Day(e.Key.Day))
			}
		}
	}
	// Loading every snapshot to its heads is the costly part: in parallel,
	// touching only the snapshot bytes.
	out := make([]documents.Opened, len(snaps))
	err := documents.Each(len(snaps), func(i int) error {
		if skip[i] {
			return nil // left zero: no heads, nothing to read
		}
		e := m.Documents[i]
		o, err := documents.OpenEntry(documents.InventoryEntry{Doc: e.Doc, SnapshotHash: e.SnapshotHash, Heads: e.Heads}, snaps[i])
		if err != nil {
			return fmt.Errorf("%w: day %s: %v", ErrBadCheckpoint, documents.Day(e.Key.Day), err)
		}
		out[i] = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, e := range m.Documents {
		if e.Key.Kind == KindIndex && !skip[i] {
			if err := checkIndex(m, snaps[i].Bytes); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// checkIndex checks that the index snapshot lists exactly the days of the
// manifest's chat shards ("Receivers verify ... the index inventory").
func checkIndex(m *Manifest, b []byte) error {
	x, err := documents.LoadIndex(m.Group, b, nil, documents.Options{Clock: func() time.Time { return time.Time{} }})
	if err != nil {
		return fmt.Errorf("%w: the index: %v", ErrBadCheckpoint, err)
	}
	days := map[uint32]bool{}
	for _, e := range m.Documents {
		if e.Key.Kind == KindChat {
			days[e.Key.Day] = true
		}
	}
	listed := x.Shards()
	for _, d := range listed {
		if !days[uint32(d)] {
			return fmt.Errorf("%w: the index lists day %s, which the inventory has no shard of", ErrOmitted, d)
		}
	}
	if len(listed) != len(days) {
		return fmt.Errorf("%w: the inventory has shards the index does not list", ErrBadCheckpoint)
	}
	return nil
}

// IndexSource is the index document of a checkpoint over chat shards of
// days: a fresh index naming the group and listing each day (written by
// author o.Author; with no day it still has the group's change, so heads),
// whose snapshot the manifest carries as its index entry.
func IndexSource(group wire.ID, days []documents.Day, o documents.Options) (Source, error) {
	x, err := documents.NewIndex(group, o)
	if err != nil {
		return Source{}, err
	}
	if _, err := x.NameGroup(); err != nil {
		return Source{}, err
	}
	for _, d := range days {
		if _, err := x.AddShard(d); err != nil {
			return Source{}, err
		}
	}
	set, err := x.Ancestors(x.Heads())
	if err != nil {
		return Source{}, err
	}
	return Source{Key: IndexKey, Doc: x.Document, Set: set}, nil
}

func sameHeads(a, b []documents.Head) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameRefs reports whether a and b hold the same references, in any order.
func sameRefs(a, b []wire.EnvelopeRef) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[wire.EnvelopeRef]int{}
	for _, r := range a {
		m[r]++
	}
	for _, r := range b {
		if m[r] == 0 {
			return false
		}
		m[r]--
	}
	return true
}
