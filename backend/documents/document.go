package documents

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// Clock is the injected time source (conventions.md "Time").
type Clock func() time.Time

// maxPending bounds the changes a document holds while it waits for their
// dependencies, so a hostile author cannot grow memory without limit.
const maxPending = 8192

// sessionSize is the length of the random suffix of an actor id.
const sessionSize = 8

// Errors, checked with errors.Is. Each is a stable code and one sentence.
var (
	ErrWrongAuthor  = errcode.New("docs/wrong_author", "a received change was not written by the envelope's author")
	ErrTooMany      = errcode.New("docs/too_many_pending", "too many received changes are waiting for changes that never arrived")
	ErrReadOnly     = errcode.New("docs/read_only", "this document was opened without a local author and cannot be changed")
	ErrBadSaved     = errcode.New("docs/bad_saved", "the saved document bytes cannot be loaded")
	ErrUnknownHeads = errcode.New("docs/unknown_heads", "the document does not contain the named heads")
	ErrForbidden    = errcode.New("docs/forbidden", "a received change removes, replaces or hides content the schema does not let it touch")
	ErrBroken       = errcode.New("docs/broken", "the document could not be restored after refused changes; reload it")
)

// zeroClock is the clock of documents opened only to be read.
func zeroClock() time.Time { return time.Time{} }

// Document is one Automerge document with Weald's rules around it: every
// change's actor is the envelope author it arrived under, received changes
// may come in any order and any number of times, and input that is rejected
// leaves the document exactly as it was.
//
// A Document is not safe for concurrent use.
type Document struct {
	id       DocID
	ref      DocRef // kind and day, for channel documents
	doc      *automerge.Doc
	author   wire.ID // the local device or agent; zero when read-only
	opts     Options
	pending  map[Head]rawChange // received, waiting for dependencies
	broken   bool               // a failed restore: refuse all use
	seqs     map[string]uint64  // actor → newest sequence number applied; nil until needed
	maxOps   map[Head]uint64    // change → its last op counter; built with seqs
	deps     map[Head][]Head    // applied change → the changes it depends on; a cache (depsOf)
	creators map[string][]byte  // root key → actor of the change that created it; built with seqs
	objects  map[string]string  // objKey of a message map → its root key; built with seqs

	proven   []Head // heads whose saved form is known to load
	unproven bool   // changes were received since proven
	rejected []Head // received changes Save dropped (TakeRejected)
	// saved is a saved form of the document at savedHeads known to load to
	// them (a verified snapshot an empty document took): Save returns it
	// while the heads are those, rather than saving and proving it again.
	saved      []byte
	savedHeads []Head
}

// Options says who writes locally and where time and randomness come from.
// A zero Author opens the document read-only.
type Options struct {
	Author    wire.ID // the device or agent id that signs this client's envelopes
	Principal wire.ID // the user or agent a message is from
	// PrincipalOf, if set, maps a device or agent id to the principal it
	// belongs to (from the roster); messages whose claimed author is not
	// the principal of the device that created them are marked Forged.
	PrincipalOf func(device wire.ID) (wire.ID, bool)
	Clock       Clock     // commit timestamps and message times
	Rand        io.Reader // the session suffix of the actor id and message ids
}

// NewDocument returns an empty document with the given id.
func NewDocument(id DocID, o Options) (*Document, error) {
	return newDocument(id, automerge.New(), o)
}

// LoadDocument restores a document from [Document.Save] and
// [Document.Pending] bytes.
func LoadDocument(id DocID, saved, pending []byte, o Options) (*Document, error) {
	am, err := automerge.Load(saved)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSaved, err)
	}
	d, err := newDocument(id, am, o)
	if err != nil {
		return nil, err
	}
	if len(pending) > 0 {
		cs, err := splitChanges(pending)
		if err != nil {
			return nil, fmt.Errorf("%w: pending: %v", ErrBadSaved, err)
		}
		if _, err := d.applyRaw(cs); err != nil {
			return nil, fmt.Errorf("%w: pending: %v", ErrBadSaved, err)
		}
	}
	return d, nil
}

