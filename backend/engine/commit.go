package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// A commit of this client, made durable before it is sent
// (docs/protocol/lifecycle.md "A crash inside a commit"). MLS gives the
// committer no way to process its own commit: only the staged commit it
// made can take it to the new epoch. Were the staged commit held in memory
// only, a crash after the relay accepted the commit would leave this client
// in the old epoch, skipping its own commit in the log, while every other
// member moved on: the group forks. So the state after the commit is
// persisted (with the group, in one transaction) before the send, and the
// client that meets its own commit in the log takes that state, whether it
// is the same process or one restarted after a crash.

// pendingRec is a commit of this client persisted before it is sent.
type pendingRec struct {
	Base uint64 `json:"base"` // the epoch the commit was made in
	Msg  []byte `json:"msg"`  // the commit as sent (the envelope's ct)
	Next []byte `json:"next"` // the MLS state after it (mls.StagedCommit.EncodeNext)
	// History: the fresh history key the committer of a Remove in an open
	// group adds (docs/protocol/groups.md), taken with the new epoch.
	History []byte `json:"history,omitempty"`
	// Removed: the credential identities of the leaves it removes.
	Removed [][]byte `json:"removed,omitempty"`
	// Welcome: the Welcome of the members it adds, owed once it merges;
	// WelcomeTo: their credential identities (device or agent ids).
	Welcome   []byte   `json:"welcome,omitempty"`
	WelcomeTo [][]byte `json:"welcome_to,omitempty"`
}

// welcomeNotice is a Welcome this device sent whose notice the relay has
// not confirmed yet (docs/protocol/wire.md "Welcome notices").
type welcomeNotice struct {
	Seq uint64   `json:"seq"`
	To  [][]byte `json:"to"`
}

// ownRemove is this device's latest merged commit that removed leaves:
// a removal resumed after a crash counts the group as rotated by it.
type ownRemove struct {
	Epoch   uint64   `json:"epoch"`
	Removed [][]byte `json:"removed"`
}

// stageCommit creates a commit in g and records it as g's pending commit,
// in memory and in g.rec (persisted with g by the caller before the send).
func (e *Engine) stageCommit(g *group, opts mls.CommitOptions) (*pendingCommit, error) {
	if g.mls == nil || !g.mls.Active() {
		return nil, ErrNotMember
	}
	base := g.mls.Epoch()
	var removed [][]byte
	for _, m := range g.mls.Members() {
		for _, r := range opts.Remove {
			if m.Index == r {
				removed = append(removed, m.Credential.Identity)
			}
		}
	}
	sc, err := g.mls.Commit(opts)
	if err != nil {
		return nil, err
	}
	next, err := sc.EncodeNext()
	if err != nil {
		return nil, err
	}
	rec := &pendingRec{Base: base, Msg: sc.Message, Next: next, Removed: removed, Welcome: sc.Welcome}
	for _, kp := range opts.Add {
		if id, err := mls.KeyPackageIdentity(kp); err == nil {
			rec.WelcomeTo = append(rec.WelcomeTo, id)
		}
	}
	if len(opts.Remove) > 0 {
		// The committer of a Remove adds a fresh history key, so a removed
		// member cannot read what follows (docs/protocol/groups.md).
		if gi, ok := e.roster.Group(identity.GroupID(g.rec.ID)); ok && gi.Policy.History == roster.HistoryOpen {
			hk, err := groups.NewHistoryKey(e.rand)
			if err != nil {
				return nil, err
			}
			rec.History = hk.Key
		}
	}
	p := &pendingCommit{staged: sc, msg: sc.Message, base: base}
	g.pending, g.rec.Pending = p, rec
	return p, nil
}

// mergeOwn takes g to the epoch of msg, a commit of this device met in the
// log: by merging the staged commit held in memory, or else the state
// persisted before it was sent (after a restart). It reports whether msg
// was this device's pending commit for g's current epoch.
func (e *Engine) mergeOwn(g *group, msg []byte) bool {
	rec := g.rec.Pending
	merged := false
	if p := g.pending; p != nil && bytes.Equal(p.msg, msg) && g.mls.Epoch() == p.base {
		if err := g.mls.Merge(p.staged); err == nil {
			p.merged, merged = true, true
		}
	}
	if !merged && rec != nil && bytes.Equal(rec.Msg, msg) && g.mls.Epoch() == rec.Base {
		next, err := mls.LoadGroup(e.mlsCfg, rec.Next)
		if err != nil {
			return false
		}
		g.mls, merged = next, true
		// The standing bundles of the new epoch were not published.
		g.rec.BundleOwed = true
	}
	if !merged {
		return false
	}
	if rec != nil && len(rec.History) > 0 {
		g.history = append(g.history, groups.HistoryKeyOf(rec.History))
	}
	if rec != nil && len(rec.Welcome) > 0 {
		g.rec.WelcomeOwed = rec.Welcome // sent by commitOnce, else by repairBundles
		g.rec.WelcomeTo = rec.WelcomeTo
	}
	if rec != nil && len(rec.Removed) > 0 {
		g.rec.OwnRemove = &ownRemove{Epoch: g.mls.Epoch(), Removed: rec.Removed}
	}
	g.pending, g.rec.Pending = nil, nil
	return true
}

var errLostRace = errcode.New("mls/lost_race", "another commit was applied first")

