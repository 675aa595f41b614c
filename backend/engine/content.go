package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"weald/backend/documents"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// shardKey names one chat day shard. A closed group keeps one document per
// day and epoch: its content keys change with the epoch and a joiner holds
// none of the earlier ones, so a later change must not depend on changes the
// joiner can never read (docs/protocol/groups.md). Open groups use epoch 0.
type shardKey struct {
	group identity.GroupID
	day   documents.Day
	epoch uint64
}

// shard is a loaded chat shard. It is stored as a saved base document plus
// an append-only log of the changes since (author ‖ change chunks), so a send
// or a received message costs one small row rather than a full save; the log
// is folded into the base every maxShardLog changes.
type shard struct {
	s       *documents.Shard
	hasBase bool
	logN    int                          // rows in the stored log
	pending [][]byte                     // author(32) ‖ changes, not stored yet
	touched map[documents.MessageID]bool // messages to re-read into the index (history.go)
	rebase  bool                         // changed other than by changes (a snapshot read): save whole
}

const maxShardLog = 64

func (k shardKey) id() store.ShardID {
	return store.ShardID{Group: k.group, Day: uint32(k.day), Epoch: k.epoch}
}

func (e *Engine) docOptions() documents.Options {
	principal := wire.ID(e.meta.User)
	if e.agentMode() {
		principal = wire.ID(e.devID) // an agent's messages are its own
	}
	return documents.Options{Author: wire.ID(e.devID), Principal: principal, Clock: documents.Clock(e.now), Rand: e.rand}
}

// shardFor returns the shard of (group, day), loading or creating it.
func (e *Engine) shardFor(ctx context.Context, k shardKey) (*shard, error) {
	if s := e.shards[k]; s != nil {
		return s, nil
	}
	var b []byte
	var logs [][]byte
	var ok bool
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		b, logs, ok, err = tx.Shard(k.id())
		return err
	}); err != nil {
		return nil, err
	}
	var s *documents.Shard
	var err error
	if ok {
		s, err = documents.LoadShard(wire.ID(k.group), k.day, b, nil, e.docOptions())
	} else {
		s, err = documents.NewShard(wire.ID(k.group), k.day, e.docOptions())
	}
	if err != nil {
		return nil, err
	}
	for n, v := range logs {
		if len(v) < 32 {
			return nil, fmt.Errorf("engine: stored change %d of a shard is truncated", n)
		}
		if _, err := s.Apply(wire.ID(v[:32]), v[32:]); err != nil {
			return nil, fmt.Errorf("engine: stored change %d of a shard: %w", n, err)
		}
	}
	sh := &shard{s: s, hasBase: ok, logN: len(logs)}
	e.shards[k] = sh
	return sh, nil
}

func (sh *shard) record(author wire.ID, changes []byte) {
	sh.pending = append(sh.pending, append(append([]byte{}, author[:]...), changes...))
}

func (e *Engine) saveShards(t *txn) error {
	if err := e.indexTouched(t); err != nil {
		return err
	}
	for k, s := range e.shards {
		if len(s.pending) == 0 && !s.rebase {
			continue
		}
		if s.rebase || !s.hasBase || s.logN+len(s.pending) > maxShardLog {
			b, err := saveShard(s.s)
			if err != nil {
				return err
			}
			if err := t.tx.PutShard(k.id(), b); err != nil { // drops the stored changes
				return err
			}
			s.hasBase, s.logN, s.rebase = true, 0, false
		} else {
			for _, c := range s.pending {
				if err := t.tx.AddShardChange(k.id(), s.logN, c); err != nil {
					return err
				}
				s.logN++
			}
		}
		s.pending = nil
	}
	return nil
}

// saveShard returns the shard's saved bytes; it accepts both forms of
// documents.Document.Save (with and without an error result) while that API settles.
func saveShard(s *documents.Shard) ([]byte, error) {
	switch f := any(s.Save).(type) {
	case func() []byte:
		return f(), nil
	case func() ([]byte, error):
		return f()
	}
	return nil, fmt.Errorf("engine: unsupported documents.Save")
}

