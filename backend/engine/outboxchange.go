package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"unicode/utf8"

	"weald/backend/documents"
	"weald/backend/roster"
)

// Edits and deletes of one's own messages through the outbox (issue 17
// item 4; docs/protocol/documents.md "Chat shard"): QueueEdit and
// QueueDelete check what can be checked here (the message is this user's,
// not deleted, an edit is of the current key) and put the change in the
// outbox after everything typed before it, so it waits offline, survives a
// restart and goes out by itself on reconnect in the order it was made. A
// change of a message still waiting in the outbox is made where it waits
// (the text replaced, or the message dropped), so it can never overtake it.
// Until sent, pages show the message as changed with the outbox's state
// (Message.Change).

// Outbox item operations (outboxItem.Op); "" is a new message.
const (
	OpEdit   = "edit"
	OpDelete = "delete"
)

// maxSentIDs bounds the outbox ids remembered with the id their message got.
const maxSentIDs = 1024

// QueueEdit puts an edit of one of this user's messages of a channel in the
// outbox and returns the message as it will read, pending.
func (e *Engine) QueueEdit(ctx context.Context, channel, id, text string) (Message, error) {
	if text == "" || len(text) > documents.MaxTextBytes || !utf8.ValidString(text) {
		return Message{}, documents.ErrBadText
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return Message{}, err
	}
	group, id := hexID(gi.Policy.Group), e.sentID(id)
	if i := e.outboxPost(group, id); i >= 0 {
		it := e.outbox[i]
		it.Text, it.Failed = text, ""
		if _, err := e.docMentions(text, it.Mentions); err != nil {
			it.Mentions = nil // the spans marked the old text
		}
		if err := e.changedOutbox(ctx, group, e.with(i, it)); err != nil {
			return Message{}, err
		}
		return e.outboxMessage(&it), nil
	}
	m, err := e.checkOwn(ctx, gi, id, true)
	if err != nil {
		return Message{}, err
	}
	it, err := e.newChange(group, OpEdit, id, text)
	if err != nil {
		return Message{}, err
	}
	items := []outboxItem{}
	for _, x := range e.outbox {
		if x.Target == id && x.Op == OpDelete {
			return Message{}, documents.ErrDeleted
		}
		if x.Target != id { // a newer edit replaces one waiting
			items = append(items, x)
		}
	}
	if err := e.changedOutbox(ctx, group, append(items, it)); err != nil {
		return Message{}, err
	}
	return pendingChange(m, &it), nil
}

// QueueDelete puts a delete of one of this user's messages of a channel in
// the outbox (replacing a waiting edit of it).
func (e *Engine) QueueDelete(ctx context.Context, channel, id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return err
	}
	group, id := hexID(gi.Policy.Group), e.sentID(id)
	if i := e.outboxPost(group, id); i >= 0 {
		return e.changedOutbox(ctx, group, e.without(i))
	}
	if _, err := e.checkOwn(ctx, gi, id, false); err != nil {
		return err
	}
	it, err := e.newChange(group, OpDelete, id, "")
	if err != nil {
		return err
	}
	items := []outboxItem{}
	for _, x := range e.outbox {
		if x.Target == id && x.Op == OpDelete {
			return nil // already waiting
		}
		if x.Target != id {
			items = append(items, x)
		}
	}
	return e.changedOutbox(ctx, group, append(items, it))
}

// checkOwn returns this user's message id of a channel this device is in,
// refusing one it could not change now (ownShard's and the shard's checks).
func (e *Engine) checkOwn(ctx context.Context, gi roster.GroupInfo, id string, edit bool) (Message, error) {
	mid, err := documents.ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return Message{}, ErrNotMember
	}
	_, sh, _, err := e.ownShard(ctx, g, gi, mid, edit)
	if err != nil {
		return Message{}, err
	}
	m, err := sh.s.Message(mid)
	switch {
	case err != nil:
		return Message{}, err
	case m.Deleted:
		return Message{}, documents.ErrDeleted
	case m.Author != e.docOptions().Principal:
		return Message{}, documents.ErrNotAuthor
	}
	return e.toMessage(m), nil
}

func (e *Engine) newChange(group hexID, op, target, text string) (outboxItem, error) {
	if len(e.outbox) >= MaxOutbox {
		return outboxItem{}, ErrOutboxFull
	}
	var rid [8]byte
	if _, err := io.ReadFull(e.rand, rid[:]); err != nil {
		return outboxItem{}, err
	}
	return outboxItem{ID: "out-" + hex.EncodeToString(rid[:]), Group: group, Text: text, Queued: e.now().UTC(), Op: op, Target: target}, nil
}

// changedOutbox stores items as the outbox, says the channel changed and
// wakes Run.
func (e *Engine) changedOutbox(ctx context.Context, group hexID, items []outboxItem) error {
	if err := e.setOutbox(ctx, items); err != nil {
		return err
	}
	e.emit(Event{Kind: EventMessages, Channel: group.hex()})
	e.kickOutbox()
	return nil
}

// outboxPost returns the index of new message id of group in the outbox, or -1.
func (e *Engine) outboxPost(group hexID, id string) int {
	for i := range e.outbox {
		if it := &e.outbox[i]; it.ID == id && it.Op == "" && it.Group == group {
			return i
		}
	}
	return -1
}

// noteSent remembers that outbox message out went out as message id, so a
// change made through a page read before it went out finds it.
func (e *Engine) noteSent(out, id string) {
	if e.sentAs == nil || len(e.sentAs) >= maxSentIDs {
		e.sentAs = map[string]string{}
	}
	e.sentAs[out] = id
}

func (e *Engine) sentID(id string) string {
	if s, ok := e.sentAs[id]; ok {
		return s
	}
	return id
}

// sendItem sends one outbox item (e.mu held, connected); also runs in the
// transaction that stores it. A delete of a message deleted meanwhile is done.
func (e *Engine) sendItem(ctx context.Context, gi roster.GroupInfo, it *outboxItem, also func(t *txn) error) (Message, error) {
	if it.Op == "" {
		return e.sendText(ctx, gi, post{Text: it.Text, Mentions: it.Mentions}, also)
	}
	mid, err := documents.ParseMessageID(it.Target)
	if err != nil {
		return Message{}, err
	}
	if it.Op == OpEdit {
		return e.sendOwnChange(ctx, gi, mid, editTo(it.Text), true, also)
	}
	m, err := e.sendOwnChange(ctx, gi, mid, deleteOwn, false, also)
	if errors.Is(err, documents.ErrDeleted) {
		return m, e.db.update(ctx, also)
	}
	return m, err
}

// pendingChange is m as the waiting change it makes to it shows it.
func pendingChange(m Message, it *outboxItem) Message {
	m.Change, m.State, m.Error = it.Op, OutboxPending, ""
	if it.Failed != "" {
		m.State, m.Error = OutboxFailed, it.Failed
	}
	if it.Op == OpEdit {
		m.Text, m.Edited, m.Mentioned = it.Text, true, nil
	}
	return m
}

// withPendingChanges shows the changes waiting in the outbox on the
// messages of group in ms.
func (e *Engine) withPendingChanges(group hexID, ms []Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	byTarget := map[string]*outboxItem{}
	for i := range e.outbox {
		if it := &e.outbox[i]; it.Op != "" && it.Group == group {
			byTarget[it.Target] = it
		}
	}
	if len(byTarget) == 0 {
		return
	}
	for i := range ms {
		if it := byTarget[ms[i].ID]; it != nil {
			ms[i] = pendingChange(ms[i], it)
		}
	}
}
