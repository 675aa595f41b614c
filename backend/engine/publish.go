package engine

import (
	"context"
	"fmt"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// publishBundles publishes g's groupinfo.publish (and history.publish for
// an open group), sealed under the current root epoch's enrolment key.
func (e *Engine) publishBundles(ctx context.Context, g *group, pol *roster.GroupPolicy) error {
	items, epoch, err := e.bundleItems(g, pol)
	if err != nil || items == nil {
		return err
	}
	// One batch: a reader never sees a GroupInfo without its history keys.
	if _, err := e.sendBatch(ctx, g, items); err != nil {
		return err
	}
	e.bundlesSent(g, pol, epoch)
	return e.persistGroup(ctx, g)
}

// bundleItems seals g's standing bundles under the current root epoch
// (returned): nil items for a group that publishes none.
func (e *Engine) bundleItems(g *group, pol *roster.GroupPolicy) ([]outgoing, uint64, error) {
	if g.mls == nil || pol.Admission != roster.AdmissionParent {
		return nil, 0, nil
	}
	epoch, secret, ok := e.currentEnrol()
	if !ok {
		return nil, 0, fmt.Errorf("%w: not in the workspace root", groups.ErrMissingParent)
	}
	gi, err := g.mls.GroupInfo(true)
	if err != nil {
		return nil, 0, err
	}
	id := [32]byte(g.rec.ID)
	plain := groups.GroupInfoPlain{Epoch: g.mls.Epoch(), GroupInfo: gi}
	sb, err := groups.SealBundle(e.rand, groups.BundleGroupInfo, secret, epoch, id, plain.Encode())
	if err != nil {
		return nil, 0, err
	}
	items := []outgoing{{wire.KindGroupInfoPublish, sb.Encode()}}
	if pol.History == roster.HistoryOpen {
		hp := groups.HistoryPlain{Epoch: g.mls.Epoch(), Keys: g.history}
		hb, err := groups.SealBundle(e.rand, groups.BundleHistory, secret, epoch, id, hp.Encode())
		if err != nil {
			return nil, 0, err
		}
		items = append(items, outgoing{wire.KindHistoryPublish, hb.Encode()})
		if e.hasAgentLeaf(g) {
			// An agent is in no root epoch: its copy is sealed under this
			// group's own epoch (docs/protocol/agents.md "Reading").
			s, err := groups.MemberHistorySecret(g.mls)
			if err != nil {
				return nil, 0, err
			}
			mb, err := groups.SealBundle(e.rand, groups.BundleMemberHistory, s, g.mls.Epoch(), id, hp.Encode())
			if err != nil {
				return nil, 0, err
			}
			items = append(items, outgoing{wire.KindHistoryPublish, mb.Encode()})
		}
	}
	return items, epoch, nil
}

// bundlesSent notes that g's bundles sealed under root epoch were taken.
func (e *Engine) bundlesSent(g *group, pol *roster.GroupPolicy, epoch uint64) {
	if pol.History == roster.HistoryOpen {
		g.rec.Health.noteHistory(epoch)
	}
	g.rec.BundleOwed = false
}

// maxSendEnvelopes is the relay's default bound on the envelopes of one
// SEND (server.Limits.MaxEnvelopesPerRequest); a relay that allows fewer
// refuses, and the groups publish one by one.
const maxSendEnvelopes = 256

// publishBundlesMany publishes the standing bundles of several groups in
// one SEND (after a batch of commits: an agent approved for 20 channels
// republishes 20 groups' bundles in one request), each group's envelopes
// in one run of its own chain, so each group's GroupInfo still travels with
// its history keys. If that SEND is refused or lost, each group publishes
// on its own (publishBundles: a stale chain head is learnt from the log).
func (e *Engine) publishBundlesMany(ctx context.Context, gs []*group) error {
	type pub struct {
		g     *group
		pol   roster.GroupPolicy
		epoch uint64
		n     int
	}
	var pubs []pub
	var envs []wire.Envelope
	for _, g := range gs {
		gi, ok := e.roster.Group(identity.GroupID(g.rec.ID))
		if !ok {
			continue
		}
		items, epoch, err := e.bundleItems(g, &gi.Policy)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			continue
		}
		ctr, prev := g.rec.OwnCtr, wire.ID(g.rec.OwnPrev)
		for _, it := range items {
			ctr++
			env := wire.Envelope{Group: wire.ID(g.rec.ID), Kind: it.kind, Ctr: ctr, Prev: prev, CT: it.ct}
			wire.SignEnvelope(&env, e.edKey)
			prev = env.Hash()
			envs = append(envs, env)
		}
		pubs = append(pubs, pub{g, gi.Policy, epoch, len(items)})
	}
	if len(envs) == 0 {
		return nil
	}
	var acks []wire.AckItem
	var err error
	if len(envs) <= maxSendEnvelopes {
		acks, err = e.client.Send(ctx, envs...)
	}
	if len(envs) > maxSendEnvelopes || err != nil || len(acks) != len(envs) {
		for _, p := range pubs {
			if err := e.publishBundles(ctx, p.g, &p.pol); err != nil {
				return err
			}
		}
		return nil
	}
	i := 0
	for _, p := range pubs {
		i += p.n
		last := envs[i-1]
		p.g.rec.OwnCtr, p.g.rec.OwnPrev = last.Ctr, hexID(last.Hash())
		e.bundlesSent(p.g, &p.pol, p.epoch)
	}
	return e.db.update(ctx, func(t *txn) error {
		for _, p := range pubs {
			if err := e.saveGroup(t, p.g); err != nil {
				return err
			}
		}
		return nil
	})
}

