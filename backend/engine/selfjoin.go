package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/mls/framing"
	"weald/backend/roster"
	"weald/backend/wire"
)

// externalJoin makes an external commit into group id from a GroupInfo,
// with JoinData in its authenticated_data that binds the new leaf's
// signature key: the key is drawn first (mls.GenerateSignatureKey), signed
// into JoinData, then handed to mls.ExternalJoin
// (ExternalJoinOptions.SignatureKey).
func (e *Engine) externalJoin(id identity.GroupID, groupInfo []byte, path uint8, pol *roster.GroupPolicy) (*mls.Group, []byte, error) {
	dev, ok := e.roster.Device(e.devID)
	if !ok {
		return nil, nil, groups.ErrNotEntitled
	}
	gi, err := decodeGroupInfo(groupInfo)
	if err != nil {
		return nil, nil, err
	}
	priv, pub, exts, err := e.boundLeafKey(gi.GroupContext.CipherSuite)
	if err != nil {
		return nil, nil, err
	}
	// The commit creates the epoch after the GroupInfo's.
	jd, err := groups.NewJoinData(e.dev, dev.Admitted, path, pol, [32]byte(id), gi.GroupContext.Epoch+1, pub, e.now())
	if err != nil {
		return nil, nil, err
	}
	m, msg, err := mls.ExternalJoin(e.mlsCfg, groupInfo, nil, e.credential(),
		mls.ExternalJoinOptions{AuthenticatedData: jd.Encode(), SignatureKey: priv, LeafExtensions: exts})
	if err != nil {
		return nil, nil, err
	}
	if m.Epoch() != gi.GroupContext.Epoch+1 {
		return nil, nil, fmt.Errorf("engine: the external join led to epoch %d, not %d", m.Epoch(), gi.GroupContext.Epoch+1)
	}
	return m, msg, nil
}

// decodeGroupInfo reads the (unverified) GroupInfo of an
// MLSMessage(GroupInfo): its cipher suite and epoch (ExternalJoin verifies
// it).
func decodeGroupInfo(msg []byte) (*mls.GroupInfo, error) {
	m, err := framing.DecodeMLSMessage(msg)
	if err != nil {
		return nil, err
	}
	if m.WireFormat != framing.WireFormatGroupInfo {
		return nil, fmt.Errorf("engine: a group info bundle holds wire format %d, not a GroupInfo", m.WireFormat)
	}
	return mls.DecodeGroupInfo(m.Body)
}

// The self-join's steps, as Options.Crash names them (tests inject faults
// between them).
const (
	JoinStepRoot    = "selfjoin/root"    // the root caught up
	JoinStepBundles = "selfjoin/bundles" // the standing bundles read
	JoinStepCommit  = "selfjoin/commit"  // the external commit sent
	JoinStepHistory = "selfjoin/history" // the history read, before the fresh bundles
)

// JoinReport says what one run of the join loop did.
type JoinReport struct {
	Joined  []string `json:"joined"`
	Waiting []string `json:"waiting,omitempty"` // left for later (rate limit)
	Failed  []string `json:"failed,omitempty"`
}

// joinLoop self-joins every group this device is entitled to and not in
// (spec/channels.md "The join" step 1), within the hourly limit.
func (e *Engine) joinLoop(ctx context.Context) error {
	_, err := e.runJoinLoop(ctx)
	return err
}

func (e *Engine) runJoinLoop(ctx context.Context) (JoinReport, error) {
	var rep JoinReport
	if !e.member(e.roster.RootGroup()) {
		return rep, nil
	}
	todo := e.roster.SelfJoinGroups(e.devID, e.member)
	total := len(todo)
	if total == 0 {
		return rep, nil
	}
	// Catch up the root once for the whole loop (a lost race re-reads it).
	if err := e.catchUp(ctx, e.groups[e.roster.RootGroup()]); err != nil {
		return rep, err
	}
	e.rootFresh = true
	defer func() { e.rootFresh = false }()
	if e.heldGroups() > groups.MaxGroups {
		return rep, groups.ErrGroupsLimit
	}
	var limited error
	for i, id := range todo {
		if e.selfJoinsLastHour(id) >= groups.MaxSelfJoinsPerHour {
			rep.Waiting = append(rep.Waiting, hexID(id).hex())
			limited = groups.ErrSelfJoinRate
			continue
		}
		if err := e.selfJoin(ctx, id); err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			rep.Failed = append(rep.Failed, hexID(id).hex())
			continue
		}
		rep.Joined = append(rep.Joined, hexID(id).hex())
		e.progress("join", i+1, total)
	}
	if len(rep.Joined) > 0 {
		e.emit(Event{Kind: EventChannels})
	}
	return rep, limited
}

