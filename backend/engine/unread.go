package engine

import (
	"context"
	"time"

	"weald/backend/identity"
	"weald/backend/store"
)

// Unread counts per channel (issue 17; docs/protocol/store.md "Unread
// counts"): the store keeps each channel's read marker and the number of
// messages by others after it, and of those the ones mentioning this user,
// updated with the message index in the transaction that stores a message,
// an edit or a delete. Listing them reads one row per channel.

// UnreadCount is a channel's unread messages and, of those, the ones that
// mention you.
type UnreadCount struct {
	Unread   int `json:"unread"`
	Mentions int `json:"mentions"`
}

// UnreadCounts returns the unread counts of every channel that has any,
// by group id (hex).
func (e *Engine) UnreadCounts(ctx context.Context) (map[string]UnreadCount, error) {
	var cs []store.ChannelCount
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		cs, err = tx.ChannelCounts()
		return err
	}); err != nil {
		return nil, err
	}
	out := make(map[string]UnreadCount, len(cs))
	for _, c := range cs {
		if c.Unread > 0 || c.Mentions > 0 {
			out[hexID(c.Group).hex()] = UnreadCount{Unread: c.Unread, Mentions: c.Mentions}
		}
	}
	return out, nil
}

// MarkAllRead moves a channel's read marker to its newest message and
// returns that message's time (Unix ms; 0 for a channel without messages).
func (e *Engine) MarkAllRead(ctx context.Context, channel string) (int64, error) {
	e.mu.Lock()
	gi, err := e.resolveChannel(channel)
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	var newest int64
	var ok bool
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		newest, ok, err = tx.NewestMessageTime([32]byte(gi.Policy.Group))
		return err
	}); err != nil || !ok {
		return 0, err
	}
	return newest, e.markRead(ctx, gi.Policy.Group, newest)
}

func (e *Engine) markRead(ctx context.Context, group identity.GroupID, upTo int64) error {
	moved := false
	if err := e.db.update(ctx, func(t *txn) (err error) {
		moved, err = t.tx.MarkRead([32]byte(group), upTo)
		return err
	}); err != nil {
		return err
	}
	if moved {
		e.mu.Lock()
		e.emit(Event{Kind: EventChannels})
		e.mu.Unlock()
	}
	return nil
}

// seedReadMarks carries the read markers kept in the workspace record
// before the store kept them into the store (a marker never moves back, so
// this is a no-op once done).
func (e *Engine) seedReadMarks(ctx context.Context) error {
	for k, at := range e.meta.ReadUpTo {
		var g hexID
		if err := g.UnmarshalText([]byte(k)); err != nil {
			continue
		}
		if err := e.markReadQuiet(ctx, identity.GroupID(g), at); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) markReadQuiet(ctx context.Context, group identity.GroupID, at time.Time) error {
	return e.db.update(ctx, func(t *txn) error {
		_, err := t.tx.MarkRead([32]byte(group), at.UnixMilli())
		return err
	})
}