// afterCommit runs after one of this client's commits is merged: every
// commit republishes the group's standing bundles; a root commit re-seals
// every child's bundles under the new root epoch and refreshes the invite
// bundles (docs/protocol/groups.md "When published").
func (e *Engine) afterCommit(ctx context.Context, g *group) error {
	id := identity.GroupID(g.rec.ID)
	gi, ok := e.roster.Group(id)
	if !ok {
		return nil
	}
	if gi.Policy.Kind != roster.KindWorkspace {
		return e.publishBundles(ctx, g, &gi.Policy)
	}
	if err := e.persistGroup(ctx, g); err != nil {
		return err
	}
	for _, c := range e.roster.Groups() {
		if c.Policy.Admission != roster.AdmissionParent || c.Deleted {
			continue
		}
		if err := e.resealChild(ctx, c); err != nil {
			return err
		}
	}
	return e.refreshInviteBundles(ctx)
}

// resealChild republishes child's bundles under the current root epoch: from
// its own state when a member, else by re-sealing the latest bundles it can
// open with an older root epoch's secret, unless the log shows them stale.
func (e *Engine) resealChild(ctx context.Context, c roster.GroupInfo) error {
	if e.member(c.Policy.Group) {
		return e.publishBundles(ctx, e.groups[c.Policy.Group], &c.Policy)
	}
	epoch, secret, ok := e.currentEnrol()
	if !ok {
		return nil
	}
	latest, err := e.latestBundles(ctx, c.Policy.Group)
	if err != nil {
		return err
	}
	if latest.info != nil && latest.stale(latest.info) {
		// A commit landed after it: a joiner could only lose on it. The
		// child's members republish (noteBundle, repairBundles).
		return nil
	}
	g := e.groupState(c.Policy.Group)
	for _, b := range []*openedBundle{latest.info, latest.history} {
		if b == nil || b.rootEpoch == epoch {
			continue
		}
		if err := e.reseal(ctx, g, b, epoch, secret); err != nil {
			return err
		}
	}
	return e.persistGroup(ctx, g)
}

