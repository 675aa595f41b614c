package documents

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/wire"
)

// Index is a channel's index document: the inventory of the channel's
// documents, which a checkpoint names as index_snapshot_hash
// (spec/lifecycle.md "Checkpoints"). Each chat shard is a root key
// "chat/YYYY-MM-DD" whose value is the shard's document id (bytes). Two
// replicas adding the same shard concurrently write the same value under the
// same key, so the merge is the same either way.
type Index struct {
	*Document
	group wire.ID
}

const chatPrefix = "chat/"

// NewIndex returns an empty index document for group.
func NewIndex(group wire.ID, o Options) (*Index, error) {
	d, err := NewDocument(IndexID(group), o)
	if err != nil {
		return nil, err
	}
	d.ref = DocRef{Kind: KindIndex}
	return &Index{Document: d, group: group}, nil
}

// LoadIndex restores an index document.
func LoadIndex(group wire.ID, saved, pending []byte, o Options) (*Index, error) {
	d, err := LoadDocument(IndexID(group), saved, pending, o)
	if err != nil {
		return nil, err
	}
	d.ref = DocRef{Kind: KindIndex}
	return &Index{Document: d, group: group}, nil
}

// HasShard reports whether the index lists the chat shard of day.
func (x *Index) HasShard(day Day) bool {
	v, err := x.root().Get(chatPrefix + day.String())
	if err != nil || v.Kind() != automerge.KindBytes {
		return false
	}
	id := ChatID(x.group, day)
	return bytes.Equal(v.Bytes(), id[:])
}

// AddShard lists the chat shard of day and returns the change bytes, or nil
// bytes if it was already listed.
func (x *Index) AddShard(day Day) ([]byte, error) {
	if x.author.IsZero() {
		return nil, ErrReadOnly
	}
	if day > MaxDay {
		return nil, ErrBadDay
	}
	if x.HasShard(day) {
		return nil, nil
	}
	id := ChatID(x.group, day)
	if err := x.root().Set(chatPrefix+day.String(), id[:]); err != nil {
		return nil, fmt.Errorf("docs: index: %w", err)
	}
	return x.commitAt(x.opts.Clock())
}

// NameGroup writes the group's id under the root key "group" and returns
// the change bytes: an index then has a change, so heads, even when it lists
// no shard (a checkpoint of a channel with no message yet lists it all the
// same). Shards ignores the key.
func (x *Index) NameGroup() ([]byte, error) {
	if x.author.IsZero() {
		return nil, ErrReadOnly
	}
	if err := x.root().Set("group", x.group[:]); err != nil {
		return nil, fmt.Errorf("docs: index: %w", err)
	}
	return x.commitAt(x.opts.Clock())
}

// Shards returns the listed chat days, oldest first. Entries whose key is
// not a day or whose value is not the derived id are ignored.
func (x *Index) Shards() []Day {
	ks, err := x.root().Keys()
	if err != nil {
		return nil
	}
	var out []Day
	for _, k := range ks {
		if !strings.HasPrefix(k, chatPrefix) {
			continue
		}
		day, err := ParseDay(k[len(chatPrefix):])
		if err != nil || !x.HasShard(day) {
			continue
		}
		out = append(out, day)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