func newDocument(id DocID, am *automerge.Doc, o Options) (*Document, error) {
	d := &Document{id: id, doc: am, author: o.Author, opts: o, pending: map[Head]rawChange{}}
	d.proven = d.Heads()
	if o.Clock == nil {
		return nil, errors.New("docs: Options.Clock is required")
	}
	if !o.Author.IsZero() {
		if o.Rand == nil {
			return nil, errors.New("docs: Options.Rand is required with an author")
		}
		if err := d.setActor(o.Rand); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// setActor sets the actor id: author ‖ 8 random bytes. The random suffix
// makes every session a fresh actor, so a client that lost its last save
// after sending can never reuse a (actor, seq) pair.
func (d *Document) setActor(r io.Reader) error {
	actor := make([]byte, 32+sessionSize)
	copy(actor, d.author[:])
	if _, err := io.ReadFull(r, actor[32:]); err != nil {
		return fmt.Errorf("docs: actor id: %w", err)
	}
	return d.doc.SetActorID(fmt.Sprintf("%x", actor))
}

// ID returns the document id.
func (d *Document) ID() DocID { return d.id }

// Ref returns the kind and day of a channel document (zero for a document
// made with NewDocument or LoadDocument).
func (d *Document) Ref() DocRef { return d.ref }

// Heads returns the document's heads in ascending order.
func (d *Document) Heads() []Head {
	hs := d.doc.Heads()
	out := make([]Head, len(hs))
	for i, h := range hs {
		out[i] = Head(h)
	}
	return sortHeads(out)
}

// Has reports whether the change with hash h is applied to the document:
// a map lookup for a change this session applied, committed or looked up,
// else one Automerge lookup.
func (d *Document) Has(h Head) bool {
	if _, ok := d.deps[h]; ok {
		return true
	}
	return d.applied(h)
}

// applied asks Automerge itself whether change h is applied.
func (d *Document) applied(h Head) bool {
	_, err := d.doc.Change(automerge.ChangeHash(h))
	return err == nil
}

// Pending returns the received changes still waiting for their
// dependencies, concatenated in ascending hash order ("" when none).
func (d *Document) Pending() []byte {
	if len(d.pending) == 0 {
		return nil
	}
	hs := make([]Head, 0, len(d.pending))
	for h := range d.pending {
		hs = append(hs, h)
	}
	var out []byte
	for _, h := range sortHeads(hs) {
		out = append(out, d.pending[h].bytes...)
	}
	return out
}

// PendingCount returns how many received changes wait for dependencies.
func (d *Document) PendingCount() int { return len(d.pending) }

// ApplyResult says what [Document.Apply] did.
type ApplyResult struct {
	Applied   int // changes newly applied
	Duplicate int // changes the document already had or was already holding
	Pending   int // changes now held until their dependencies arrive
}

// Apply applies received changes written by author (the envelope's author):
// a concatenation of Automerge change chunks, as [Document.Outgoing] returns.
// Changes may arrive in any order and any number of times; one whose
// dependencies are missing is held and applied when they arrive. On any
// error the document is exactly as it was before the call.
func (d *Document) Apply(author wire.ID, changes []byte) (ApplyResult, error) {
	cs, err := splitChanges(changes)
	if err != nil {
		return ApplyResult{}, err
	}
	for _, c := range cs {
		if !actorOf(c, author) {
			return ApplyResult{}, ErrWrongAuthor
		}
	}
	return d.applyRaw(cs)
}

func (d *Document) applyRaw(cs []rawChange) (ApplyResult, error) {
	if d.broken {
		return ApplyResult{}, ErrBroken
	}
	var res ApplyResult
	before := d.Heads()
	saved := make(map[Head]rawChange, len(d.pending))
	for h, c := range d.pending {
		saved[h] = c
	}
	for _, c := range cs {
		if _, held := d.pending[c.hash]; held || d.Has(c.hash) {
			res.Duplicate++
			continue
		}
		d.pending[c.hash] = c
	}
	if len(d.pending) > maxPending {
		d.pending = saved
		return ApplyResult{}, ErrTooMany
	}
	n, err := d.drain()
	if err != nil {
		if rerr := d.restore(before, saved); rerr != nil {
			return ApplyResult{}, rerr
		}
		return ApplyResult{}, err
	}
	res.Applied = n
	res.Pending = len(d.pending)
	if n > 0 {
		d.unproven = true
	}
	return res, nil
}

// drain applies every held change whose dependencies are all present, in
// dependency order (Kahn's algorithm), and returns how many it applied.
func (d *Document) drain() (int, error) {
	missing := map[Head]int{}
	waiters := map[Head][]Head{}
	var ready []Head
	for _, h := range sortHeads(keys(d.pending)) {
		c := d.pending[h]
		n := 0
		for _, dep := range c.deps {
			if _, held := d.pending[dep]; held || !d.Has(dep) {
				n++
				waiters[dep] = append(waiters[dep], h)
			}
		}
		missing[h] = n
		if n == 0 {
			ready = append(ready, h)
		}
	}
	applied := 0
	for len(ready) > 0 {
		h := ready[0]
		ready = ready[1:]
		c := d.pending[h]
		if err := d.checkChange(c); err != nil {
			return applied, err
		}
		if err := d.doc.LoadIncremental(c.bytes); err != nil {
			return applied, fmt.Errorf("%w: %v", ErrBadChanges, err)
		}
		if !d.applied(h) {
			return applied, fmt.Errorf("%w: change %s was not applied", ErrBadChanges, h)
		}
		delete(d.pending, h)
		d.noteChange(c)
		applied++
		for _, w := range waiters[h] {
			missing[w]--
			if missing[w] == 0 {
				ready = append(ready, w)
			}
		}
	}
	return applied, nil
}

// restore puts the document back at heads and the pending set back to
// saved, after a change Automerge refused part-way through a batch. It fails
// only if Automerge cannot rebuild the document at heads it reported a
// moment ago; the document is then marked broken and refuses all further use
// ([ErrBroken]) so that the caller reloads it from the store.
func (d *Document) restore(heads []Head, saved map[Head]rawChange) error {
	d.pending = saved
	d.dropIndex()
	if equalHeads(d.Heads(), heads) {
		return nil
	}
	fresh, err := d.forkAt(heads)
	if err != nil {
		return fmt.Errorf("restoring %s: %w", d.id.Short(), err)
	}
	if err := fresh.SetActorID(d.doc.ActorID()); err != nil {
		d.broken = true
		return fmt.Errorf("%w: restoring actor of %s: %v", ErrBroken, d.id.Short(), err)
	}
	d.doc = fresh
	return nil
}

// Outgoing returns this client's own changes that are not ancestors of
// since (the heads at the last sync point), concatenated in causal order:
// the bytes of a content envelope for this document. Changes by other
// authors are never included; they travel under their own authors.
func (d *Document) Outgoing(since []Head) ([]byte, error) {
	if d.author.IsZero() {
		return nil, ErrReadOnly
	}
	if d.broken {
		return nil, ErrBroken
	}
	hs := make([]automerge.ChangeHash, len(since))
	for i, h := range since {
		if !d.Has(h) {
			return nil, fmt.Errorf("%w: %s", ErrUnknownHeads, h)
		}
		hs[i] = automerge.ChangeHash(h)
	}
	chs, err := d.doc.Changes(hs...)
	if err != nil {
		return nil, fmt.Errorf("docs: changes since sync point: %w", err)
	}
	var out []byte
	for _, ch := range chs {
		raw := ch.Save()
		c, _, err := parseChunk(raw)
		if err != nil {
			return nil, fmt.Errorf("docs: own change: %w", err)
		}
		if len(c.actor) >= 32 && bytes.Equal(c.actor[:32], d.author[:]) {
			out = append(out, raw...)
		}
	}
	return out, nil
}

// commit records the operations made since the last commit as one change
// stamped with the injected clock and returns its bytes.
func (d *Document) commitAt(now time.Time) ([]byte, error) {
	if d.broken {
		return nil, ErrBroken
	}
	h, err := d.doc.Commit("", automerge.CommitOptions{Time: &now})
	if err != nil {
		return nil, fmt.Errorf("docs: commit: %w", err)
	}
	ch, err := d.doc.Change(h)
	if err != nil {
		return nil, fmt.Errorf("docs: commit: %w", err)
	}
	raw := ch.Save()
	rc, _, err := parseChunk(raw)
	if err != nil {
		return nil, fmt.Errorf("docs: own change: %w", err)
	}
	d.noteChange(rc)
	return raw, nil
}

func (d *Document) root() *automerge.Map { return d.doc.RootMap() }

func keys(m map[Head]rawChange) []Head {
	out := make([]Head, 0, len(m))
	for h := range m {
		out = append(out, h)
	}
	return out
}

func equalHeads(a, b []Head) bool {
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