// selfJoinsLastHour counts this device's self-join commits into group id in
// the last hour. The limit of spec/channels.md "Limits" (32 per principal per
// hour, "a client loop cannot storm the epoch") is applied per group: a
// newcomer's first joins of many distinct channels are bounded by the
// 512-group limit instead (docs/protocol/groups.md "Limits").
func (e *Engine) selfJoinsLastHour(id identity.GroupID) int {
	cut := e.now().Add(-time.Hour)
	k := hexID(id).hex()
	var kept []time.Time
	for _, t := range e.meta.SelfJoins[k] {
		if t.After(cut) {
			kept = append(kept, t)
		}
	}
	if e.meta.SelfJoins == nil {
		e.meta.SelfJoins = map[string][]time.Time{}
	}
	if len(kept) == 0 {
		delete(e.meta.SelfJoins, k)
	} else {
		e.meta.SelfJoins[k] = kept
	}
	// The log's record (groups.JoinRate), as the receivers count, if this
	// device holds one for the group: it survives a lost local count.
	if g := e.groups[id]; g != nil {
		if n := g.rec.Joins.Since(hexID(e.devID).hex(), cut); n > len(kept) {
			return n
		}
	}
	return len(kept)
}

// selfJoin joins one parent channel: the latest standing bundles (and the
// history keys of an open group) in one round trip (joinBundles: the
// newest envelope of each kind), an external commit with JoinData, then the
// channel's history (an open group's whole log), then fresh bundles.
//
// A join interrupted after its commit was sent (a dropped connection, a
// relay restart) is resumed by the next attempt from the commit it sent
// (group.joining): a SEND whose answer was lost is settled by sending the
// same envelopes again (resendJoin), and the join goes on from the commit
// if it won, or starts over if it lost or never landed. Starting over
// instead would commit again on top of a GroupInfo nobody republished, and
// lose to its own first commit if that landed late.
func (e *Engine) selfJoin(ctx context.Context, id identity.GroupID) error {
	gi, ok := e.roster.Group(id)
	if !ok {
		return ErrNoChannel
	}
	if e.roster.Entitlement(id, identity.DevicePrincipal(e.devID), e.now(), e.member) != roster.JoinSelf {
		return groups.ErrNotEntitled
	}
	g := e.groupState(id)
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 || !e.rootFresh {
			// The root first: its latest epoch secrets open the latest bundles.
			if root := e.groups[e.roster.RootGroup()]; root != nil && root.mls != nil {
				if err := e.catchUp(ctx, root); err != nil {
					return err
				}
			}
		}
		if err := e.crash(JoinStepRoot); err != nil {
			return err
		}
		if g.joining == nil {
			if err := e.startJoin(ctx, g, &gi); err != nil {
				return err
			}
		}
		won, err := e.joinLanded(ctx, g)
		if err != nil {
			return err
		}
		if !won {
			dropJoin(g)
			continue
		}
		return e.finishJoin(ctx, g, &gi)
	}
	return errcode.New("mls/busy", "the channel kept moving; the join will be retried")
}

// joining is a self-join whose commit was built and (perhaps) sent.
type joining struct {
	m    *mls.Group
	keys []groups.HistoryKey
	b    *bundles        // what was read to build it; nil after a restart (joinLanded reads the log)
	envs []wire.Envelope // the batch last sent (the external commit, the recovery wrap), signed
	seq  uint64          // the commit's seq once known
}

