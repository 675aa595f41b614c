package documents

import (
	"fmt"
	"sort"

	"weald/backend/wire"
)

// Stored is a document as the client's store keeps it.
type Stored struct {
	Saved   []byte // Document.Save
	Pending []byte // Document.Pending
}

// Loader returns a stored document, or ok=false when there is none.
type Loader func(id DocID) (s Stored, ok bool, err error)

// Channel is one group's documents: its index and the chat shards it lists,
// loaded on demand. It turns a local post into a content payload and routes
// a received payload to the documents it names, creating them if needed
// (their ids are deterministic, so a created document is the one the sender
// meant).
//
// A Channel is not safe for concurrent use.
type Channel struct {
	group  wire.ID
	opts   Options
	load   Loader
	index  *Index
	shards map[Day]*Shard
	dirty  map[DocID]bool
}

// OpenChannel opens the documents of group. load may be nil (nothing stored).
func OpenChannel(group wire.ID, o Options, load Loader) (*Channel, error) {
	if load == nil {
		load = func(DocID) (Stored, bool, error) { return Stored{}, false, nil }
	}
	c := &Channel{group: group, opts: o, load: load, shards: map[Day]*Shard{}, dirty: map[DocID]bool{}}
	s, ok, err := load(IndexID(group))
	if err != nil {
		return nil, fmt.Errorf("docs: load index of %s: %w", group.Short(), err)
	}
	if ok {
		c.index, err = LoadIndex(group, s.Saved, s.Pending, o)
	} else {
		c.index, err = NewIndex(group, o)
	}
	if err != nil {
		return nil, fmt.Errorf("docs: index of %s: %w", group.Short(), err)
	}
	return c, nil
}

// Group returns the channel's group id.
func (c *Channel) Group() wire.ID { return c.group }

// Index returns the channel's index document.
func (c *Channel) Index() *Index { return c.index }

// Shard returns the chat shard of day, loading it or creating an empty one.
func (c *Channel) Shard(day Day) (*Shard, error) {
	if day > MaxDay {
		return nil, ErrBadDay
	}
	if s := c.shards[day]; s != nil {
		return s, nil
	}
	st, ok, err := c.load(ChatID(c.group, day))
	if err != nil {
		return nil, fmt.Errorf("docs: load shard %s: %w", day, err)
	}
	var s *Shard
	if ok {
		s, err = LoadShard(c.group, day, st.Saved, st.Pending, c.opts)
	} else {
		s, err = NewShard(c.group, day, c.opts)
	}
	if err != nil {
		return nil, fmt.Errorf("docs: shard %s: %w", day, err)
	}
	c.shards[day] = s
	return s, nil
}

// Post adds a message to today's shard (by the injected clock), listing the
// shard in the index if it is the day's first, and returns the message and
// the content payload to send.
func (c *Channel) Post(text string) (Message, []byte, error) {
	now := c.opts.Clock()
	day, err := DayOf(now)
	if err != nil {
		return Message{}, nil, err
	}
	s, err := c.Shard(day)
	if err != nil {
		return Message{}, nil, err
	}
	if err := checkText(text); err != nil {
		return Message{}, nil, err
	}
	var p Payload
	ich, err := c.index.AddShard(day)
	if err != nil {
		return Message{}, nil, err
	}
	if ich != nil {
		c.dirty[c.index.ID()] = true
		p.Docs = append(p.Docs, DocChanges{Ref: DocRef{Kind: KindIndex}, Changes: ich})
	}
	m, sch, err := s.post(now, text, nil)
	if err != nil {
		return Message{}, nil, err
	}
	c.dirty[s.ID()] = true
	p.Docs = append(p.Docs, DocChanges{Ref: DocRef{Kind: KindChat, Day: day}, Changes: sch})
	b, err := p.Encode()
	return m, b, err
}

// Edit changes the text of one of the local principal's messages in the
// shard of day and returns the content payload.
func (c *Channel) Edit(day Day, id MessageID, text string) ([]byte, error) {
	s, err := c.Shard(day)
	if err != nil {
		return nil, err
	}
	ch, err := s.Edit(id, text)
	if err != nil {
		return nil, err
	}
	c.dirty[s.ID()] = true
	p := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: day}, Changes: ch}}}
	return p.Encode()
}

// Delete deletes one of the local principal's messages in the shard of day
// and returns the content payload.
func (c *Channel) Delete(day Day, id MessageID) ([]byte, error) {
	s, err := c.Shard(day)
	if err != nil {
		return nil, err
	}
	ch, err := s.Delete(id)
	if err != nil {
		return nil, err
	}
	c.dirty[s.ID()] = true
	p := Payload{Docs: []DocChanges{{Ref: DocRef{Kind: KindChat, Day: day}, Changes: ch}}}
	return p.Encode()
}

func (c *Channel) doc(ref DocRef) (*Document, error) {
	if ref.Kind == KindIndex {
		return c.index.Document, nil
	}
	s, err := c.Shard(ref.Day)
	if err != nil {
		return nil, err
	}
	return s.Document, nil
}