// commitOnce is commit without retry. Its crash points (Options.Crash):
// commit/staged (persisted, not sent), commit/sent (sent, not merged),
// commit/merged (merged and persisted, the bundles not published).
func (e *Engine) commitOnce(ctx context.Context, g *group, opts mls.CommitOptions) error {
	p, err := e.stageCommit(g, opts)
	if err != nil {
		return err
	}
	if err := e.persistGroup(ctx, g); err != nil {
		g.pending, g.rec.Pending = nil, nil
		return err
	}
	if err := e.crash("commit/staged"); err != nil {
		return err
	}
	if _, err := e.sendCT(ctx, g, wire.KindMLSCommit, p.msg); err != nil {
		// The relay may have taken it (an answer lost): the persisted
		// record merges it when the log shows it.
		g.pending = nil
		return err
	}
	if err := e.crash("commit/sent"); err != nil {
		return err
	}
	if err := e.catchUp(ctx, g); err != nil {
		return err
	}
	g.pending = nil
	if !p.merged {
		return errLostRace
	}
	if err := e.crash("commit/merged"); err != nil {
		return err
	}
	if err := e.sendWelcomeOwed(ctx, g); err != nil {
		return err
	}
	e.rewrapOwn(ctx, g)
	return e.afterCommit(ctx, g)
}

// rewrapOwn sends this user's recovery.wrap of g for the epoch this
// device's own commit just made (spec/lifecycle.md "Ongoing health": a
// stale wrap is "repaired on next commit"), named in the directory at the
// end of the sync. Only the committer's own: a wrap for another person
// could not be named in their directory (the relay takes only wraps of the
// owner's own devices) and would cost one envelope per member per commit.
// The commit is merged already, so a failed send is not its failure: the
// wrap stays stale and the health check sends it.
func (e *Engine) rewrapOwn(ctx context.Context, g *group) {
	if _, ok := e.recoveryKeys(); !ok || g.rec.Health.WrapEpoch >= g.mls.Epoch() {
		return
	}
	_ = e.resendWrap(ctx, g)
}

// commit creates a commit in g, sends it, and catches up until it is
// merged; if another commit wins the epoch it tries again (bounded).
func (e *Engine) commit(ctx context.Context, g *group, opts mls.CommitOptions) error {
	for attempt := 0; attempt < 5; attempt++ {
		err := e.commitOnce(ctx, g, opts)
		if !errors.Is(err, errLostRace) {
			return err
		}
	}
	return errcode.Errorf("mls/busy", "the group kept moving; the commit was not applied")
}

// sendWelcomeOwed sends the Welcome of this device's merged commit that
// added members, if it was not sent yet (a crash after the merge), then
// the notice that tells the relay whom it adds, if not confirmed yet.
func (e *Engine) sendWelcomeOwed(ctx context.Context, g *group) error {
	if len(g.rec.WelcomeOwed) > 0 {
		seq, err := e.sendCT(ctx, g, wire.KindMLSWelcome, g.rec.WelcomeOwed)
		if err != nil {
			return err
		}
		if len(g.rec.WelcomeTo) > 0 {
			g.rec.NoticeOwed = &welcomeNotice{Seq: seq, To: g.rec.WelcomeTo}
		}
		g.rec.WelcomeOwed, g.rec.WelcomeTo = nil, nil
		if err := e.persistGroup(ctx, g); err != nil {
			return err
		}
	}
	return e.sendNotices(ctx, []*group{g})
}

// sendNotices sends the Welcome notices gs owe (docs/protocol/wire.md
// "Welcome notices"), one request per set of added keys for up to 64
// Welcomes (an agent added to many groups is one request), then persists
// those groups in one transaction. A notice stays owed, in the group's
// record, until the relay keeps it: a refused one (limit/rate, a relay
// fault, the log's budget, ...) is sent again at the next sync
// (repairBundles), since without it the added device never learns which
// log to read. Only a refusal that names the request itself as wrong
// (bad_request/: not a Welcome this key sent, a malformed notice) drops
// it, as the relay would refuse it the same way every time.
func (e *Engine) sendNotices(ctx context.Context, gs []*group) error {
	type batch struct {
		refs []wire.WelcomeRef
		to   []wire.ID
		gs   []*group
	}
	var order []*batch
	open := map[string]*batch{} // by added keys, the batch not full yet
	for _, g := range gs {
		n := g.rec.NoticeOwed
		if n == nil {
			continue
		}
		var key []byte
		var to []wire.ID
		for _, id := range n.To {
			if k, ok := wire.IDFromBytes(id); ok {
				to = append(to, k)
				key = append(key, id...)
			}
		}
		b := open[string(key)]
		if b == nil || len(b.refs) == wire.MaxWelcomes {
			b = &batch{to: to}
			open[string(key)] = b
			order = append(order, b)
		}
		b.refs = append(b.refs, wire.WelcomeRef{Group: wire.ID(g.rec.ID), Seq: n.Seq})
		b.gs = append(b.gs, g)
	}
	var done []*group
batches:
	for _, b := range order {
		for to := b.to; len(to) > 0; {
			part := to[:min(len(to), wire.MaxWelcomeTo)]
			err := e.client.WelcomeNotice(ctx, b.refs, part)
			var refused *wire.Error
			if errors.As(err, &refused) {
				if !strings.HasPrefix(string(refused.Code), "bad_request/") {
					continue batches // owed still: sent again at the next sync
				}
				break // the relay would refuse it the same way again
			}
			if err != nil {
				return err
			}
			to = to[len(part):]
		}
		for _, g := range b.gs {
			g.rec.NoticeOwed = nil
			done = append(done, g)
		}
	}
	if len(done) == 0 {
		return nil
	}
	return e.db.update(ctx, func(t *txn) error {
		for _, g := range done {
			if err := e.saveGroup(t, g); err != nil {
				return err
			}
		}
		return nil
	})
}
