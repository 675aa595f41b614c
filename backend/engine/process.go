package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/mls/framing"
	"weald/backend/roster"
	"weald/backend/wire"
)

// catchUp fetches and processes g's log after the last processed seq, then
// persists g and the touched shards in one transaction. Forged external
// commits found on the way are evicted at the end. It reads no further
// than the first seq the relay passed over without a deletion this client
// can check (gaps.go).
func (e *Engine) catchUp(ctx context.Context, g *group) error {
	envs, through, err := e.fetchThrough(ctx, wire.ID(g.rec.ID), g.rec.LastSeq)
	if err != nil {
		return err
	}
	if err := e.processEnvelopes(ctx, g, envs); err != nil {
		return err
	}
	if through > g.rec.LastSeq {
		// The seqs after the last envelope were dropped or deleted.
		g.rec.LastSeq = through
		if e.deferSaves != nil {
			e.deferSaves[g] = true
			return nil
		}
		return e.persistGroup(ctx, g)
	}
	return nil
}

func (e *Engine) processEnvelopes(ctx context.Context, g *group, envs []wire.SeqEnvelope) error {
	if len(envs) == 0 {
		return nil
	}
	id := identity.GroupID(g.rec.ID)
	gi, _ := e.roster.Group(id)
	rosterSynced := false
	messages := false
	var evict []evictee
	var unsure []unsureJoin
	// The newest groupinfo.publish read and this member's epoch at it
	// (noteBundle): only the newest decides whether one is owed.
	var newestInfo *wire.Envelope
	var infoEpoch uint64
	for i := range envs {
		se := &envs[i]
		if se.Seq <= g.rec.LastSeq {
			continue
		}
		env := &se.Envelope
		pub, agent, ok := e.authorPub(env.Author, id)
		if !ok && !rosterSynced {
			rosterSynced = true
			if _, err := e.syncRoster(ctx); err != nil {
				return err
			}
			gi, _ = e.roster.Group(id)
			pub, agent, ok = e.authorPub(env.Author, id)
		}
		if env.Author == wire.ID(e.devID) && env.Ctr > g.rec.OwnCtr {
			g.rec.OwnCtr, g.rec.OwnPrev = env.Ctr, hexID(env.Hash())
		}
		g.rec.LastSeq = se.Seq
		g.rec.noteHead(se.Seq, env.Hash())
		if !ok || wire.VerifyEnvelope(env, pub) != nil {
			continue // not by a device of the roster, nor an agent in scope: ignored
		}
		e.checkChain(ctx, g, se)
		if !agent {
			e.noteEnvelope(ctx, id == e.roster.RootGroup(), env)
		}
		if agent && env.Kind != wire.KindContent {
			// An agent posts content and nothing else: no commit (so no
			// external commit, no Add), no bundle, no retention record.
			if env.Kind == wire.KindMLSCommit || env.Kind == wire.KindMLSProposal {
				e.raise(ctx, Alert{Code: "agent/commit", Group: hexID(id).hex(), Actor: identity.AgentID(env.Author).String(),
					Message: fmt.Sprintf("a commit by agent %s was refused: agents never commit", identity.AgentID(env.Author).ShortString())})
			}
			continue
		}
		switch env.Kind {
		case wire.KindMLSCommit:
			late, err := e.noteSelfJoin(g, &gi.Policy, env)
			if err != nil {
				// Past the self-join limit, as every receiver reads it from
				// the log: refused, never merged (spec/channels.md "Limits").
				e.raise(ctx, Alert{Code: "limit/self_join_rate", Message: err.Error(), Group: hexID(id).hex(),
					Actor: identity.DeviceID(env.Author).String()})
				continue
			}
			leaf, err := e.applyCommit(ctx, g, &gi.Policy, env, late)
			switch {
			case errors.Is(err, groups.ErrUnboundLeaf):
				e.alertUnbound(ctx, id, env.Author, "the commit", err) // refused, never merged
			case errors.Is(err, groups.ErrDMThirdParty):
				e.raise(ctx, Alert{Code: "dm/third_party", Message: err.Error(), Group: hexID(id).hex(),
					Actor: identity.DeviceID(env.Author).String()})
			case errors.Is(err, groups.ErrSelfJoinRate):
				e.raise(ctx, Alert{Code: "limit/self_join_rate", Message: err.Error(), Group: hexID(id).hex(),
					Actor: identity.DeviceID(env.Author).String()})
				evict = append(evict, leaf)
			case errors.Is(err, groups.ErrJoinerNotInRoot):
				// This client's root may lag the joiner's entry into it:
				// judged again once the root is read (rootLagged).
				unsure = append(unsure, unsureJoin{leaf, env.Author, err})
			case err != nil:
				e.alertForged(ctx, id, env.Author, err)
				evict = append(evict, leaf)
			}
		case wire.KindHistoryPublish:
			e.learnHistory(g, &gi.Policy, env)
		case wire.KindRecoveryWrap:
			e.noteWrap(g, se)
		case wire.KindGroupInfoPublish:
			if sb, err := groups.DecodeSealedBundle(env.CT); err == nil && sb.RootEpoch >= g.rec.BundleEpoch {
				g.rec.BundleEpoch = sb.RootEpoch
			}
			if g.mls != nil {
				newestInfo, infoEpoch = env, g.mls.Epoch()
			}
		case wire.KindInviteBundle:
			if b, err := groups.DecodeInviteBundle(env.CT); err == nil {
				if g.rec.InviteEpochs == nil {
					g.rec.InviteEpochs = map[string]uint64{}
				}
				k := hexID(b.Invite).hex()
				if b.RootEpoch >= g.rec.InviteEpochs[k] {
					g.rec.InviteEpochs[k] = b.RootEpoch
				}
			}
		case wire.KindContent:
			if changed, err := e.applyContent(ctx, g, env); err == nil && changed {
				messages = true
			}
			g.rec.Retention.noteChange(e.now())
		case wire.KindRetentionTransition, wire.KindRetentionResolution, wire.KindRetentionPolicy, wire.KindCheckpoint:
			e.processRetention(ctx, g, se, pub)
		}
	}
	if newestInfo != nil {
		e.noteBundle(g, newestInfo, infoEpoch)
	}
	if e.deferSaves != nil {
		e.deferSaves[g] = true // a batch persists its groups together (flushDeferred)
	} else if err := e.db.update(ctx, func(t *txn) error {
		if err := e.saveShards(t); err != nil {
			return err
		}
		return e.saveGroup(t, g)
	}); err != nil {
		return err
	}
	if messages {
		e.emit(Event{Kind: EventMessages, Channel: hexID(id).hex()})
	}
	evict = append(evict, e.rootLagged(ctx, g, unsure)...)
	if g.mls != nil && g.mls.Active() && !e.agentMode() {
		// Only leaves still held by the forged joiner: another member's
		// eviction may have come first in the log. An agent never
		// commits (docs/protocol/agents.md): its group's members evict.
		var leaves []uint32
		for _, m := range g.mls.Members() {
			for _, ev := range evict {
				if m.Index == ev.leaf && bytes.Equal(m.SignatureKey, ev.key) {
					leaves = append(leaves, m.Index)
				}
			}
		}
		if len(leaves) > 0 {
			return e.evict(ctx, g, leaves)
		}
	}
	return nil
}

