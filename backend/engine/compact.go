package engine

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/wire"
)

// retentionTip returns this member's key for the head of g's retention
// chain, first publishing the transition that makes the current epoch's key
// the head: the root (signed by this device) when the chain is empty, else
// a successor signed by the head's key, which this member must hold.
func (e *Engine) retentionTip(ctx context.Context, g *group) (ed25519.PrivateKey, error) {
	if g.mls == nil || !g.mls.Active() {
		return nil, ErrNotMember
	}
	if err := e.noteRetentionSeed(g); err != nil {
		return nil, err
	}
	r := &g.rec.Retention
	if r.Chain.Frozen {
		e.raise(ctx, Alert{Code: "retention/chain_frozen", Group: hexID(g.rec.ID).hex(),
			Message: "This channel's retention chain has two successors for one key, so nothing is compacted until an admin resolves it."})
		return nil, retention.ErrChainFrozen
	}
	cur := g.mls.Epoch()
	key, err := r.seedKey(cur)
	if err != nil {
		return nil, err
	}
	head := r.Chain.Head()
	if head != nil && bytes.Equal(head.Key, retention.Pub(key)) {
		return key, nil
	}
	if head != nil {
		if prev, err := r.seedKey(head.Epoch); err != nil || !bytes.Equal(retention.Pub(prev), head.Key) {
			// A head this member does not derive: a member who joined
			// since its epoch, or a key somebody made up, which this
			// member contests when it can prove it (retention_contest.go).
			contested, err := e.contestForged(ctx, g)
			switch {
			case contested:
				return nil, ErrContested
			case err != nil:
				return nil, err
			}
			return nil, retention.ErrNoKey
		}
	}
	if err := e.publishTransition(ctx, g, head, cur, key); err != nil {
		return nil, err
	}
	return key, nil
}

// publishTransition sends the transition that makes key (of epoch cur)
// g's retention key and adds it to this member's chain: a root signed by
// this device when from is nil, else a successor of from signed by from's
// key, derived from this member's seed of from's epoch.
func (e *Engine) publishTransition(ctx context.Context, g *group, from *retention.ChainKey, cur uint64, key ed25519.PrivateKey) error {
	r := &g.rec.Retention
	group := wire.ID(g.rec.ID)
	t := retention.Root(group, cur, key, e.edKey)
	if from != nil {
		prev, err := r.seedKey(from.Epoch)
		if err != nil {
			return err
		}
		t = retention.Successor(group, cur, prev, key)
	}
	if _, err := e.sendCT(ctx, g, wire.KindRetentionTransition, t.Encode()); err != nil {
		return err
	}
	return r.Chain.Add(&t, retention.Pub(e.edKey))
}

// checkpointDraft is a checkpoint being written, as Engine.tamper (tests
// only) sees it at stage "snapshots" (before they are sent) and "manifest"
// (before it is sealed and signed).
type checkpointDraft struct {
	srcs     []retention.Source
	keys     []retention.DocKey
	snaps    []documents.Snapshot
	barrier  []wire.EnvelopeRef
	key      ed25519.PrivateKey
	manifest *retention.Manifest
}

// written is a checkpoint this client wrote, with what its drop deletes.
type written struct {
	cp        trustedCP
	documents int
	changes   int
	below     int    // envelopes below the checkpoint a drop deletes
	belowSize uint64 // their ct bytes
}