// reseal publishes b's plaintext into g again, sealed under root epoch
// epoch's enrolment secret.
func (e *Engine) reseal(ctx context.Context, g *group, b *openedBundle, epoch uint64, secret []byte) error {
	sb, err := groups.SealBundle(e.rand, b.kind, secret, epoch, [32]byte(g.rec.ID), b.plain)
	if err != nil {
		return err
	}
	k := wire.KindGroupInfoPublish
	if b.kind == groups.BundleHistory {
		k = wire.KindHistoryPublish
	}
	_, err = e.sendCT(ctx, g, k, sb.Encode())
	return err
}

type openedBundle struct {
	kind      groups.BundleKind
	rootEpoch uint64
	plain     []byte
	seq       uint64
	epoch     uint64 // the group epoch it was published at: its GroupInfo's, or its history keys'
}

type bundles struct {
	info, history *openedBundle
	// log is what was read of the group's log: the whole log (full), or
	// the newest groupinfo.publish, history.publish and mls.commit only.
	log    []wire.SeqEnvelope
	full   bool
	readTo uint64 // the log's head seq when read
	// head is the highest epoch a commit of log was made in (anyCommit:
	// the log holds a commit).
	head      uint64
	anyCommit bool
}

// newBundles is what was read of a group's log, before any bundle of it is
// opened.
func newBundles(log []wire.SeqEnvelope, readTo uint64, full bool) *bundles {
	b := &bundles{log: log, readTo: readTo, full: full}
	for _, se := range log {
		if se.Envelope.Kind != wire.KindMLSCommit {
			continue
		}
		if ep, ok := commitEpoch(se.Envelope.CT); ok && (!b.anyCommit || ep > b.head) {
			b.head, b.anyCommit = ep, true
		}
	}
	return b
}

// latestKinds are the kinds a closed group's self-joiner reads
// (FETCH_LATEST): the standing bundles, and the newest commit, which tells
// whether the GroupInfo is of the group's current epoch.
var latestKinds = []wire.Kind{wire.KindGroupInfoPublish, wire.KindHistoryPublish, wire.KindMLSCommit}

// joinBundles reads what a self-joiner of group id needs in one round trip
// (spec/channels.md "The join"): the newest envelope of each latestKinds.
// It reads the whole log instead when the newest group info (or, for an
// open group, the newest history keys) cannot be opened, or the newest
// commit does not show that the GroupInfo is current.
//
// A GroupInfo the log shows stale (a commit for its epoch or a later one
// is in the log) is refused with groups.ErrStaleInfo: an external commit on it
// can only lose, and each lost one counts against the joiner's hourly
// limit. A member republishes it at its next sync (noteBundle).
func (e *Engine) joinBundles(ctx context.Context, id identity.GroupID, open bool) (*bundles, error) {
	b, err := e.latestBundles(ctx, id)
	if err != nil {
		return nil, err
	}
	if !b.full && !(b.current() && (!open || b.history != nil)) {
		if b, err = e.allBundles(ctx, id); err != nil {
			return nil, err
		}
	}
	if b.info != nil && b.stale(b.info) {
		return nil, groups.ErrStaleInfo
	}
	return b, nil
}

// latestBundles opens the newest groupinfo.publish and history.publish of
// group id (FETCH_LATEST); when the newest group info cannot be opened by
// this client, it reads the whole log (allBundles).
func (e *Engine) latestBundles(ctx context.Context, id identity.GroupID) (*bundles, error) {
	lt, err := e.client.FetchLatest(ctx, wire.ID(id), latestKinds...)
	if err != nil {
		return nil, err
	}
	out := newBundles(lt.Envelopes, lt.HeadSeq, false)
	e.openBundles(id, out)
	if out.info == nil {
		return e.allBundles(ctx, id)
	}
	return out, nil
}

// current reports whether b's GroupInfo is of the epoch b's newest commit
// created (or the log holds no commit and the GroupInfo is of epoch 0).
func (b *bundles) current() bool {
	if !b.anyCommit {
		return b.info.epoch == 0
	}
	return b.info.epoch == b.head+1
}

