package documents

import (
	"fmt"

	automerge "github.com/automerge/automerge-go"
)

// checkChange enforces what Automerge's loader requires and its apply does
// not check, so that no received change can leave a document that fails to
// load from its own save:
//
//   - an actor's changes are numbered 1, 2, 3, … in causal order;
//   - a change's first op counter is one past the largest op counter of
//     the changes it depends on (1 with no dependencies).
func (d *Document) checkChange(c rawChange) error {
	if err := d.indexChanges(); err != nil {
		return err
	}
	if last := d.seqs[string(c.actor)]; c.seq != last+1 {
		return fmt.Errorf("%w: change %s has sequence number %d after %d", ErrBadChanges, c.hash, c.seq, last)
	}
	var want uint64 = 1
	for _, dep := range c.deps {
		m, ok := d.maxOps[dep]
		if !ok {
			return fmt.Errorf("%w: change %s depends on an unknown change", ErrBadChanges, c.hash)
		}
		want = max(want, m+1)
	}
	if c.startOp != want {
		return fmt.Errorf("%w: change %s starts at op %d, not %d", ErrBadChanges, c.hash, c.startOp, want)
	}
	return d.checkOps(c)
}

// indexChanges builds seqs and maxOps from the document's changes, once.
func (d *Document) indexChanges() error {
	if d.seqs != nil {
		return nil
	}
	seqs, maxOps := map[string]uint64{}, map[Head]uint64{}
	creators, objects := map[string][]byte{}, map[string]string{}
	chs, err := d.doc.Changes()
	if err != nil {
		return fmt.Errorf("docs: reading changes: %w", err)
	}
	for _, ch := range chs {
		rc, _, err := parseChunk(ch.Save())
		if err != nil {
			return fmt.Errorf("docs: reading changes: %w", err)
		}
		seqs[string(rc.actor)] = max(seqs[string(rc.actor)], rc.seq)
		maxOps[rc.hash] = rc.maxOp()
		noteCreators(creators, objects, rc)
	}
	d.seqs, d.maxOps, d.creators, d.objects = seqs, maxOps, creators, objects
	return nil
}

// dropIndex forgets the change index after the document was replaced or
// merged into; it is rebuilt from the changes when next needed.
func (d *Document) dropIndex() {
	d.seqs, d.maxOps, d.deps, d.creators, d.objects = nil, nil, nil, nil, nil
}

// noteCreators records the actor of every root key a change creates, and
// the object each such operation creates (first writer wins; the root rules
// let only one change create a message key).
func noteCreators(creators map[string][]byte, objects map[string]string, c rawChange) {
	ops, err := decodeOps(c)
	if err != nil {
		return
	}
	for _, o := range ops {
		if o.root && o.action == actionMakeMap {
			if _, ok := creators[o.key]; !ok {
				creators[o.key] = c.actor
				objects[objKey(c.actor, o.ctr)] = o.key
			}
		}
	}
}

// creator returns the actor of the change that created root key k, or nil.
func (d *Document) creator(k string) []byte {
	if d.indexChanges() != nil {
		return nil
	}
	return d.creators[k]
}

// noteChange records an applied or committed change in the indexes.
func (d *Document) noteChange(c rawChange) {
	if d.deps == nil {
		d.deps = map[Head][]Head{}
	}
	d.deps[c.hash] = c.deps
	if d.seqs != nil {
		d.seqs[string(c.actor)] = c.seq
		d.maxOps[c.hash] = c.maxOp()
		noteCreators(d.creators, d.objects, c)
	}
}

// depsOf returns the dependencies of applied change h, from the cache of
// changes this document applied, committed or looked up before, else from
// Automerge (and then cached). ok is false when h is not applied.
func (d *Document) depsOf(h Head) ([]Head, bool) {
	if deps, ok := d.deps[h]; ok {
		return deps, true
	}
	ch, err := d.doc.Change(automerge.ChangeHash(h))
	if err != nil {
		return nil, false
	}
	am := ch.Dependencies()
	deps := make([]Head, len(am))
	for i, x := range am {
		deps[i] = Head(x)
	}
	if d.deps == nil {
		d.deps = map[Head][]Head{}
	}
	d.deps[h] = deps
	return deps, true
}