// writeCheckpoint writes a checkpoint of g at everything this client has
// processed (spec/lifecycle.md "Checkpoints"): the author barrier is each
// author's last envelope in the log it read; every chat shard with changes
// at or below it is snapshotted at exactly those changes, proven to load to
// its heads, and sent as a snapshot envelope; then the manifest (the
// complete inventory), sealed for members, goes out in a checkpoint signed
// by the group's current retention key. With partial (the steward's
// checkpoints, which a policy drop names) under a finite text window in
// force, the chat shards of days that expired by now are left out and the
// manifest says so (OmitsExpired; docs/protocol/retention.md "What a text
// window removes").
func (e *Engine) writeCheckpoint(ctx context.Context, g *group, gi *roster.GroupInfo, partial bool) (*written, error) {
	if g.mls == nil || !g.mls.Active() {
		return nil, ErrNotMember
	}
	if err := e.catchUp(ctx, g); err != nil {
		return nil, err
	}
	key, err := e.retentionTip(ctx, g)
	if err != nil {
		return nil, err
	}
	group := wire.ID(g.rec.ID)
	log, dropped, err := e.fetchLogTo(ctx, group, g.rec.LastSeq)
	if err != nil {
		return nil, err
	}
	last := map[wire.ID]wire.EnvelopeRef{}
	for i := range log {
		env := &log[i].Envelope
		if r, ok := last[env.Author]; !ok || env.Ctr > r.Ctr {
			last[env.Author] = wire.RefOf(env)
		}
	}
	barrier := make([]wire.EnvelopeRef, 0, len(last))
	ctrs := map[wire.ID]uint64{}
	for a, r := range last {
		barrier = append(barrier, r)
		ctrs[a] = r.Ctr
	}
	sort.Slice(barrier, func(i, j int) bool { return bytes.Compare(barrier[i].Author[:], barrier[j].Author[:]) < 0 })
	sets, n, full, err := e.barrierSets(ctx, g, log, ctrs, dropped)
	if err != nil {
		return nil, err
	}
	if !full {
		return nil, ErrNotFullHistory
	}
	now := e.now()
	omits := false
	if window := retention.WindowAt(retention.Effective(*gi), now); partial && window > 0 {
		for k := range sets {
			if k.Kind == retention.KindChat && retention.Expired(k.Day, now, window) {
				delete(sets, k)
				omits = true
			}
		}
	}
	srcs := make([]retention.Source, 0, len(sets))
	for k, set := range sets {
		sh, err := e.shardFor(ctx, shardOf(g, k))
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, retention.Source{Key: k, Doc: sh.s.Document, Set: set})
	}
	// The index that discovers the inventory (spec/lifecycle.md
	// "Checkpoints": index_snapshot_hash): the engine keeps no index
	// document, so the writer makes one listing the shards' days.
	var days []documents.Day
	seen := map[uint32]bool{}
	for k := range sets {
		if !seen[k.Day] {
			seen[k.Day] = true
			days = append(days, documents.Day(k.Day))
		}
	}
	ix, err := retention.IndexSource(group, days, documents.Options{Author: wire.ID(e.devID), Clock: e.now, Rand: e.rand})
	if err != nil {
		return nil, err
	}
	srcs = append(srcs, ix)
	keys, snaps, err := retention.Snapshots(srcs)
	if err != nil {
		return nil, err
	}
	draft := &checkpointDraft{srcs: srcs, keys: keys, snaps: snaps, barrier: barrier, key: key}
	if e.tamper != nil {
		e.tamper("snapshots", draft)
		keys, snaps, barrier, key = draft.keys, draft.snaps, draft.barrier, draft.key
	}
	refs := make([]wire.EnvelopeRef, len(snaps))
	for i, s := range snaps {
		scheme, kid, ep, ck, err := e.snapshotKey(g, &gi.Policy, keys[i])
		if err != nil {
			return nil, err
		}
		if _, err := e.send(ctx, g, wire.KindSnapshot, func(env *wire.Envelope) ([]byte, error) {
			c, err := groups.SealContent(e.rand, scheme, kid, ep, ck, env.Group, wire.ID(e.devID), env.Ctr, s.Bytes)
			return c.Encode(), err
		}); err != nil {
			return nil, err
		}
		refs[i] = wire.EnvelopeRef{Author: wire.ID(e.devID), Ctr: g.rec.OwnCtr, Hash: wire.ID(g.rec.OwnPrev)}
	}
	m := retention.Manifest{Group: group, CreatedAt: uint64(now.UnixMilli()), Changes: uint64(n), OmitsExpired: omits,
		Documents: retention.Entries(keys, snaps, refs)}
	if e.tamper != nil {
		draft.manifest = &m
		e.tamper("manifest", draft)
		key = draft.key
	}
	mb := m.Encode()
	if e.tamper == nil {
		// What every receiver decodes first: a manifest they would refuse
		// is never sent.
		if _, err := retention.DecodeManifest(mb); err != nil {
			return nil, err
		}
	}
	scheme, kid, ep, ck, err := e.contentKey(g, &gi.Policy)
	if err != nil {
		return nil, err
	}
	var cp wire.Checkpoint
	seq, err := e.send(ctx, g, wire.KindCheckpoint, func(env *wire.Envelope) ([]byte, error) {
		c, err := groups.SealContent(e.rand, scheme, kid, ep, ck, env.Group, wire.ID(e.devID), env.Ctr, mb)
		if err != nil {
			return nil, err
		}
		cp = retention.Sign(group, barrier, m.Refs(), c.Encode(), key)
		return cp.Encode(), nil
	})
	if err != nil {
		return nil, err
	}
	w := &written{documents: len(m.Documents), changes: n,
		cp: trustedCP{Seq: seq, Ref: wire.EnvelopeRef{Author: wire.ID(e.devID), Ctr: g.rec.OwnCtr, Hash: wire.ID(g.rec.OwnPrev)},
			ManifestHash: cp.ManifestHash, Snapshots: cp.Snapshots, Manifest: mb, At: time.UnixMilli(int64(m.CreatedAt)).UTC(),
			Partial: omits}}
	for i := range log {
		// The earlier drop's anchors go too (wire.md "drop_before").
		if !keptByDrop(log[i].Envelope.Kind) {
			w.below++
			w.belowSize += uint64(len(log[i].Envelope.CT))
		}
	}
	r := &g.rec.Retention
	r.trust(w.cp)
	r.Changes, r.Since = 0, now
	return w, e.persistGroup(ctx, g)
}

