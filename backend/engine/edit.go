package engine

import (
	"context"
	"fmt"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/store"
)

// Editing and deleting one's own messages (issue 17 item 10;
// docs/protocol/documents.md "Chat shard"): a later Automerge change to the
// message's own day shard, sent like a post in one content envelope of the
// channel. Receivers apply it only when its author's device created the
// message (documents checkOps: a change writing into another author's
// message is refused, docs/forbidden), so nobody edits or deletes what
// someone else wrote, whatever their client does. A deleted message leaves
// the message index, so it leaves every reader's history.

// ErrEarlierEpoch refuses an edit that would have to be sealed under a
// closed channel's earlier key, which people removed since may hold.
var ErrEarlierEpoch = errcode.New("docs/earlier_epoch", "this message was sent before the channel's keys last changed, so it can only be deleted, not edited")

// Edit replaces the text of one of this user's messages of a channel.
func (e *Engine) Edit(ctx context.Context, channel, id, text string) (Message, error) {
	return e.changeOwn(ctx, channel, id, editTo(text), true)
}

// Delete deletes one of this user's messages of a channel.
func (e *Engine) Delete(ctx context.Context, channel, id string) error {
	_, err := e.changeOwn(ctx, channel, id, deleteOwn, false)
	return err
}

func editTo(text string) ownChange {
	return func(s *documents.Shard, mid documents.MessageID) ([]byte, error) { return s.Edit(mid, text) }
}

func deleteOwn(s *documents.Shard, mid documents.MessageID) ([]byte, error) { return s.Delete(mid) }

func (e *Engine) changeOwn(ctx context.Context, channel, id string, change ownChange, edit bool) (Message, error) {
	mid, err := documents.ParseMessageID(id)
	if err != nil {
		return Message{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return Message{}, err
	}
	if g := e.groups[gi.Policy.Group]; g == nil || g.mls == nil {
		return Message{}, ErrNotMember
	}
	if err := e.connect(ctx); err != nil {
		return Message{}, err
	}
	return e.sendOwnChange(ctx, gi, mid, change, edit, nil)
}

// ownChange makes a change to one's own message id of a shard.
type ownChange func(*documents.Shard, documents.MessageID) ([]byte, error)

// sendOwnChange is changeOwn with e.mu held and connected; also, when set,
// runs in the transaction that stores the change (as in sendText).
func (e *Engine) sendOwnChange(ctx context.Context, gi roster.GroupInfo, mid documents.MessageID, change ownChange, edit bool, also func(t *txn) error) (Message, error) {
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return Message{}, ErrNotMember
	}
	if err := e.catchUp(ctx, g); err != nil {
		return Message{}, err
	}
	sk, sh, k, err := e.ownShard(ctx, g, gi, mid, edit)
	if err != nil {
		return Message{}, err
	}
	changes, err := change(sh.s, mid)
	if err != nil {
		delete(e.shards, sk) // nothing was changed, but keep memory equal to the store
		return Message{}, err
	}
	if err := e.sendChange(ctx, g, sk, sh, k, changes, mid, also); err != nil {
		return Message{}, err
	}
	m, err := sh.s.Message(mid)
	if err != nil {
		return Message{}, err
	}
	return e.toMessage(m), nil
}

// ownShard finds the shard holding message mid of group g and the key a
// change to it is sealed under.
func (e *Engine) ownShard(ctx context.Context, g *group, gi roster.GroupInfo, mid documents.MessageID, edit bool) (shardKey, *shard, contentKey, error) {
	sk, err := e.shardOf(ctx, gi.Policy.Group, mid)
	if err != nil {
		return sk, nil, contentKey{}, err
	}
	k, err := e.keyForShard(g, &gi.Policy, sk, edit)
	if err != nil {
		return sk, nil, contentKey{}, err
	}
	sh, err := e.shardFor(ctx, sk)
	return sk, sh, k, err
}

// shardOf finds the shard holding message id of group in the index.
func (e *Engine) shardOf(ctx context.Context, group identity.GroupID, id documents.MessageID) (shardKey, error) {
	var rows []store.IndexedMessage
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		rows, err = tx.MessagesByID([32]byte(group), id)
		return err
	}); err != nil {
		return shardKey{}, err
	}
	if len(rows) == 0 {
		return shardKey{}, fmt.Errorf("%w: %s", documents.ErrNotFound, id)
	}
	r := rows[0].Shard
	return shardKey{group, documents.Day(r.Day), r.Epoch}, nil
}

// keyForShard returns the key a change to shard sk is sealed under: the
// channel's content key when the shard is of the current key (an open
// channel's shards all are), else, for a delete only, the earlier epoch's
// key, which receivers file the change under.
func (e *Engine) keyForShard(g *group, pol *roster.GroupPolicy, sk shardKey, edit bool) (contentKey, error) {
	scheme, kid, ep, key, err := e.contentKey(g, pol)
	if err != nil {
		return contentKey{}, err
	}
	if ep == sk.epoch {
		return contentKey{scheme, kid, ep, key}, nil
	}
	if edit {
		return contentKey{}, ErrEarlierEpoch
	}
	old := g.rec.EpochKeys[fmt.Sprint(sk.epoch)]
	if old == nil {
		return contentKey{}, fmt.Errorf("%w: no key for epoch %d", groups.ErrNoKey, sk.epoch)
	}
	return contentKey{groups.SchemeEpoch, [32]byte{}, sk.epoch, old}, nil
}