// joinRec is a self-join persisted before its SEND (group.rec.Joining). A
// process that stopped before settling it settles it after a restart
// (resendJoin) instead of starting over, which would lose to its own first
// commit if that landed, and leave a leaf nobody republishes a GroupInfo
// for.
type joinRec struct {
	Next []byte   `json:"next"` // the MLS state the commit creates
	Keys [][]byte `json:"keys,omitempty"`
	Envs [][]byte `json:"envs"` // the signed batch as sent
}

// record is j as a joinRec.
func (j *joining) record() (*joinRec, error) {
	next, err := j.m.Encode()
	if err != nil {
		return nil, err
	}
	r := &joinRec{Next: next}
	for _, k := range j.keys {
		r.Keys = append(r.Keys, k.Key[:])
	}
	for i := range j.envs {
		b, err := j.envs[i].Encode()
		if err != nil {
			return nil, err
		}
		r.Envs = append(r.Envs, b)
	}
	return r, nil
}

// restoreJoin is the join a joinRec persisted.
func (e *Engine) restoreJoin(r *joinRec) (*joining, error) {
	m, err := mls.LoadGroup(e.mlsCfg, r.Next)
	if err != nil {
		return nil, err
	}
	j := &joining{m: m}
	for _, k := range r.Keys {
		j.keys = append(j.keys, groups.HistoryKeyOf(k))
	}
	for _, b := range r.Envs {
		env, err := wire.DecodeEnvelope(b)
		if err != nil {
			return nil, err
		}
		j.envs = append(j.envs, env)
	}
	return j, nil
}

// dropJoin forgets g's self-join: it won and was adopted, or it lost or
// never landed.
func dropJoin(g *group) {
	g.joining, g.rec.Joining = nil, nil
}

// startJoin reads the bundles, builds the external commit and sends it. The
// join is recorded in g.joining before the send, so an answer lost with the
// connection does not lose the commit.
func (e *Engine) startJoin(ctx context.Context, g *group, gi *roster.GroupInfo) error {
	id := gi.Policy.Group
	b, err := e.joinBundles(ctx, id, gi.Policy.History == roster.HistoryOpen)
	if err != nil {
		return err
	}
	if err := e.crash(JoinStepBundles); err != nil {
		return err
	}
	if b.info == nil {
		return errcode.Errorf("groups/no_bundle", "channel %s has no standing group info this device can open", gi.Name)
	}
	gip, err := groups.DecodeGroupInfoPlain(b.info.plain)
	if err != nil {
		return err
	}
	var keys []groups.HistoryKey
	if gi.Policy.History == roster.HistoryOpen && b.history != nil {
		hp, err := groups.DecodeHistoryPlain(b.history.plain)
		if err != nil {
			return err
		}
		keys = hp.Keys
	}
	m, msg, err := e.externalJoin(id, gip.GroupInfo, groups.PathSelfJoin, &gi.Policy)
	if err != nil {
		if errors.Is(err, groups.ErrUnboundLeaf) {
			// A member sealed a tree with a leaf the roster does not bind.
			e.alertUnbound(ctx, id, wire.ID{}, "the channel's group info", err)
		}
		return err
	}
	g.joining = &joining{m: m, keys: keys, b: b}
	if e.meta.SelfJoins == nil {
		e.meta.SelfJoins = map[string][]time.Time{}
	}
	e.meta.SelfJoins[hexID(id).hex()] = append(e.meta.SelfJoins[hexID(id).hex()], e.now())
	j := g.joining
	seq, err := e.sendJoin(ctx, g, msg, m, keys, func(envs []wire.Envelope) error {
		j.envs = envs
		rec, err := j.record()
		if err != nil {
			return err
		}
		g.rec.Joining = rec
		return e.persistGroup(ctx, g)
	})
	if err != nil {
		if refusedWhole(err) {
			dropJoin(g) // nothing of the batch landed
		}
		return err
	}
	j.seq = seq
	return e.crash(JoinStepCommit)
}