// keptByDrop reports whether the relay keeps envelopes of kind k under a
// drop (wire.md "drop_before"): retention transitions and policies, and
// the MLS handshake.
func keptByDrop(k wire.Kind) bool {
	switch k {
	case wire.KindRetentionTransition, wire.KindRetentionPolicy, wire.KindMLSCommit, wire.KindMLSProposal, wire.KindMLSWelcome:
		return true
	}
	return false
}

// snapshotKey is the key a shard's snapshot is sealed under: the newest
// history key of an open group (every joiner receives them all), the
// shard's own epoch key in a closed one (so it reaches only those who could
// read it already).
func (e *Engine) snapshotKey(g *group, pol *roster.GroupPolicy, k retention.DocKey) (uint8, [32]byte, uint64, []byte, error) {
	if pol.History == roster.HistoryOpen || k.Kind == retention.KindIndex {
		return e.contentKey(g, pol)
	}
	key := g.rec.EpochKeys[strconv.FormatUint(k.Epoch, 10)]
	if key == nil {
		return 0, [32]byte{}, 0, nil, ErrNotFullHistory
	}
	return groups.SchemeEpoch, [32]byte{}, k.Epoch, key, nil
}

// dropBelow sends the drop_before naming cp, signed by the chain's head,
// authorized by the one-off destruction dest (compact-now) or, when dest is
// nil, by the group's policy.
func (e *Engine) dropBelow(ctx context.Context, g *group, cp trustedCP, dest *wire.RetentionDestruction) (*wire.Dropped, error) {
	if dest != nil && cp.Partial {
		return nil, retention.ErrPartial // a destruction names only a complete checkpoint
	}
	key, err := e.retentionTip(ctx, g)
	if err != nil {
		return nil, err
	}
	r := &g.rec.Retention
	d := wire.DropBefore{Group: wire.ID(g.rec.ID), Checkpoint: cp.Ref, ManifestHash: cp.ManifestHash, Snapshots: cp.Snapshots}
	if dest != nil {
		d.Authorization, d.Destruction = wire.AuthorizedByDestruction, *dest
	} else {
		if r.Policy == nil {
			return nil, errors.New("engine: no retention policy envelope in this channel")
		}
		d.Authorization, d.Policy = wire.AuthorizedByPolicy, *r.Policy
	}
	d.Sign(key)
	res, err := e.client.DropBefore(ctx, d)
	if err != nil {
		return nil, err
	}
	if res.BarrierSeq > r.DroppedBelow {
		r.DroppedBelow = res.BarrierSeq
	}
	return res, e.persistGroup(ctx, g)
}

