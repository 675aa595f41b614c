package documents

import (
	"fmt"

	"weald/backend/errcode"
)

// Checkpoint writers capture each document exactly at the author barriers
// (spec/lifecycle.md "Checkpoints": a snapshot "captures all changes at or
// below the author barriers"). The envelopes at or below the barriers name
// a set of changes; ChangeHashes reads them out of each envelope's payload,
// Frontier turns the set into heads, and SnapshotAt makes the snapshot. A
// receiver holding the same envelopes recomputes the heads and compares.

// ErrNotClosed: a change set given as a barrier is missing an ancestor of
// one of its changes, so no snapshot holds exactly that set.
var ErrNotClosed = errcode.New("docs/not_closed", "the changes named by the barrier do not include all their ancestors")

// ChangeHashes returns the hashes of the changes a content payload carries,
// by document. It checks the payload's framing and the chunks' checksums
// only.
func ChangeHashes(payload []byte) (map[DocRef][]Head, error) {
	p, err := DecodePayload(payload)
	if err != nil {
		return nil, err
	}
	out := make(map[DocRef][]Head, len(p.Docs))
	for _, d := range p.Docs {
		cs, err := splitChanges(d.Changes)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out[d.Ref] = append(out[d.Ref], c.hash)
		}
	}
	return out, nil
}

// Frontier returns the heads of a set of the document's changes: the
// members no other member depends on. Every member must be in the document
// and every dependency of a member must be in the set ([ErrNotClosed]).
func (d *Document) Frontier(set []Head) ([]Head, error) {
	in := make(map[Head]bool, len(set))
	for _, h := range set {
		in[h] = true
	}
	depended := map[Head]bool{}
	for h := range in {
		deps, ok := d.depsOf(h)
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnknownHeads, h)
		}
		for _, dep := range deps {
			if !in[dep] {
				return nil, fmt.Errorf("%w: %s depends on %s", ErrNotClosed, h, dep)
			}
			depended[dep] = true
		}
	}
	var out []Head
	for h := range in {
		if !depended[h] {
			out = append(out, h)
		}
	}
	return sortHeads(out), nil
}

// Ancestors returns heads and every change they depend on, transitively,
// in ascending order: the change set a trusted snapshot at heads stands for
// when the envelopes beneath it are gone (a later checkpoint's barrier set
// is these plus the changes of the envelopes above).
func (d *Document) Ancestors(heads []Head) ([]Head, error) {
	seen := map[Head]bool{}
	stack := append([]Head(nil), heads...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		deps, ok := d.depsOf(h)
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrUnknownHeads, h)
		}
		seen[h] = true
		for _, dep := range deps {
			if !seen[dep] {
				stack = append(stack, dep)
			}
		}
	}
	out := make([]Head, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	return sortHeads(out), nil
}