// contentKey returns the key this client encrypts new content of g with.
func (e *Engine) contentKey(g *group, pol *roster.GroupPolicy) (scheme uint8, id [32]byte, epoch uint64, key []byte, err error) {
	if pol.History == roster.HistoryOpen {
		if len(g.history) == 0 {
			return 0, id, 0, nil, fmt.Errorf("%w: no history key for this channel", groups.ErrNoKey)
		}
		hk := g.history[len(g.history)-1]
		return groups.SchemeHistory, hk.ID, 0, hk.Key, nil
	}
	if g.mls == nil {
		return 0, id, 0, nil, ErrNotMember
	}
	ep := g.mls.Epoch()
	k := g.rec.EpochKeys[strconv.FormatUint(ep, 10)]
	if k == nil {
		return 0, id, 0, nil, fmt.Errorf("%w: no key for the current epoch", groups.ErrNoKey)
	}
	return groups.SchemeEpoch, id, ep, k, nil
}

// openContent finds the key for a content envelope and decrypts it.
func (e *Engine) openContent(g *group, env *wire.Envelope) (documents.Payload, uint64, error) {
	p, c, err := e.openContentCT(g, env)
	return p, c.Epoch, err
}

func (e *Engine) openContentCT(g *group, env *wire.Envelope) (documents.Payload, groups.ContentCT, error) {
	c, err := groups.DecodeContentCT(env.CT)
	if err != nil {
		return documents.Payload{}, c, err
	}
	var key []byte
	switch c.Scheme {
	case groups.SchemeHistory:
		for _, hk := range g.history {
			if hk.ID == c.KeyID {
				key = hk.Key
			}
		}
	case groups.SchemeEpoch:
		key = g.rec.EpochKeys[strconv.FormatUint(c.Epoch, 10)]
	}
	if key == nil {
		return documents.Payload{}, c, groups.ErrNoKey
	}
	pt, err := groups.OpenContent(c, key, env.Group, env.Author, env.Ctr)
	if err != nil {
		return documents.Payload{}, c, err
	}
	p, err := documents.DecodePayload(pt)
	return p, c, err
}

// applyContent applies a content envelope's changes to the shards.
func (e *Engine) applyContent(ctx context.Context, g *group, env *wire.Envelope) (bool, error) {
	p, epoch, err := e.openContent(g, env)
	if err != nil {
		return false, err
	}
	changed := false
	for _, d := range p.Docs {
		if d.Ref.Kind != documents.KindChat {
			continue
		}
		e.noteSeen(g, env.Author, d.Ref.Day)
		sh, err := e.shardFor(ctx, shardKey{identity.GroupID(g.rec.ID), d.Ref.Day, epoch})
		if err != nil {
			return changed, err
		}
		held := sh.s.Pending() // changes this one may release
		r, err := sh.s.Apply(env.Author, d.Changes)
		if err != nil {
			return changed, err
		}
		if r.Applied > 0 || r.Pending > 0 {
			sh.record(env.Author, d.Changes)
		}
		if r.Applied > 0 {
			changed = true
			sh.touch(sh.s.Touched(append(append([]byte{}, d.Changes...), held...))...)
		}
	}
	return changed, nil
}

// Message is one chat message as the CLI and UI show it.
type Message struct {
	ID     string `json:"id"`
	Author string `json:"author"` // user id (hex)
	// AuthorName is the author's display name now (roster set-name), or a
	// short id when it has none.
	AuthorName string    `json:"author_name"`
	Device     string    `json:"device,omitempty"`
	Time       time.Time `json:"time"`
	Text       string    `json:"text"`
	Edited     bool      `json:"edited,omitempty"`
	// Kind is "" for a chat message and KindJoined for a join notice
	// (joined.go): a line of #general drawn from the roster, with no text.
	Kind string `json:"kind,omitempty"`
	// Mentioned marks the "@name" spans of Text that refer to people.
	Mentioned []Mention `json:"mentions,omitempty"`
	// State is "" for a message in the log, OutboxPending or OutboxFailed
	// for one in this device's outbox (Error then says why).
	State string `json:"state,omitempty"`
	Error string `json:"error,omitempty"`
	// Change is OpEdit or OpDelete for a message of the log with that
	// change of this device's waiting in the outbox (State says how).
	Change string `json:"change,omitempty"`
}

// Send posts text to a channel: an Automerge change to today's shard,
// encrypted under the channel's content key, in one envelope.
func (e *Engine) Send(ctx context.Context, channel, text string) (Message, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return Message{}, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return Message{}, err
	}
	return e.sendText(ctx, gi, post{Text: text}, nil)
}