// stale reports whether ob, a bundle of b, was published at an epoch the
// log has a commit for: the group has moved past it. (A GroupInfo ahead of
// every commit read is not stale: compaction drops old commits.)
func (b *bundles) stale(ob *openedBundle) bool {
	return b.anyCommit && b.head >= ob.epoch
}

// allBundles reads the group's whole log and opens the latest
// groupinfo.publish and history.publish this client holds a root secret for.
func (e *Engine) allBundles(ctx context.Context, id identity.GroupID) (*bundles, error) {
	envs, err := e.fetchAll(ctx, wire.ID(id), 0)
	if err != nil {
		return nil, err
	}
	var readTo uint64
	if len(envs) > 0 {
		readTo = envs[len(envs)-1].Seq
	}
	out := newBundles(envs, readTo, true)
	e.openBundles(id, out)
	return out, nil
}

// openBundles opens, newest first, the groupinfo.publish and
// history.publish of b.log this client holds a root secret for, and keeps
// of each kind the one of the highest epoch: the newest by seq unless a
// device published an older bundle after it (a re-seal of what it read
// before a commit landed). The walk stops once both are current.
func (e *Engine) openBundles(id identity.GroupID, out *bundles) {
	envs := out.log
	for i := len(envs) - 1; i >= 0; i-- {
		if out.info != nil && out.history != nil && !out.stale(out.info) && !out.stale(out.history) {
			return
		}
		env := &envs[i].Envelope
		var kind groups.BundleKind
		switch env.Kind {
		case wire.KindGroupInfoPublish:
			kind = groups.BundleGroupInfo
		case wire.KindHistoryPublish:
			kind = groups.BundleHistory
		default:
			continue
		}
		have := out.info
		if kind == groups.BundleHistory {
			have = out.history
		}
		if have != nil && !out.stale(have) {
			continue
		}
		pub, ok := e.devicePub(env.Author)
		if !ok || wire.VerifyEnvelope(env, pub) != nil {
			continue
		}
		ob, ok := e.openRootBundle(kind, id, env.CT)
		if !ok || (have != nil && ob.epoch <= have.epoch) {
			continue
		}
		ob.seq = envs[i].Seq
		if kind == groups.BundleGroupInfo {
			out.info = ob
		} else {
			out.history = ob
		}
	}
}

// openRootBundle opens ct, a sealed bundle of kind for group id, under the
// root epoch's enrolment secret it names, and reads the group epoch it was
// published at; ok is false when this client holds no such secret or the
// bundle does not open or decode.
func (e *Engine) openRootBundle(kind groups.BundleKind, id identity.GroupID, ct []byte) (*openedBundle, bool) {
	sb, err := groups.DecodeSealedBundle(ct)
	if err != nil {
		return nil, false
	}
	secret, ok := e.enrolSecret(sb.RootEpoch)
	if !ok {
		return nil, false
	}
	pt, err := groups.OpenBundle(kind, secret, [32]byte(id), sb)
	if err != nil {
		return nil, false
	}
	epoch, ok := bundleEpoch(kind, pt)
	if !ok {
		return nil, false
	}
	return &openedBundle{kind: kind, rootEpoch: sb.RootEpoch, plain: pt, epoch: epoch}, true
}

// bundleEpoch reads the group epoch an opened bundle was published at: its
// GroupInfo's epoch (what an external commit builds on), or its history
// keys'.
func bundleEpoch(kind groups.BundleKind, plain []byte) (uint64, bool) {
	if kind == groups.BundleHistory {
		hp, err := groups.DecodeHistoryPlain(plain)
		return hp.Epoch, err == nil
	}
	gip, err := groups.DecodeGroupInfoPlain(plain)
	if err != nil {
		return 0, false
	}
	info, err := decodeGroupInfo(gip.GroupInfo)
	if err != nil {
		return 0, false
	}
	return info.GroupContext.Epoch, true
}