// CompactReport says what a compaction did.
type CompactReport struct {
	Channel    string `json:"channel"`
	Checkpoint uint64 `json:"checkpoint_seq"` // 0: none written
	Documents  int    `json:"documents"`
	Changes    int    `json:"changes"`
	// Statement is the plain statement of what is (or would be) deleted.
	Statement string `json:"statement"`
	Dropped   bool   `json:"dropped"`
	Envelopes uint64 `json:"envelopes_deleted"`
	Bytes     uint64 `json:"bytes_deleted"`
	// NotDue says why nothing was dropped (the policy keeps it, or no
	// policy allows a drop yet).
	NotDue string `json:"not_due,omitempty"`
	// Pending names the compact-now proposal waiting for other admins'
	// approval (several admins: nothing is dropped until then).
	Pending string `json:"pending,omitempty"`
}

// Compact checkpoints a channel now and drops what its already-authorized
// policy lets go; with now (an admin's compact-now) it drops everything
// below the fresh checkpoint under a one-off RetentionDestruction this
// admin approves (spec/lifecycle.md "Dropping"). The newest standing
// bundles are republished above the checkpoint first, so joiners can still
// join once what is below it is gone.
func (e *Engine) Compact(ctx context.Context, channel string, now bool) (CompactReport, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return CompactReport{}, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return CompactReport{}, err
	}
	return e.compact(ctx, &gi, now)
}

func (e *Engine) compact(ctx context.Context, gi *roster.GroupInfo, now bool) (CompactReport, error) {
	rep := CompactReport{Channel: gi.Name}
	if now && !e.roster.IsAdmin(e.devID) {
		return rep, retention.ErrNotAdmin
	}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return rep, ErrNotMember
	}
	if !compactable(gi) {
		return rep, ErrCompactUnsupported
	}
	// Compact-now deletes below its checkpoint at once: a complete one.
	w, err := e.writeCheckpoint(ctx, g, gi, !now)
	if err != nil && now && budgetFull(err) {
		return e.compactAtCeiling(ctx, g, gi, rep, err)
	}
	if err != nil {
		return rep, err
	}
	rep.Checkpoint, rep.Documents, rep.Changes = w.cp.Seq, w.documents, w.changes
	if now {
		rep.Statement = fmt.Sprintf("Deleting %d envelopes (%d bytes) of %s from the relay: everything below the checkpoint just written. Every message stays readable from the checkpoint's %d snapshots; author chains beneath it can no longer be replayed.",
			w.below, w.belowSize, gi.Name, w.documents)
	}
	err = e.publishBundles(ctx, g, &gi.Policy)
	if err != nil && now && budgetFull(err) {
		if e.roster.LiveAdmins() <= 1 {
			return e.dropThenPublish(ctx, g, gi, w.cp, rep)
		}
		return e.proposeThenPublish(ctx, g, w.cp, rep)
	}
	if err != nil {
		return rep, err
	}
	g.rec.Retention.trustedAt(w.cp.Seq).BundlesAbove = true
	if now {
		return e.destroyBelow(ctx, g, w.cp, rep)
	}
	return e.policyDrop(ctx, g, gi, rep)
}

// dropThenPublish is a one-admin compact-now whose fresh checkpoint fitted
// under the relay's byte budget but whose standing bundles did not: the
// drop goes first, since it is what frees the space, and the bundles are
// republished above the checkpoint right after. The group owes them
// (BundleOwed, persisted before the drop), so a failure in between is
// repaired by the next sync, never left as a channel nobody can join.
func (e *Engine) dropThenPublish(ctx context.Context, g *group, gi *roster.GroupInfo, cp trustedCP, rep CompactReport) (CompactReport, error) {
	g.rec.BundleOwed = true
	if err := e.persistGroup(ctx, g); err != nil {
		return rep, err
	}
	rep, err := e.destroyBelow(ctx, g, cp, rep)
	if err != nil {
		return rep, err
	}
	if err := e.publishBundles(ctx, g, &gi.Policy); err != nil {
		return rep, err
	}
	g.rec.Retention.trustedAt(cp.Seq).BundlesAbove = true
	return rep, e.persistGroup(ctx, g)
}