// post is what a send puts in a channel: text and the people it mentions.
type post struct {
	Text     string
	Mentions []Mention
}

// sendText is Send with e.mu held and connected; also, when set, runs in
// the transaction that stores the sent change (the outbox drops the item
// there, so a crash never sends it twice nor loses it).
func (e *Engine) sendText(ctx context.Context, gi roster.GroupInfo, p post, also func(t *txn) error) (Message, error) {
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return Message{}, ErrNotMember
	}
	if err := e.catchUp(ctx, g); err != nil {
		return Message{}, err
	}
	day, err := documents.DayOf(e.now())
	if err != nil {
		return Message{}, err
	}
	scheme, kid, ep, key, err := e.contentKey(g, &gi.Policy)
	if err != nil {
		return Message{}, err
	}
	sk := shardKey{gi.Policy.Group, day, ep}
	sh, err := e.shardFor(ctx, sk)
	if err != nil {
		return Message{}, err
	}
	mentions, err := e.docMentions(p.Text, p.Mentions)
	if err != nil {
		return Message{}, err
	}
	m, changes, err := sh.s.PostMentioning(p.Text, mentions)
	if err != nil {
		return Message{}, err
	}
	if err := e.sendChange(ctx, g, sk, sh, contentKey{scheme, kid, ep, key}, changes, m.ID, also); err != nil {
		return Message{}, err
	}
	return e.toMessage(m), nil
}

// contentKey is the key a change is sealed under (e.contentKey's results).
type contentKey struct {
	scheme uint8
	id     [32]byte
	epoch  uint64
	key    []byte
}

// sendChange sends changes just made to shard sh (of sk) in one content
// envelope sealed under k, then stores them, re-indexes message id and runs
// also in the same transaction; e.mu is held and the client connected. When
// the send fails the local shard is forgotten (the stored one never held the
// change).
func (e *Engine) sendChange(ctx context.Context, g *group, sk shardKey, sh *shard, k contentKey, changes []byte, id documents.MessageID, also func(t *txn) error) error {
	payload := documents.Payload{Docs: []documents.DocChanges{{Ref: documents.DocRef{Kind: documents.KindChat, Day: sk.day}, Changes: changes}}}
	pt, err := payload.Encode()
	if err != nil {
		delete(e.shards, sk)
		return err
	}
	seq, err := e.send(ctx, g, wire.KindContent, func(env *wire.Envelope) ([]byte, error) {
		c, err := groups.SealContent(e.rand, k.scheme, k.id, k.epoch, k.key, env.Group, wire.ID(e.devID), env.Ctr, pt)
		if err != nil {
			return nil, err
		}
		return c.Encode(), nil
	})
	if err != nil {
		delete(e.shards, sk)
		return err
	}
	sh.record(wire.ID(e.devID), changes)
	sh.touch(id)
	g.rec.Retention.noteChange(e.now())
	if seq == g.rec.LastSeq+1 {
		g.rec.LastSeq = seq
	}
	if err := e.db.update(ctx, func(t *txn) error {
		if err := e.saveShards(t); err != nil {
			return err
		}
		if also != nil {
			if err := also(t); err != nil {
				return err
			}
		}
		return e.saveGroup(t, g)
	}); err != nil {
		return err
	}
	e.emit(Event{Kind: EventMessages, Channel: hexID(g.rec.ID).hex()})
	return nil
}

func (e *Engine) toMessage(m documents.Message) Message {
	return Message{ID: m.ID.String(), Author: hexID(m.Author).hex(), AuthorName: e.userName(identity.UserID(m.Author)), Time: m.Time.UTC(), Text: m.Text, Edited: !m.Edited.IsZero(), Mentioned: mentionsOf(m.Mentions)}
}

// Messages returns the last limit messages of a channel (0: all), oldest
// first, from the message index.
func (e *Engine) Messages(ctx context.Context, channel string, limit int) ([]Message, error) {
	if limit > 0 && limit <= MaxPage {
		ms, _, err := e.MessagesBefore(ctx, channel, "", limit)
		return ms, err
	}
	ms, err := e.messagesSince(ctx, channel, time.Time{})
	if limit > 0 && len(ms) > limit {
		ms = ms[len(ms)-limit:]
	}
	return ms, err
}