// selfJoinLead is how far a self-join's signed time may run ahead of a
// receiver's clock, once its joiner has used its hour, before the receiver
// evicts it (noteSelfJoin).
const selfJoinLead = time.Hour

// noteSelfJoin notes a self-join commit (an external commit whose JoinData
// names the self-join or recovery path, signed by the envelope's author) in
// g's join record, in log order, whatever becomes of the commit. refused
// (wrapping groups.ErrSelfJoinRate) means every receiver refuses it: the
// record is built from the log alone (groups.JoinRate). late (wrapping it
// too) is this receiver's own judgment, by its clock, so it never decides
// a merge: a joiner that has used its hour and dates its join more than
// selfJoinLead ahead of this clock is evicted after the merge, one Remove
// commit that every member applies alike.
func (e *Engine) noteSelfJoin(g *group, pol *roster.GroupPolicy, env *wire.Envelope) (late, refused error) {
	m, err := framing.DecodeMLSMessage(env.CT)
	if err != nil || m.WireFormat != framing.WireFormatPublicMessage || m.Public == nil ||
		m.Public.Content.Sender.Type != framing.SenderNewMemberCommit {
		return nil, nil
	}
	jd, err := groups.DecodeJoinData(m.Public.Content.AuthenticatedData)
	if err != nil || (jd.Path != groups.PathSelfJoin && jd.Path != groups.PathRecovery) || wire.ID(jd.Device) != env.Author {
		return nil, nil
	}
	dev, ok := e.roster.Device(jd.Device)
	if !ok || dev.Public.Verify(groups.LabelJoin, jd.TBS([32]byte(g.rec.ID), m.Public.Content.Epoch+1), jd.Signature) != nil {
		return nil, nil // not the device's join: ValidateJoin refuses it
	}
	if g.rec.Joins == nil {
		g.rec.Joins = groups.JoinRate{}
	}
	who := hexID(jd.Device).hex()
	now := e.now()
	recent := g.rec.Joins.Since(who, now.Add(-time.Hour))
	if err := g.rec.Joins.Note(who, jd.Time, pol.CreatedAt); err != nil {
		return nil, err
	}
	if recent >= groups.MaxSelfJoinsPerHour && jd.Time.After(now.Add(selfJoinLead)) {
		return fmt.Errorf("%w (a join of %s dated %s, ahead of this device's clock)", groups.ErrSelfJoinRate,
			jd.Device.ShortString(), jd.Time.UTC().Format(time.RFC3339)), nil
	}
	return nil, nil
}