// Apply applies a received content payload written by author (the
// envelope's author). Either every document in it takes its changes or, on
// error, every document is as it was.
func (c *Channel) Apply(author wire.ID, payload []byte) (ApplyResult, error) {
	p, err := DecodePayload(payload)
	if err != nil {
		return ApplyResult{}, err
	}
	// Check every document's changes before touching any.
	parsed := make([][]rawChange, len(p.Docs))
	for i, d := range p.Docs {
		cs, err := splitChanges(d.Changes)
		if err != nil {
			return ApplyResult{}, err
		}
		for _, ch := range cs {
			if !actorOf(ch, author) {
				return ApplyResult{}, ErrWrongAuthor
			}
		}
		parsed[i] = cs
	}
	newShards := map[Day]bool{}
	type undo struct {
		d       *Document
		heads   []Head
		pending map[Head]rawChange
	}
	var undos []undo
	rollback := func(cause error) error {
		for i := len(undos) - 1; i >= 0; i-- {
			if err := undos[i].d.restore(undos[i].heads, undos[i].pending); err != nil {
				cause = err
			}
		}
		for day := range newShards {
			delete(c.shards, day)
		}
		return cause
	}
	var total ApplyResult
	for i, d := range p.Docs {
		if d.Ref.Kind == KindChat && c.shards[d.Ref.Day] == nil {
			newShards[d.Ref.Day] = true
		}
		doc, err := c.doc(d.Ref)
		if err != nil {
			return ApplyResult{}, rollback(err)
		}
		saved := make(map[Head]rawChange, len(doc.pending))
		for h, ch := range doc.pending {
			saved[h] = ch
		}
		undos = append(undos, undo{doc, doc.Heads(), saved})
		r, err := doc.applyRaw(parsed[i])
		if err != nil {
			return ApplyResult{}, rollback(err)
		}
		total.Applied += r.Applied
		total.Duplicate += r.Duplicate
		total.Pending += r.Pending
	}
	for _, u := range undos {
		c.dirty[u.d.ID()] = true
	}
	return total, nil
}

func actorOf(c rawChange, author wire.ID) bool {
	return len(c.actor) == 32+sessionSize && string(c.actor[:32]) == string(author[:])
}

// Messages returns up to limit of the newest messages across the shards the
// index lists, oldest first; limit <= 0 means all.
func (c *Channel) Messages(limit int) ([]Message, error) {
	days := c.index.Shards()
	var out []Message
	for i := len(days) - 1; i >= 0; i-- {
		s, err := c.Shard(days[i])
		if err != nil {
			return nil, err
		}
		ms := s.Messages()
		out = append(ms, out...)
		if limit > 0 && len(out) >= limit {
			out = out[len(out)-limit:]
			break
		}
	}
	return out, nil
}

// Outgoing returns a content payload of this client's changes to every
// loaded document that are not ancestors of since[id] (the heads at the
// document's last sync point), or nil when there are none: what to resend
// after a crash between committing and sending.
func (c *Channel) Outgoing(since map[DocID][]Head) ([]byte, error) {
	var p Payload
	add := func(ref DocRef, d *Document) error {
		b, err := d.Outgoing(since[d.ID()])
		if err != nil {
			return err
		}
		if len(b) > 0 {
			p.Docs = append(p.Docs, DocChanges{Ref: ref, Changes: b})
		}
		return nil
	}
	if err := add(DocRef{Kind: KindIndex}, c.index.Document); err != nil {
		return nil, err
	}
	for _, day := range c.index.Shards() {
		s, err := c.Shard(day)
		if err != nil {
			return nil, err
		}
		if err := add(DocRef{Kind: KindChat, Day: day}, s.Document); err != nil {
			return nil, err
		}
	}
	if len(p.Docs) == 0 {
		return nil, nil
	}
	return p.Encode()
}

// SyncPoint returns the current heads of every loaded document: what to
// record as the documents' sync point (store: documents.sent_heads) once
// their outgoing changes are queued.
func (c *Channel) SyncPoint() map[DocID][]Head {
	out := map[DocID][]Head{c.index.ID(): c.index.Heads()}
	for _, s := range c.shards {
		out[s.ID()] = s.Heads()
	}
	return out
}

// Dirty returns the documents changed since the last [Channel.MarkSaved]:
// what the caller writes to the store, in the same transaction as the
// envelope that carried or will carry the changes.
func (c *Channel) Dirty() []*Document {
	var out []*Document
	if c.dirty[c.index.ID()] {
		out = append(out, c.index.Document)
	}
	days := make([]Day, 0, len(c.shards))
	for day, s := range c.shards {
		if c.dirty[s.ID()] {
			days = append(days, day)
		}
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	for _, day := range days {
		out = append(out, c.shards[day].Document)
	}
	return out
}

// MarkSaved forgets which documents changed.
func (c *Channel) MarkSaved() { c.dirty = map[DocID]bool{} }