// joinLanded reports whether g.joining's commit is in the log and created
// its epoch (no other commit for that epoch came first). A commit whose
// SEND had no answer is settled first (resendJoin); one that never landed
// starts the join over.
func (e *Engine) joinLanded(ctx context.Context, g *group) (bool, error) {
	j := g.joining
	base := j.m.Epoch() - 1
	if j.b == nil {
		// Restored after a restart: the whole log decides.
		b, err := e.allBundles(ctx, identity.GroupID(g.rec.ID))
		if err != nil {
			return false, err
		}
		j.b = b
	}
	if j.seq == 0 {
		seq, err := e.resendJoin(ctx, g, j)
		if err != nil || seq == 0 {
			return false, err
		}
		j.seq = seq
	}
	lost, err := e.lostRace(ctx, identity.GroupID(g.rec.ID), j.b.log, j.b.readTo, j.seq, base)
	return !lost && err == nil, err
}

// refusedWhole reports whether err is the relay's refusal of a SEND: it
// checks a batch before writing it, so nothing of it landed. An internal
// error or a shutdown may have come after the write.
func refusedWhole(err error) bool {
	var we *wire.Error
	return errors.As(err, &we) && we.Code != wire.CodeInternal && we.Code != wire.CodeRelayShuttingDown
}

// resendJoin settles a join whose SEND had no answer (the connection
// dropped, the call gave up) by sending the same signed envelopes again.
// Looking in the log instead cannot tell "never landed" from "not landed
// yet": a relay can still be writing the first SEND. Accepted, the batch
// lands now; refused as a replay, it landed before and its seqs are read
// from the log; refused as a fork or gap, another envelope holds its place
// in this device's chain, so it never lands (seq 0: start over).
func (e *Engine) resendJoin(ctx context.Context, g *group, j *joining) (uint64, error) {
	if len(j.envs) != 2 {
		return 0, nil // never sent
	}
	acks, err := e.client.Send(ctx, j.envs...)
	var we *wire.Error
	switch {
	case err == nil && len(acks) == 2:
		e.joinSent(g, j, acks[1].Seq)
		return acks[0].Seq, nil
	case err == nil:
		return 0, errors.New("engine: the relay acknowledged a different number of envelopes")
	case errors.As(err, &we) && we.Code == wire.CodeChainReplay:
		envs, err := e.fetchAll(ctx, wire.ID(g.rec.ID), j.b.readTo)
		if err != nil {
			return 0, err
		}
		var seqs [2]uint64
		for _, se := range envs {
			for i := range j.envs {
				if se.Envelope.Author == j.envs[i].Author && se.Envelope.Hash() == j.envs[i].Hash() {
					seqs[i] = se.Seq
				}
			}
		}
		if seqs[0] == 0 {
			return 0, nil
		}
		e.joinSent(g, j, seqs[1])
		return seqs[0], nil
	case errors.As(err, &we) && (we.Code == wire.CodeChainFork || we.Code == wire.CodeChainGap):
		return 0, nil
	default:
		return 0, err
	}
}

// joinSent notes j's batch, in the log, as this device's chain head in g,
// and its recovery wrap as sent at wrapSeq (0: not found in the log).
func (e *Engine) joinSent(g *group, j *joining, wrapSeq uint64) {
	if last := j.envs[1]; last.Ctr > g.rec.OwnCtr {
		g.rec.OwnCtr, g.rec.OwnPrev = last.Ctr, hexID(last.Hash())
	}
	if wrapSeq != 0 {
		e.ownWrapSent(g, j.m.Epoch(), wrapSeq)
	}
}