// noteBundle judges the newest groupinfo.publish of g read, at which this
// member was in epoch: a GroupInfo behind it, newest in the log, stops every
// self-joiner (joinBundles refuses it: a device re-sealed what it read
// before a commit landed, or published from a state that had not caught
// up), so this member owes a republish at its next sync (BundleOwed); a
// current one, another member's, settles it.
func (e *Engine) noteBundle(g *group, env *wire.Envelope, epoch uint64) {
	if g.mls == nil || !g.mls.Active() {
		return
	}
	if ob, ok := e.openRootBundle(groups.BundleGroupInfo, identity.GroupID(g.rec.ID), env.CT); ok {
		g.rec.BundleOwed = ob.epoch < epoch
	}
}

// unsureJoin is a join of a parent channel refused because its joiner is
// not in the root as this client saw the root then.
type unsureJoin struct {
	leaf   evictee
	author wire.ID
	err    error
}

// rootLagged judges the unsure joins of g again after reading the root:
// a joiner enters the root first, and this client may have read g's log
// before the root's (one group's catch-up, pushes of several groups).
// Evicting such a joiner would remove a legitimate member and tell the
// admins of a forged join. What stays out of the root is forged: alerted
// and returned for eviction.
func (e *Engine) rootLagged(ctx context.Context, g *group, unsure []unsureJoin) []evictee {
	if len(unsure) == 0 || e.agentMode() {
		// An agent is in no root: it cannot tell, and its members judge.
		return nil
	}
	if root := e.groups[e.roster.RootGroup()]; root != nil && root != g && root.mls != nil {
		_ = e.catchUp(ctx, root) // unread, the root judges as it stands
	}
	var out []evictee
	for _, u := range unsure {
		if len(u.leaf.id) == 32 && e.inRootTree(identity.DeviceID(u.leaf.id)) {
			continue
		}
		e.alertForged(ctx, identity.GroupID(g.rec.ID), u.author, u.err)
		out = append(out, u.leaf)
	}
	return out
}

// evictee is a leaf to evict, named by its index and signature key.
type evictee struct {
	leaf uint32
	key  []byte
	id   []byte // the leaf's credential identity
}

