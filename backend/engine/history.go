package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/store"
	"weald/backend/wire"
)

// The message index (docs/protocol/store.md "Message index"): every
// message of the stored chat shards also has a row in the store's index,
// written in the transaction that stores the shard change, so that paging a
// channel's history and searching it read rows instead of loading and
// decoding day shards.

// touch marks messages of a shard to be re-read into the index when the
// shard is next saved.
func (sh *shard) touch(ids ...documents.MessageID) {
	if sh.touched == nil {
		sh.touched = map[documents.MessageID]bool{}
	}
	for _, id := range ids {
		sh.touched[id] = true
	}
}

// indexTouched writes the touched messages of every shard to the index:
// the current state of each (a deleted message leaves it). The shards are
// read on parallel goroutines (documents.Each: a joiner that read a
// checkpoint's snapshots has a day of messages to read in each), the rows
// written one after the other into t.
func (e *Engine) indexTouched(t *txn) error {
	var keys []shardKey
	var shards []*shard
	for k, sh := range e.shards {
		if len(sh.touched) > 0 {
			keys, shards = append(keys, k), append(shards, sh)
		}
	}
	read := make([][]documents.Message, len(keys))
	_ = documents.Each(len(keys), func(i int) error {
		sh := shards[i]
		for id := range sh.touched {
			if m, err := sh.s.Message(id); err == nil { // else held until its dependencies arrive
				read[i] = append(read[i], m)
			}
		}
		return nil
	})
	for i, k := range keys {
		for _, m := range read[i] {
			if err := e.indexMessage(t.tx, k, m); err != nil {
				return err
			}
		}
		shards[i].touched = nil
	}
	return nil
}

func (e *Engine) indexMessage(tx *store.Tx, k shardKey, m documents.Message) error {
	if m.Deleted {
		return tx.DeleteMessage(k.id(), m.ID)
	}
	// The author's name is set when the row is read: names change.
	msg := Message{ID: m.ID.String(), Author: hexID(m.Author).hex(), Time: m.Time.UTC(), Text: m.Text, Edited: !m.Edited.IsZero(), Mentioned: mentionsOf(m.Mentions)}
	v, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	me := e.meta.User.hex()
	return tx.PutMessage(store.IndexedMessage{Shard: k.id(), ID: m.ID, Time: m.Time.UnixMilli(), Value: v,
		ByOther: msg.Author != me, MentionsMe: msg.Mentions(me)}, m.Text)
}

// buildIndex indexes the shards stored before the index existed, once.
func (e *Engine) buildIndex(ctx context.Context) error {
	return e.db.update(ctx, func(t *txn) error {
		built, err := t.tx.MessageIndexBuilt()
		if err != nil || built {
			return err
		}
		ids, err := t.tx.AllShards()
		if err != nil {
			return err
		}
		for _, id := range ids {
			k := shardKey{identity.GroupID(id.Group), documents.Day(id.Day), id.Epoch}
			s, err := e.readShard(t.tx, k)
			if err != nil {
				return err
			}
			for _, m := range s.Messages() {
				if err := e.indexMessage(t.tx, k, m); err != nil {
					return err
				}
			}
		}
		return t.tx.SetMessageIndexBuilt()
	})
}