// finishJoin adopts the MLS state of a join whose commit won, reads the
// history the member is entitled to and publishes fresh bundles (owed until
// published: repairBundles publishes them if this step is cut short).
func (e *Engine) finishJoin(ctx context.Context, g *group, gi *roster.GroupInfo) error {
	j := g.joining
	g.mls, g.history = j.m, j.keys
	g.rec.BundleOwed = true
	dropJoin(g)
	if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, false); err != nil {
		return err
	}
	var err error
	switch b := j.b; {
	case b.full:
		err = e.processEnvelopes(ctx, g, b.log)
	case gi.Policy.History == roster.HistoryOpen:
		// The history this member is entitled to: the whole log.
		err = e.catchUp(ctx, g)
	default:
		// A closed group's log before the join holds nothing this
		// member can read: start after the head that was read.
		err = e.processEnvelopes(ctx, g, b.log)
		if err == nil && b.readTo > g.rec.LastSeq {
			g.rec.LastSeq = b.readTo
		}
		// b.log is the newest envelope of a few kinds, not a run of
		// the log: the chains are read from the head on.
		g.chainsFromHere()
	}
	if err == nil {
		// processEnvelopes stores nothing for an empty log.
		err = e.persistGroup(ctx, g)
	}
	if err != nil {
		return err
	}
	if err := e.persistMeta(ctx); err != nil {
		return err
	}
	if err := e.crash(JoinStepHistory); err != nil {
		return err
	}
	return e.publishBundles(ctx, g, &gi.Policy)
}

// repairBundles republishes, on connect, the standing bundles of the
// channels this device is in whose latest bundle is sealed under an older
// root epoch, and re-issues stale invite bundles (docs/protocol/groups.md
// "When published": self-healing when a root committer did not finish).
func (e *Engine) repairBundles(ctx context.Context) error {
	for _, g := range e.groups {
		if g.mls != nil && g.mls.Active() {
			if err := e.sendWelcomeOwed(ctx, g); err != nil {
				return err
			}
		}
	}
	epoch, _, ok := e.currentEnrol()
	if !ok {
		return nil
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Policy.Admission != roster.AdmissionParent || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		if g.rec.BundleEpoch < epoch || g.rec.BundleOwed {
			if err := e.publishBundles(ctx, g, &gi.Policy); err != nil {
				return err
			}
			g.rec.BundleEpoch = epoch
		}
	}
	root := e.groups[e.roster.RootGroup()]
	for _, inv := range e.roster.Invites() {
		if !e.needsBundle(inv) || root.rec.InviteEpochs[hexID(inv.Invite.ID).hex()] >= epoch {
			continue
		}
		if err := e.sendInviteBundle(ctx, inv); err != nil {
			return err
		}
		if root.rec.InviteEpochs == nil {
			root.rec.InviteEpochs = map[string]uint64{}
		}
		root.rec.InviteEpochs[hexID(inv.Invite.ID).hex()] = epoch
	}
	return e.persistGroup(ctx, root)
}

// SyncReport is what Sync did.
type SyncReport struct {
	Ready  bool       `json:"ready"`
	Joined JoinReport `json:"join"`
}

// Sync connects, finishes any incomplete setup (bootstrap or redemption),
// catches up the roster and every group, does the admin's duties and runs
// the join loop, then returns.
func (e *Engine) Sync(ctx context.Context) (SyncReport, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sync(ctx)
}

