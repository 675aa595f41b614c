package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/store"
)

// The outbox holds messages typed while they could not be sent: offline, or
// while the relay restarts. They wait, in order, in the local store (record
// store.RecordOutbox) and go out by themselves once the client is
// connected (Run drains it on connect, on Queue and on its retry timer).
// A message the relay or the channel refuses for good is kept as failed,
// with the reason, until it is sent again (RetryOutbox) or discarded.
//
// Edits and deletes of one's own messages wait in the same outbox, in the
// same order (outboxchange.go): one typed after a send goes out after it.

// Outbox states (Message.State).
const (
	OutboxPending = "pending"
	OutboxFailed  = "failed"
)

// MaxOutbox bounds the messages waiting on one device.
const MaxOutbox = 1000

// ErrOutboxFull and ErrNoOutboxItem are the outbox's refusals.
var (
	ErrOutboxFull   = errcode.Errorf("outbox/full", "%d messages are already waiting to be sent; wait for the connection to come back", MaxOutbox)
	ErrNoOutboxItem = errcode.New("outbox/unknown", "that message is not waiting to be sent")
)

// outboxItem is one waiting message.
type outboxItem struct {
	ID     string    `json:"id"`
	Group  hexID     `json:"group"`
	Text   string    `json:"text"`
	Queued time.Time `json:"queued"`
	Failed string    `json:"failed,omitempty"` // "code: sentence" when not retried by itself
	// Mentions of people in Text, checked when queued and again when sent.
	Mentions []Mention `json:"mentions,omitempty"`
	// Op is "" for a new message, OpEdit (Text replaces the text of
	// message Target) or OpDelete (message Target is deleted).
	Op     string `json:"op,omitempty"`
	Target string `json:"target,omitempty"`
}

func (e *Engine) loadOutbox(ctx context.Context) error {
	b, ok, err := e.db.record(ctx, store.RecordOutbox)
	if err != nil || !ok {
		return err
	}
	if err := json.Unmarshal(b, &e.outbox); err != nil {
		return fmt.Errorf("engine: stored outbox: %w", err)
	}
	return nil
}

// saveOutbox stores items as the outbox in t.
func saveOutbox(t *txn, items []outboxItem) error {
	b, err := json.Marshal(items)
	if err != nil {
		return err
	}
	return t.putRecord(store.RecordOutbox, b)
}

// setOutbox stores items and makes them the outbox.
func (e *Engine) setOutbox(ctx context.Context, items []outboxItem) error {
	if err := e.db.update(ctx, func(t *txn) error { return saveOutbox(t, items) }); err != nil {
		return err
	}
	e.outbox = items
	return nil
}

// without returns the outbox without its item i (a new slice).
func (e *Engine) without(i int) []outboxItem {
	return append(append([]outboxItem{}, e.outbox[:i]...), e.outbox[i+1:]...)
}

// with returns the outbox with its item i replaced by it (a new slice).
func (e *Engine) with(i int, it outboxItem) []outboxItem {
	out := append([]outboxItem{}, e.outbox...)
	out[i] = it
	return out
}

// Queue puts text in the outbox of a channel this device is a member of
// and returns it as a pending message at once; Run sends it when it can.
// Mentions, when given, mark "@name" spans of text as references to people.
func (e *Engine) Queue(ctx context.Context, channel, text string, mentions ...Mention) (Message, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return Message{}, err
	}
	if !e.member(gi.Policy.Group) {
		return Message{}, ErrNotMember
	}
	return e.enqueue(ctx, gi.Policy.Group, text, mentions...)
}

// enqueue is Queue's work for group id, with e.mu held.
func (e *Engine) enqueue(ctx context.Context, id identity.GroupID, text string, mentions ...Mention) (Message, error) {
	if len(e.outbox) >= MaxOutbox {
		return Message{}, ErrOutboxFull
	}
	if _, err := e.docMentions(text, mentions); err != nil {
		return Message{}, err
	}
	var rid [8]byte
	if _, err := io.ReadFull(e.rand, rid[:]); err != nil {
		return Message{}, err
	}
	it := outboxItem{ID: "out-" + hex.EncodeToString(rid[:]), Group: hexID(id), Text: text, Queued: e.now().UTC(), Mentions: mentions}
	if err := e.setOutbox(ctx, append(append([]outboxItem{}, e.outbox...), it)); err != nil {
		return Message{}, err
	}
	e.emit(Event{Kind: EventMessages, Channel: it.Group.hex()})
	e.kickOutbox()
	return e.outboxMessage(&it), nil
}

