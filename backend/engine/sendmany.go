package engine

import (
	"context"
	"time"

	"weald/backend/documents"
	"weald/backend/groups"
	"weald/backend/roster"
	"weald/backend/wire"
)

// sendManyBatch is how many messages SendMany puts in one relay request and
// one local transaction: a quarter of the relay's default batch limit
// (relay.DefaultMaxBatch, limit/batch_size), so a relay configured smaller
// still takes them.
const sendManyBatch = 64

// SendMany posts texts to a channel, in order, as Send would one by one:
// each its own Automerge change in its own content envelope, each at least
// a millisecond after the one before (postTime); after each batch it waits
// for the clock to pass the batch's last (settle), so a message posted next
// reads after them. Up to
// sendManyBatch of them go to the relay in one request, accepted all or
// none, and into the local store in one transaction, instead of a round
// trip and a commit each (an import, a pasted list of lines). On an error
// the messages of the batches before it are sent and returned; the rest
// are not.
func (e *Engine) SendMany(ctx context.Context, channel string, texts []string) ([]Message, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(texts))
	var last time.Time // the time of the last message posted
	for len(texts) > 0 {
		n := min(len(texts), sendManyBatch)
		posts := make([]post, n)
		for i, t := range texts[:n] {
			posts[i] = post{Text: t}
		}
		ms, err := e.sendPosts(ctx, gi, posts, &last)
		if err != nil {
			return out, err
		}
		e.settle(last)
		out = append(out, ms...)
		texts = texts[n:]
	}
	return out, nil
}

// sendPosts is sendText for several posts in one batch (e.mu held,
// connected): every post's change is made in its day's shard at its
// postTime after *last (then the last post's time), sealed in an envelope of
// its own, and the envelopes are sent together; the shards
// are stored, the messages indexed and the group saved in one transaction.
// When the send fails the shards it changed are forgotten (the stored ones
// never held the changes).
func (e *Engine) sendPosts(ctx context.Context, gi roster.GroupInfo, posts []post, last *time.Time) ([]Message, error) {
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return nil, ErrNotMember
	}
	if err := e.catchUp(ctx, g); err != nil {
		return nil, err
	}
	scheme, kid, ep, key, err := e.contentKey(g, &gi.Policy)
	if err != nil {
		return nil, err
	}
	mentions := make([][]documents.Mention, len(posts))
	for i, p := range posts { // every post checked before any shard changes
		if mentions[i], err = e.docMentions(p.Text, p.Mentions); err != nil {
			return nil, err
		}
	}
	type sent struct {
		sh      *shard
		m       documents.Message
		changes []byte
	}
	items := make([]sent, len(posts))
	pts := make([][]byte, len(posts))
	changed := map[shardKey]bool{}
	forget := func() {
		for sk := range changed {
			delete(e.shards, sk)
		}
	}
	for i, p := range posts {
		at := e.postTime(*last)
		day, err := documents.DayOf(at)
		if err != nil {
			forget()
			return nil, err
		}
		sk := shardKey{gi.Policy.Group, day, ep}
		sh, err := e.shardFor(ctx, sk)
		if err != nil {
			forget()
			return nil, err
		}
		changed[sk] = true
		m, changes, err := sh.s.PostAt(at, p.Text, mentions[i])
		if err != nil {
			forget()
			return nil, err
		}
		*last = m.Time
		payload := documents.Payload{Docs: []documents.DocChanges{{Ref: documents.DocRef{Kind: documents.KindChat, Day: day}, Changes: changes}}}
		pt, err := payload.Encode()
		if err != nil {
			forget()
			return nil, err
		}
		items[i], pts[i] = sent{sh, m, changes}, pt
	}
	seqs, err := e.sendBuilt(ctx, g, len(posts), func(i int, env *wire.Envelope) error {
		c, err := groups.SealContent(e.rand, scheme, kid, ep, key, env.Group, wire.ID(e.devID), env.Ctr, pts[i])
		if err != nil {
			return err
		}
		env.Kind, env.CT = wire.KindContent, c.Encode()
		return nil
	})
	if err != nil {
		forget()
		return nil, err
	}
	out := make([]Message, len(items))
	for i, it := range items {
		it.sh.record(wire.ID(e.devID), it.changes)
		it.sh.touch(it.m.ID)
		g.rec.Retention.noteChange(e.now())
		if seqs[i] == g.rec.LastSeq+1 {
			g.rec.LastSeq = seqs[i]
		}
		out[i] = e.toMessage(it.m)
	}
	if err := e.db.update(ctx, func(t *txn) error {
		if err := e.saveShards(t); err != nil {
			return err
		}
		return e.saveGroup(t, g)
	}); err != nil {
		return nil, err
	}
	e.emit(Event{Kind: EventMessages, Channel: hexID(g.rec.ID).hex()})
	return out, nil
}

// postTime is the time to post a batch's next message at, last the time of
// the one before (zero for none): the clock's, or a millisecond after last
// when the clock has not passed it yet, so that the messages read in the
// order they were posted; SendMany then settles, so the lead never
// outlives the call.
func (e *Engine) postTime(last time.Time) time.Time {
	at := e.now()
	if !last.IsZero() && at.UnixMilli() <= last.UnixMilli() {
		return last.Add(time.Millisecond)
	}
	return at
}

// settle waits until the clock has passed t, the time of the last message
// posted (a batch runs ahead of the clock by at most a millisecond a
// message), so that the next one posted, by this engine or by one opened
// later, reads after it. A clock that stands still across a
// millisecond's sleep (a test's) is not waited for.
func (e *Engine) settle(t time.Time) {
	for i := 0; i < 2*sendManyBatch && !t.IsZero(); i++ {
		now := e.now()
		if now.UnixMilli() > t.UnixMilli() {
			return
		}
		time.Sleep(time.Millisecond)
		if !e.now().After(now) {
			return
		}
	}
}