func (e *Engine) sync(ctx context.Context) (SyncReport, error) {
	if e.agentMode() {
		return e.syncAgent(ctx)
	}
	var rep SyncReport
	syncStart := e.now()
	if e.meta.Creator && !e.meta.Steps[StepReady] {
		if err := e.bootstrap(ctx); err != nil {
			return rep, err
		}
	}
	if iu := e.meta.Invite; iu != nil && !iu.Done {
		if err := e.redeem(ctx); err != nil {
			return rep, err
		}
	}
	if ru := e.meta.Recovery; ru != nil && !ru.Revoked {
		if err := e.recoverPrelude(ctx); err != nil {
			return rep, err
		}
	}
	if err := e.connect(ctx); err != nil {
		return rep, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return rep, err
	}
	root := e.roster.RootGroup()
	if g := e.groups[root]; g != nil && g.mls != nil {
		if err := e.catchUp(ctx, g); err != nil {
			return rep, err
		}
	}
	for id, g := range e.groups {
		if id == root || g.mls == nil || !g.mls.Active() {
			continue
		}
		if err := e.catchUp(ctx, g); err != nil {
			return rep, err
		}
	}
	// Every group fetched: compare the attestations read before, then
	// attest (a failure to send is retried at the next sync, not fatal:
	// a workspace at its byte ceiling must still sync).
	e.checkAttestations(ctx, syncStart)
	_ = e.attestIfDue(ctx)
	if err := e.saveAttestations(ctx); err != nil {
		return rep, err
	}
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return rep, err
		}
		if err := e.checkRefusals(ctx); err != nil {
			return rep, err
		}
	}
	if err := e.repairBundles(ctx); err != nil {
		return rep, err
	}
	if e.roster.DeviceLive(e.devID) {
		// Welcomes first: a used package is gone before the top-up counts.
		if err := e.acceptWelcomes(ctx); err != nil {
			return rep, err
		}
		if err := e.ensureKeyPackages(ctx); err != nil {
			return rep, err
		}
		if err := e.completePending(ctx); err != nil {
			return rep, err
		}
		if err := e.addOwnDevices(ctx); err != nil {
			return rep, err
		}
		if err := e.addRecoveredDevices(ctx); err != nil {
			return rep, err
		}
		if err := e.joinByWraps(ctx); err != nil {
			return rep, err
		}
		if err := e.ensureDMs(ctx); err != nil {
			return rep, err
		}
		if err := e.addAgents(ctx); err != nil {
			return rep, err
		}
		if err := e.stewardAgents(ctx); err != nil {
			return rep, err
		}
		if err := e.stewardRevokedDevices(ctx); err != nil {
			return rep, err
		}
	}
	jr, err := e.runJoinLoop(ctx)
	rep.Joined = jr
	rep.Ready = e.ready()
	// The wraps this sync sent, named in the recovery tag directory; what
	// fails stays owed to the next sync.
	_ = e.flushRecoveryDir(ctx)
	if err != nil && !errors.Is(err, groups.ErrSelfJoinRate) {
		return rep, err
	}
	if ru := e.meta.Recovery; ru != nil && ru.Revoked && ru.Phrase != "" && rep.Ready {
		ru.Phrase = "" // recovered, old devices revoked, in every group: forgotten
		if err := e.persistMeta(ctx); err != nil {
			return rep, err
		}
	}
	if rep.Ready && !e.meta.Steps[StepReady] {
		e.meta.Steps[StepReady] = true
		if err := e.persistMeta(ctx); err != nil {
			return rep, err
		}
		e.emit(Event{Kind: EventReady})
	}
	if rep.Ready {
		e.publishPolicies(ctx) // approved by admins elsewhere (retention_approve.go)
		e.runDestructions(ctx) // compact-now approved by the admins (retention_destroy.go)
		e.steward(ctx)         // retention duties (compact.go); failures are alerts
		if err := e.resumeRemovals(ctx); err != nil {
			return rep, err
		}
		e.healthIfDue(ctx)
	}
	return rep, err
}