// proposeThenPublish is dropThenPublish with several admins: the drop
// waits for their approval, so the destruction is proposed (roster
// operations are outside the byte budget) with the bundles still owed
// (BundleOwed, persisted first). Whichever admin sends the approved drop
// republishes them above the checkpoint right after it (runDestructions),
// and this device's next sync does if it has not.
func (e *Engine) proposeThenPublish(ctx context.Context, g *group, cp trustedCP, rep CompactReport) (CompactReport, error) {
	g.rec.BundleOwed = true
	if err := e.persistGroup(ctx, g); err != nil {
		return rep, err
	}
	return e.destroyBelow(ctx, g, cp, rep)
}

// compactAtCeiling is compact-now when the relay's budget is full: no new
// checkpoint can be written, so it drops below the one the steward wrote
// ahead of the ceiling (refused with full, the write's error, when there
// is none).
func (e *Engine) compactAtCeiling(ctx context.Context, g *group, gi *roster.GroupInfo, rep CompactReport, full error) (CompactReport, error) {
	cp := aheadCheckpoint(g)
	if cp == nil {
		return rep, full
	}
	rep.Checkpoint = cp.Seq
	rep.Statement = fmt.Sprintf("The relay's byte budget is full, so no new checkpoint can be written: deleting everything of %s below the checkpoint written %s, ahead of the ceiling. Every message up to it stays readable from its snapshots; later ones stay as they are.",
		gi.Name, cp.At.Format(time.DateTime))
	return e.destroyBelow(ctx, g, *cp, rep)
}

// destroyBelow drops below cp under a one-off destruction: at once in a
// one-admin workspace, else once the other admins approve the proposal it
// puts to them (retention_destroy.go); rep.Pending then names it.
func (e *Engine) destroyBelow(ctx context.Context, g *group, cp trustedCP, rep CompactReport) (CompactReport, error) {
	if e.roster.LiveAdmins() <= 1 {
		now := uint64(e.now().Unix())
		dest := wire.RetentionDestruction{Group: wire.ID(g.rec.ID), Checkpoint: cp.Ref, NotBefore: now - 60, NotAfter: now + 3600}
		dest.Approve(e.edKey)
		res, err := e.dropBelow(ctx, g, cp, &dest)
		if err != nil {
			return rep, err
		}
		rep.Dropped, rep.Envelopes, rep.Bytes = true, res.Envelopes, res.Bytes
		return rep, nil
	}
	h, err := e.proposeDestruction(ctx, g, cp)
	if err != nil {
		return rep, err
	}
	rep.Pending = hexHead(h)
	if rest, ok := strings.CutPrefix(rep.Statement, "Deleting"); ok {
		rep.Statement = "Once another admin approves: deleting" + rest
	} else if rep.Statement != "" {
		rep.Statement = "Once another admin approves: " + rep.Statement
	}
	rep.NotDue = fmt.Sprintf("Nothing is deleted yet: another admin must approve this within %d hours (weald retention approve %s, or Approve in the Encryption & health panel).",
		int(destroyWindow/time.Hour), rep.Pending[:12])
	return rep, nil
}

// policyDrop drops below the newest trusted checkpoint older than the
// group's already-authorized text window, if any.
func (e *Engine) policyDrop(ctx context.Context, g *group, gi *roster.GroupInfo, rep CompactReport) (CompactReport, error) {
	r := &g.rec.Retention
	pol := retention.Effective(*gi)
	due := dueForDrop(r, pol, e.now())
	switch {
	case !pol.Active || pol.TextWindow == 0:
		rep.NotDue = "The channel's retention policy keeps text forever, so nothing is deleted."
		return rep, nil
	case r.Policy == nil:
		rep.NotDue = "No admin-approved retention policy has reached the relay for this channel yet."
		return rep, nil
	case due == nil:
		rep.NotDue = "No checkpoint is older than the channel's text window yet."
		return rep, nil
	}
	rep.Statement = fmt.Sprintf("Deleting what lies below the checkpoint of %s, older than the channel's %d-day text window.",
		due.At.Format(time.DateOnly), retention.WindowDays(pol.TextWindow))
	res, err := e.dropBelow(ctx, g, *due, nil)
	if err != nil {
		return rep, err
	}
	rep.Dropped, rep.Envelopes, rep.Bytes = true, res.Envelopes, res.Bytes
	return rep, nil
}