// learnHistory adds the history keys of a history.publish this member can
// open (a Remove's committer adds a fresh key and publishes it) and notes
// its root epoch for the health check; it reports whether it opened.
func (e *Engine) learnHistory(g *group, pol *roster.GroupPolicy, env *wire.Envelope) bool {
	if pol.History != roster.HistoryOpen {
		return false
	}
	sb, err := groups.DecodeSealedBundle(env.CT)
	if err != nil {
		return false
	}
	pt, member, err := e.openHistory(g, sb)
	if err != nil {
		return false
	}
	hp, err := groups.DecodeHistoryPlain(pt)
	if err != nil {
		return false
	}
	have := map[[32]byte]bool{}
	for _, k := range g.history {
		have[k.ID] = true
	}
	for _, k := range hp.Keys {
		if !have[k.ID] {
			g.history = append(g.history, k)
		}
	}
	if !member { // a member copy's epoch is the group's, not the root's
		g.rec.Health.noteHistory(sb.RootEpoch)
	} else if g.rec.Backfill > 0 {
		g.rec.BackfillKeys = true // the content before the Welcome is read again
	}
	return true
}

// alertForged raises a join/forged alert for a commit of group refused by
// the roster (its author the acting principal).
func (e *Engine) alertForged(ctx context.Context, group identity.GroupID, author wire.ID, err error) {
	e.raise(ctx, Alert{Code: "join/forged", Message: err.Error(), Group: hexID(group).hex(),
		Actor: identity.DeviceID(author).String()})
}

// alertUnbound raises a leaf/unbound alert: what (a commit, a Welcome, a
// group info) sent by author into group was refused because a leaf in it is
// not bound to a live principal of the roster (groups.AuthenticateLeaf).
func (e *Engine) alertUnbound(ctx context.Context, group identity.GroupID, author wire.ID, what string, err error) {
	a := Alert{Code: "leaf/unbound", Group: hexID(group).hex(),
		Message: fmt.Sprintf("%s was refused: %v", what, err)}
	if author != (wire.ID{}) {
		a.Actor = identity.DeviceID(author).String()
		a.Message = fmt.Sprintf("%s by %s was refused: %v", what, identity.DeviceID(author).ShortString(), err)
	}
	e.raise(ctx, a)
}

// applyCommit processes one commit envelope of g in log order. It returns a
// non-nil error (wrapping groups.ErrForgedJoin) with the leaf to evict when
// an external commit fails validation, and an error wrapping
// groups.ErrUnboundLeaf, without merging, when the commit brings a leaf the
// roster does not bind (an Add, a path leaf, an external joiner).
//
// late, when not nil, wraps groups.ErrSelfJoinRate: the commit is a
// self-join whose time runs ahead of this receiver's clock (noteSelfJoin);
// merged like any valid join, its leaf is then evicted.
func (e *Engine) applyCommit(ctx context.Context, g *group, pol *roster.GroupPolicy, env *wire.Envelope, late error) (evictee, error) {
	if g.mls == nil || !g.mls.Active() {
		return evictee{}, nil
	}
	closed := pol.History == roster.HistoryClosed
	root := pol.Kind == roster.KindWorkspace
	if env.Author == wire.ID(e.devID) {
		if e.mergeOwn(g, env.CT) {
			return evictee{}, e.noteEpoch(g, closed, root)
		}
		return evictee{}, nil
	}
	rcv, err := g.mls.Process(env.CT)
	if errors.Is(err, groups.ErrUnboundLeaf) {
		// The roster may lag the leaf: fetch it once and judge again.
		if _, serr := e.syncRoster(ctx); serr == nil {
			rcv, err = g.mls.Process(env.CT)
		}
		if errors.Is(err, groups.ErrUnboundLeaf) {
			return evictee{}, err // a leaf the roster does not bind: refused, with an alert
		}
	}
	if err != nil || rcv.Type != mls.ContentCommit {
		return evictee{}, nil // a stale or invalid commit: every member ignores it
	}
	// An agent leaf is added only by the device that issued its certificate.
	if added := rcv.Commit.AddedMembers(); len(added) > 0 && rcv.SenderType == framing.SenderMember {
		var adder []byte
		for _, m := range g.mls.Members() {
			if m.Index == rcv.Sender {
				adder = m.Credential.Identity
			}
		}
		ids := make([][]byte, len(added))
		for i, m := range added {
			ids[i] = m.Credential.Identity
		}
		if err := groups.CheckAgentAdds(e.roster, identity.GroupID(g.rec.ID), adder, ids, e.now()); err != nil {
			return evictee{}, err // refused, with an alert
		}
		if err := groups.CheckDMAdds(e.roster, identity.GroupID(g.rec.ID), ids); err != nil {
			return evictee{}, err // refused, never merged, with an alert
		}
	}
	// The joiner's leaf (index in the new epoch, credential, signature key),
	// named by the staged commit itself.
	joiner, isJoin := rcv.Commit.Joiner()
	if err := g.mls.Merge(rcv.Commit); err != nil {
		return evictee{}, nil
	}
	g.pending, g.rec.Pending = nil, nil // a commit of ours for that epoch lost the race
	if err := e.noteEpoch(g, closed, root); err != nil {
		return evictee{}, err
	}
	if rcv.SenderType != framing.SenderNewMemberCommit || !isJoin {
		return evictee{}, nil
	}
	inRoot := false
	if len(joiner.Credential.Identity) == 32 {
		inRoot = e.inRootTree(identity.DeviceID(joiner.Credential.Identity))
	}
	jd, verr := groups.ValidateJoin(e.roster, identity.GroupID(g.rec.ID), g.mls.Epoch(), rcv.AuthenticatedData,
		groups.Joiner{Identity: joiner.Credential.Identity, SigningKey: joiner.SignatureKey}, inRoot)
	if verr != nil && errors.Is(verr, groups.ErrForgedJoin) {
		// The roster may lag the join: fetch it once and judge again.
		if _, err := e.syncRoster(ctx); err == nil {
			jd, verr = groups.ValidateJoin(e.roster, identity.GroupID(g.rec.ID), g.mls.Epoch(), rcv.AuthenticatedData,
				groups.Joiner{Identity: joiner.Credential.Identity, SigningKey: joiner.SignatureKey}, inRoot)
		}
	}
	if verr == nil && jd.Path != groups.PathInvite && late != nil {
		verr = late
	}
	if verr != nil {
		return evictee{leaf: joiner.Index, key: joiner.SignatureKey, id: joiner.Credential.Identity}, verr
	}
	return evictee{}, nil
}