// CreateChannel creates a channel: its MLS group with this device as the
// sole member and, for a parent channel, its standing bundles, then its
// GroupPolicy in the roster (history follows admission). The order matters:
// the roster record is what makes the channel visible to every member, who
// self-joins it at once, so nothing may make it visible before it is
// joinable (a record before its GroupInfo left a joiner with groups/no_bundle
// and a channel it could see and not read).
//
// Names are unique among live channels (ErrChannelNameTaken), and creating
// is idempotent for the device that created: a create whose answer was lost
// (the connection dropped around the roster append and the call gave up)
// and is tried again returns the channel the first attempt recorded, or,
// when the record never landed, records the group the first attempt drew
// (docs/protocol/groups.md "Creating a channel").
func (e *Engine) CreateChannel(ctx context.Context, name string, admission roster.Admission) (Channel, error) {
	e.mu.Lock()
	if err := e.connect(ctx); err != nil {
		e.mu.Unlock()
		return Channel{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		e.mu.Unlock()
		return Channel{}, err
	}
	id, err := e.createChannel(ctx, name, admission)
	if err == nil {
		_ = e.flushRecoveryDir(ctx) // its wrap; else owed to the next sync
	}
	e.mu.Unlock()
	if err != nil {
		return Channel{}, err
	}
	e.emit(Event{Kind: EventChannels})
	for _, c := range e.Channels() {
		if c.Group == hexID(id).hex() {
			return c, nil
		}
	}
	return Channel{}, ErrNoChannel
}

// ErrChannelNameTaken refuses a channel name a live channel has.
var ErrChannelNameTaken = errcode.New("channel/name_taken", "a channel with that name already exists; pick another name")

// channelCreation is a CreateChannel whose roster record is not known to
// have landed, persisted in meta before its group is drawn.
type channelCreation struct {
	Group     hexID            `json:"group"`
	Name      string           `json:"name"`
	Admission roster.Admission `json:"admission"`
}

// createChannel is CreateChannel's work, with e.mu held and the roster
// synced: the group and its bundles first, the roster record last.
func (e *Engine) createChannel(ctx context.Context, name string, admission roster.Admission) (identity.GroupID, error) {
	if gi, ok := e.liveChannelNamed(name); ok {
		id := gi.Policy.Group
		if gi.Policy.CreatedBy != e.devID || gi.Policy.Admission != admission || !e.member(id) {
			return identity.GroupID{}, ErrChannelNameTaken
		}
		// This device's own: recorded by an attempt whose answer was lost,
		// or asked for again. Finish what that attempt may not have.
		if err := e.ensureOwnGroup(ctx, gi); err != nil {
			return id, err
		}
		return id, e.endCreation(ctx, id)
	}
	if e.roster.LiveGroups() >= groups.MaxGroups {
		return identity.GroupID{}, groups.ErrGroupsLimit
	}
	cg, err := roster.NewChannel(e.rand, e.roster, name, admission)
	if err != nil {
		return identity.GroupID{}, err
	}
	if p := e.meta.Creating; p != nil && strings.EqualFold(p.Name, name) && p.Admission == admission {
		// The same creation again, its record never landed: the group
		// the first attempt drew and published, not a second one.
		if _, recorded := e.roster.Group(identity.GroupID(p.Group)); !recorded && e.member(identity.GroupID(p.Group)) {
			cg.Policy.Group = identity.GroupID(p.Group)
		}
	}
	// Refuse what the roster would refuse (a bad policy) before anything
	// is sent: try the record on a copy of the roster.
	if err := e.checkRosterBody(ctx, cg); err != nil {
		return identity.GroupID{}, err
	}
	id := cg.Policy.Group
	e.meta.Creating = &channelCreation{Group: hexID(id), Name: name, Admission: admission}
	if err := e.persistMeta(ctx); err != nil {
		return id, err
	}
	if err := e.ensureOwnGroup(ctx, roster.GroupInfo{Policy: cg.Policy, Name: cg.Name}); err != nil {
		return id, err
	}
	if err := e.crash("channel_published"); err != nil {
		return id, err
	}
	err = e.appendRoster(ctx, func() (roster.Body, error) {
		if _, ok := e.roster.Group(id); ok {
			return nil, nil // recorded by an earlier attempt whose answer was lost
		}
		return cg, nil
	})
	if err != nil {
		return id, err
	}
	return id, e.endCreation(ctx, id)
}

// liveChannelNamed finds the live channel named name (any case).
func (e *Engine) liveChannelNamed(name string) (roster.GroupInfo, bool) {
	for _, g := range e.roster.Groups() {
		if !g.Deleted && g.Policy.Kind == roster.KindChannel && strings.EqualFold(g.Name, name) {
			return g, true
		}
	}
	return roster.GroupInfo{}, false
}

// endCreation forgets the creation of id once its record is in the roster.
func (e *Engine) endCreation(ctx context.Context, id identity.GroupID) error {
	if p := e.meta.Creating; p == nil || identity.GroupID(p.Group) != id {
		return nil
	}
	e.meta.Creating = nil
	return e.persistMeta(ctx)
}

// heldGroups counts the groups this device holds state for whose roster
// record is live (a deleted channel's leftover state does not count
// against the 512 limit).
func (e *Engine) heldGroups() int {
	n := 0
	for id := range e.groups {
		if gi, ok := e.roster.Group(id); ok && !gi.Deleted {
			n++
		}
	}
	return n
}