// readShard loads a stored shard, read-only, without keeping it.
func (e *Engine) readShard(tx *store.Tx, k shardKey) (*documents.Shard, error) {
	b, logs, ok, err := tx.Shard(k.id())
	if err != nil {
		return nil, err
	}
	ro := documents.Options{Clock: e.now}
	var s *documents.Shard
	if ok {
		s, err = documents.LoadShard(wire.ID(k.group), k.day, b, nil, ro)
	} else {
		s, err = documents.NewShard(wire.ID(k.group), k.day, ro)
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
	return s, nil
}

// ErrBadCursor is returned for a page cursor naming no message of the channel.
var ErrBadCursor = errcode.New("history/bad_cursor", "that message is not in this channel's history; open the channel again")

// MaxPage bounds the messages of one MessagesBefore call.
const MaxPage = 1000

// MessagesBefore returns up to limit (1 to MaxPage) messages of a channel
// older than the message with id before ("" for the newest), oldest first,
// and whether older ones remain. It reads the message index only.
func (e *Engine) MessagesBefore(ctx context.Context, channel, before string, limit int) ([]Message, bool, error) {
	return e.historyBefore(ctx, channel, before, limit, false)
}

// TimelineBefore is MessagesBefore with #general's join notices
// (joined.go) among the messages: the channel as the desktop shows it.
func (e *Engine) TimelineBefore(ctx context.Context, channel, before string, limit int) ([]Message, bool, error) {
	return e.historyBefore(ctx, channel, before, limit, true)
}

func (e *Engine) historyBefore(ctx context.Context, channel, before string, limit int, withNotices bool) ([]Message, bool, error) {
	if limit < 1 || limit > MaxPage {
		return nil, false, fmt.Errorf("%w: a page holds 1 to %d messages", ErrBadPage, MaxPage)
	}
	e.mu.Lock()
	gi, err := e.resolveChannel(channel)
	var notices []joinNotice
	if err == nil && withNotices {
		notices = e.joinNotices(gi.Policy.Group)
	}
	e.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	group := [32]byte(gi.Policy.Group)
	var rows []store.IndexedMessage
	var cur *store.MessageCursor
	err = e.db.view(ctx, func(tx *store.Tx) error {
		if before != "" {
			id, err := documents.ParseMessageID(before)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrBadCursor, before)
			}
			at, err := tx.MessagesByID(group, id)
			if err != nil {
				return err
			}
			if len(at) > 0 {
				cur = &store.MessageCursor{Time: at[0].Time, ID: id}
			} else if n, ok := noticeAt(notices, id); ok {
				cur = &n
			} else {
				return fmt.Errorf("%w: %s", ErrBadCursor, before)
			}
		}
		rows, err = tx.MessagesBefore(group, cur, limit+1)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	items := withJoinNotices(rows, notices, cur, limit+1)
	more := len(items) > limit
	if more {
		items = items[:limit]
	}
	out := make([]Message, len(items))
	for i, it := range items {
		m := &out[len(items)-1-i]
		if it.notice != nil {
			*m = *it.notice
			continue
		}
		if err := json.Unmarshal(it.row.Value, m); err != nil {
			return nil, false, fmt.Errorf("engine: indexed message: %w", err)
		}
	}
	e.nameAuthors(out)
	e.withPendingChanges(hexID(group), out)
	return out, more, nil
}

// messagesSince returns a channel's messages newer than after, oldest
// first, reading the index a page at a time from the newest.
func (e *Engine) messagesSince(ctx context.Context, channel string, after time.Time) ([]Message, error) {
	var out []Message
	before := ""
	for {
		page, more, err := e.MessagesBefore(ctx, channel, before, MaxPage)
		if err != nil {
			return nil, err
		}
		i := sort.Search(len(page), func(i int) bool { return page[i].Time.After(after) })
		out = append(append([]Message{}, page[i:]...), out...)
		if !more || i > 0 || len(page) == 0 {
			return out, nil
		}
		before = page[0].ID
	}
}

// SearchResult is one message found by Search, with its channel.
type SearchResult struct {
	Channel     string  `json:"channel"` // group id (hex)
	ChannelName string  `json:"channel_name"`
	Message     Message `json:"message"`
}

// Search finds messages of the local history holding every word of query
// (the last one also as a prefix), newest first, in one channel or (channel
// "") every channel this device can read; at most limit (1 to
// store.MaxSearchResults).
func (e *Engine) Search(ctx context.Context, query, channel string, limit int) ([]SearchResult, error) {
	if limit < 1 || limit > store.MaxSearchResults {
		return nil, fmt.Errorf("%w: at most %d results", store.ErrBadQuery, store.MaxSearchResults)
	}
	e.mu.Lock()
	var only *[32]byte
	names := map[[32]byte]string{}
	for _, g := range e.roster.Groups() {
		if !g.Deleted {
			names[[32]byte(g.Policy.Group)] = g.Name
		}
	}
	if channel != "" {
		gi, err := e.resolveChannel(channel)
		if err != nil {
			e.mu.Unlock()
			return nil, err
		}
		id := [32]byte(gi.Policy.Group)
		only = &id
	}
	e.mu.Unlock()
	var rows []store.IndexedMessage
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		rows, err = tx.SearchMessages(query, only, limit)
		return err
	}); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(rows))
	for _, r := range rows {
		name, ok := names[r.Shard.Group]
		if !ok {
			continue // a deleted channel
		}
		var m Message
		if err := json.Unmarshal(r.Value, &m); err != nil {
			return nil, fmt.Errorf("engine: indexed message: %w", err)
		}
		out = append(out, SearchResult{Channel: hexID(r.Shard.Group).hex(), ChannelName: name, Message: m})
	}
	e.mu.Lock()
	for i := range out {
		out[i].Message.AuthorName = e.authorName(out[i].Message.Author)
	}
	e.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Message.Time.After(out[j].Message.Time) })
	return out, nil
}

// The JSON encoder of Message (the index rows) is built once at start
// rather than by whichever engines of a process index first: with two
// engines in one test process indexing at once, the race detector reported
// encoding/json's own field cache as racing (typeFields' sort against
// structEncoder.encode), in 3 of 96 runs of TestAgentOutputShowsInActivity
// under -race (once in a fresh-clone make test); 0 of 84 with this. The
// cause inside encoding/json or the detector is not found: a program doing
// only the two concurrent first Marshals of the same type did not report it
// in 300 runs.
func init() { _, _ = json.Marshal(Message{}) }
