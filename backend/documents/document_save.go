package documents

import (
	"fmt"

	automerge "github.com/automerge/automerge-go"
)

// Save returns the whole document (pending changes excluded; see
// [Document.Pending]).
//
// Automerge's apply accepts some malformed changes that its loader then
// refuses (a non-canonical column encoding, say), which would leave a
// document that cannot be reopened. So when changes have been received
// since the last save, Save proves that the bytes load back to the same
// heads. If they do not, it rebuilds the document from the last proven
// state, replaying the changes since one at a time and dropping each
// received change that breaks the round trip (and holding changes that
// depend on a dropped one); the dropped changes are reported by
// [Document.TakeRejected]. The returned bytes always load.
func (d *Document) Save() ([]byte, error) {
	if d.broken {
		return nil, ErrBroken
	}
	if d.saved != nil {
		if equalHeads(d.Heads(), d.savedHeads) {
			return d.saved, nil
		}
		d.saved, d.savedHeads = nil, nil
	}
	b := d.doc.Save()
	if !d.unproven {
		return b, nil
	}
	heads := d.Heads()
	if loadsTo(b, heads) {
		d.proven, d.unproven = heads, false
		return b, nil
	}
	if err := d.rebuild(); err != nil {
		return nil, err
	}
	return d.doc.Save(), nil
}

// loadsTo reports whether b loads to a document with exactly heads.
func loadsTo(b []byte, heads []Head) bool {
	am, err := automerge.Load(b)
	if err != nil {
		return false
	}
	got := make([]Head, 0, len(heads))
	for _, h := range am.Heads() {
		got = append(got, Head(h))
	}
	return equalHeads(sortHeads(got), heads)
}

// rebuild replays every change above the last proven heads onto a fork at
// them, proving the round trip after each received change.
func (d *Document) rebuild() error {
	chs, err := d.doc.Changes(toHashes(d.proven)...)
	if err != nil {
		d.broken = true
		return fmt.Errorf("%w: %v", ErrBroken, err)
	}
	fresh, err := d.forkAt(d.proven)
	if err != nil {
		return err
	}
	rejected := map[Head]bool{}
	for _, ch := range chs {
		rc, _, err := parseChunk(ch.Save())
		if err != nil {
			rejected[rc.hash] = true
			continue
		}
		skip := false
		for _, dep := range rc.deps {
			if rejected[dep] {
				skip = true
			}
		}
		if skip {
			d.pending[rc.hash] = rc // waits for a change that will never come
			continue
		}
		before := headsOf(fresh)
		if err := fresh.LoadIncremental(rc.bytes); err != nil {
			rejected[rc.hash] = true
			continue
		}
		if actorOf(rc, d.author) && !d.author.IsZero() {
			continue // our own change: Automerge wrote it
		}
		if !loadsTo(fresh.Save(), headsOf(fresh)) {
			rejected[rc.hash] = true
			d.rejected = append(d.rejected, rc.hash)
			if fresh, err = forkDoc(fresh, before); err != nil {
				d.broken = true
				return err
			}
		}
	}
	if err := fresh.SetActorID(d.doc.ActorID()); err != nil {
		d.broken = true
		return fmt.Errorf("%w: %v", ErrBroken, err)
	}
	d.doc = fresh
	d.dropIndex()
	d.proven, d.unproven = d.Heads(), false
	return nil
}

// TakeRejected returns the received changes that Save dropped since the
// last call (each one a change a member wrote that would have made the
// document unloadable: worth an alert), and forgets them.
func (d *Document) TakeRejected() []Head {
	r := d.rejected
	d.rejected = nil
	return r
}

func toHashes(hs []Head) []automerge.ChangeHash {
	out := make([]automerge.ChangeHash, len(hs))
	for i, h := range hs {
		out[i] = automerge.ChangeHash(h)
	}
	return out
}

func headsOf(am *automerge.Doc) []Head {
	hs := am.Heads()
	out := make([]Head, len(hs))
	for i, h := range hs {
		out[i] = Head(h)
	}
	return sortHeads(out)
}

// forkDoc returns am as it was at heads (an empty document for none).
func forkDoc(am *automerge.Doc, heads []Head) (*automerge.Doc, error) {
	if len(heads) == 0 {
		return automerge.New(), nil
	}
	f, err := am.Fork(toHashes(heads)...)
	if err != nil {
		return nil, fmt.Errorf("%w: fork: %v", ErrBroken, err)
	}
	return f, nil
}

func (d *Document) forkAt(heads []Head) (*automerge.Doc, error) {
	f, err := forkDoc(d.doc, heads)
	if err != nil {
		d.broken = true
	}
	return f, err
}