func (e *Engine) kickOutbox() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *Engine) outboxMessage(it *outboxItem) Message {
	m := Message{ID: it.ID, Author: e.meta.User.hex(), AuthorName: e.userName(identity.UserID(e.meta.User)), Device: hexID(e.devID).hex(), Time: it.Queued, Text: it.Text, Mentioned: it.Mentions, State: OutboxPending}
	if it.Failed != "" {
		m.State, m.Error = OutboxFailed, it.Failed
	}
	return m
}

// Outbox returns the messages of a channel waiting in this device's outbox,
// oldest first.
func (e *Engine) Outbox(channel string) ([]Message, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return nil, err
	}
	out := []Message{}
	for i := range e.outbox {
		if e.outbox[i].Group == hexID(gi.Policy.Group) && e.outbox[i].Op == "" {
			out = append(out, e.outboxMessage(&e.outbox[i]))
		}
	}
	return out, nil
}

// RetryOutbox makes a failed message pending again; DiscardOutbox drops a
// waiting message. id is the outbox item's, or for a waiting edit or delete
// also the id of the message it changes.
func (e *Engine) RetryOutbox(ctx context.Context, id string) error {
	return e.editOutbox(ctx, id, func(it *outboxItem) bool { it.Failed = ""; return true })
}

func (e *Engine) DiscardOutbox(ctx context.Context, id string) error {
	return e.editOutbox(ctx, id, func(*outboxItem) bool { return false })
}

func (e *Engine) editOutbox(ctx context.Context, id string, edit func(*outboxItem) bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.outbox {
		it := e.outbox[i]
		if it.ID != id && (it.Target == "" || it.Target != id) {
			continue
		}
		if edit(&it) {
			if err := e.setOutbox(ctx, e.with(i, it)); err != nil {
				return err
			}
			e.kickOutbox()
		} else if err := e.setOutbox(ctx, e.without(i)); err != nil {
			return err
		}
		e.emit(Event{Kind: EventMessages, Channel: it.Group.hex()})
		return nil
	}
	return ErrNoOutboxItem
}

// outboxWaiting reports whether messages wait to be sent by themselves.
func (e *Engine) outboxWaiting() bool {
	for i := range e.outbox {
		if e.outbox[i].Failed == "" {
			return true
		}
	}
	return false
}

// drainOutbox sends the waiting messages in order while connected (e.mu
// held). It stops at the first one the connection failed for (it is tried
// again on reconnect) and keeps one refused for good as failed.
func (e *Engine) drainOutbox(ctx context.Context) error {
	for i := 0; i < len(e.outbox); {
		if e.client == nil || e.offline.Load() || ctx.Err() != nil {
			return nil
		}
		it := e.outbox[i]
		if it.Failed != "" {
			i++
			continue
		}
		gi, ok := e.roster.Group(identity.GroupID(it.Group))
		var err error
		if !ok || gi.Deleted {
			err = ErrNoChannel
		} else if gi.Policy.Kind == roster.KindDM && !e.member(gi.Policy.Group) {
			i++ // a DM this device is not added to yet: it waits for the Welcome
			continue
		} else {
			sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			rest := e.without(i)
			var sent Message
			sent, err = e.sendItem(sctx, gi, &it, func(t *txn) error { return saveOutbox(t, rest) })
			cancel()
			if err == nil {
				e.outbox = rest
				if it.Op == "" {
					e.noteSent(it.ID, sent.ID)
				}
				continue
			}
		}
		if transient(err) {
			return err
		}
		it.Failed = err.Error()
		if perr := e.setOutbox(ctx, e.with(i, it)); perr != nil {
			return perr
		}
		e.emit(Event{Kind: EventMessages, Channel: it.Group.hex()})
		i++
	}
	return nil
}

// transient reports whether err is the connection's (retried on reconnect)
// rather than a refusal of the message.
func transient(err error) bool {
	var ne net.Error
	return errors.Is(err, relayclient.ErrDisconnected) || errors.Is(err, relayclient.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.As(err, &ne)
}