// CompactAll compacts every channel this device is a member of.
func (e *Engine) CompactAll(ctx context.Context, now bool) ([]CompactReport, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	var out []CompactReport
	// A channel refused at the ceiling (no checkpoint written ahead of it,
	// and no room for a new one) is tried again once another channel's
	// drop has freed space, for as long as a pass frees more.
	type refusal struct {
		at    int // index into out
		group identity.GroupID
	}
	var refused []refusal
	compactOne := func(gi *roster.GroupInfo) (CompactReport, bool, error) {
		rep, err := e.compact(ctx, gi, now)
		if err != nil && budgetFull(err) {
			rep.NotDue = "The relay's byte budget is full and this channel has no checkpoint written ahead of it, so nothing of it can be deleted now."
			return rep, true, nil
		}
		if errors.Is(err, ErrNotFullHistory) {
			// A member added late to a closed channel holds no key of its
			// first epochs: it cannot write the checkpoint, but the other
			// channels are still compacted.
			rep.NotDue = "This device does not hold the channel's whole history (it was added after it began), so it cannot write the checkpoint; a member who holds it can."
			return rep, false, nil
		}
		if err != nil {
			return rep, false, fmt.Errorf("%s: %w", gi.Name, err)
		}
		return rep, false, nil
	}
	groups := e.roster.Groups()
	freed := false
	for i := range groups {
		gi := &groups[i]
		if gi.Deleted || !e.member(gi.Policy.Group) || !compactable(gi) {
			continue
		}
		rep, full, err := compactOne(gi)
		if err != nil {
			return out, err
		}
		if full {
			refused = append(refused, refusal{len(out), gi.Policy.Group})
		}
		freed = freed || rep.Bytes > 0
		out = append(out, rep)
	}
	for pass := 0; freed && len(refused) > 0 && pass < len(groups); pass++ {
		freed = false
		var still []refusal
		for _, r := range refused {
			gi, ok := e.roster.Group(r.group)
			if !ok || gi.Deleted {
				continue
			}
			rep, full, err := compactOne(&gi)
			if err != nil {
				return out, err
			}
			if full {
				still = append(still, r)
			}
			freed = freed || rep.Bytes > 0
			out[r.at] = rep
		}
		refused = still
	}
	return out, nil
}

// budgetFull reports whether err is the relay refusing a write because the
// workspace's byte budget is exhausted.
func budgetFull(err error) bool {
	c, ok := errcode.Of(err)
	return ok && c == wire.CodeLogBudgetExhausted
}

// aheadCheckpoint is g's newest trusted checkpoint above any drop with the
// standing bundles published above it: what compact-now drops below when
// the relay's budget is full and no new checkpoint can be written.
func aheadCheckpoint(g *group) *trustedCP {
	r := &g.rec.Retention
	for i := len(r.Trusted) - 1; i >= 0; i-- {
		if t := &r.Trusted[i]; t.Seq > r.DroppedBelow && t.BundlesAbove && !t.Partial {
			return t
		}
	}
	return nil
}

// ErrCompactUnsupported: the workspace root is not compacted: it carries
// the invite bundles a drop would take from people still joining.
var ErrCompactUnsupported = errcode.New("retention/unsupported_group", "the workspace root is not compacted; channels, private channels and DMs are")

// compactable reports whether a group may be checkpointed and dropped:
// every channel and DM, not the workspace root. A channel joined from the
// workspace gets its standing bundles republished above the checkpoint; an
// explicit channel or DM needs none, since the relay keeps the MLS commits,
// proposals and Welcomes under a drop, so a device added before it still
// joins and follows the epochs (docs/protocol/retention.md "Explicit
// channels and DMs").
func compactable(gi *roster.GroupInfo) bool {
	return gi.Policy.Kind != roster.KindWorkspace && gi.Policy.Admission != roster.AdmissionEveryone
}