// inRootTree reports whether a device has a leaf in the root group as this
// client sees it.
func (e *Engine) inRootTree(d identity.DeviceID) bool {
	root := e.groups[e.roster.RootGroup()]
	if root == nil || root.mls == nil {
		return false
	}
	for _, m := range root.mls.Members() {
		if bytes.Equal(m.Credential.Identity, d[:]) {
			return true
		}
	}
	return false
}

// evict removes forged leaves with one commit (the first such commit in
// the log wins; the others are stale and ignored).
func (e *Engine) evict(ctx context.Context, g *group, leaves []uint32) error {
	err := e.commitOnce(ctx, g, mls.CommitOptions{Remove: leaves})
	if errors.Is(err, errLostRace) {
		return nil // another member's commit came first (an eviction, as a rule)
	}
	return err
}

// openHistory opens a history.publish: sealed under a root epoch's
// enrolment secret, or (the copy for agents) under this group's current
// epoch's MemberHistorySecret;
// member reports the latter.
func (e *Engine) openHistory(g *group, sb groups.SealedBundle) (pt []byte, member bool, err error) {
	if secret, ok := e.enrolSecret(sb.RootEpoch); ok {
		if pt, err := groups.OpenBundle(groups.BundleHistory, secret, [32]byte(g.rec.ID), sb); err == nil {
			return pt, false, nil
		}
	}
	if g.mls == nil || g.mls.Epoch() != sb.RootEpoch {
		return nil, false, groups.ErrNoKey
	}
	s, err := groups.MemberHistorySecret(g.mls)
	if err != nil {
		return nil, false, err
	}
	pt, err = groups.OpenBundle(groups.BundleMemberHistory, s, [32]byte(g.rec.ID), sb)
	return pt, true, err
}

// hasAgentLeaf reports whether an agent of the roster has a leaf in g.
func (e *Engine) hasAgentLeaf(g *group) bool {
	if g.mls == nil {
		return false
	}
	for _, m := range g.mls.Members() {
		if len(m.Credential.Identity) == 32 {
			if _, ok := e.roster.Agent(identity.AgentID(m.Credential.Identity)); ok {
				return true
			}
		}
	}
	return false
}
