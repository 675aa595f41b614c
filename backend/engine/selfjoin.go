package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
)

type chacha struct{ r *rand.ChaCha8 }

func (c chacha) Read(p []byte) (int, error) { return c.r.Read(p) }

// externalJoin makes an external commit into group id from a GroupInfo,
// with JoinData in its authenticated_data that binds the new leaf's
// signature key. mls.ExternalJoin draws the leaf key itself, so the join is
// computed twice from the same random stream: once to learn the key, once
// with the signed JoinData (docs/protocol/engine-requests.md asks for an
// option to pass the key in instead).
func (e *Engine) externalJoin(id identity.GroupID, groupInfo []byte, path uint8, pol *roster.GroupPolicy) (*mls.Group, []byte, error) {
	var seed [32]byte
	if _, err := io.ReadFull(e.rand, seed[:]); err != nil {
		return nil, nil, err
	}
	dev, ok := e.roster.Device(e.devID)
	if !ok {
		return nil, nil, groups.ErrNotEntitled
	}
	cfg := func() *mls.Config { return &mls.Config{Rand: chacha{rand.NewChaCha8(seed)}, Now: e.now} }
	placeholder := groups.JoinData{Path: path, LeafSigKey: make([]byte, 32), Signature: make([]byte, 64)}
	m1, _, err := mls.ExternalJoin(cfg(), groupInfo, nil, e.credential(), mls.ExternalJoinOptions{AuthenticatedData: placeholder.Encode()})
	if err != nil {
		return nil, nil, err
	}
	leafKey := ownLeafKey(m1)
	jd, err := groups.NewJoinData(e.dev, dev.Admitted, path, pol, [32]byte(id), m1.Epoch(), leafKey)
	if err != nil {
		return nil, nil, err
	}
	m2, msg, err := mls.ExternalJoin(cfg(), groupInfo, nil, e.credential(), mls.ExternalJoinOptions{AuthenticatedData: jd.Encode()})
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(ownLeafKey(m2), leafKey) {
		return nil, nil, errors.New("engine: the external join did not reproduce its leaf key")
	}
	state, err := m2.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	m, err := mls.LoadGroup(e.mlsCfg, state) // continue with the engine's own randomness
	return m, msg, err
}

func ownLeafKey(m *mls.Group) []byte {
	for _, mem := range m.Members() {
		if mem.Index == m.OwnLeaf() {
			return mem.SignatureKey
		}
	}
	return nil
}

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
	if len(e.groups) > groups.MaxGroups {
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
	return len(kept)
}

// selfJoin joins one parent channel: the latest standing bundles (and the
// history keys of an open group) from its log, an external commit with
// JoinData, then the channel's history, then fresh bundles.
func (e *Engine) selfJoin(ctx context.Context, id identity.GroupID) error {
	gi, ok := e.roster.Group(id)
	if !ok {
		return ErrNoChannel
	}
	if e.roster.Entitlement(id, identity.DevicePrincipal(e.devID), e.now(), e.member) != roster.JoinSelf {
		return groups.ErrNotEntitled
	}
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 || !e.rootFresh {
			// The root first: its latest epoch secrets open the latest bundles.
			if root := e.groups[e.roster.RootGroup()]; root != nil && root.mls != nil {
				if err := e.catchUp(ctx, root); err != nil {
					return err
				}
			}
		}
		b, err := e.latestBundles(ctx, id)
		if err != nil {
			return err
		}
		if b.info == nil {
			return fmt.Errorf("groups/no_bundle: channel %s has no standing group info this device can open", gi.Name)
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
			return err
		}
		g := e.groupState(id)
		var readTo uint64
		if len(b.log) > 0 {
			readTo = b.log[len(b.log)-1].Seq
		}
		seq, err := e.sendJoin(ctx, g, msg, m, keys)
		if err != nil {
			return err
		}
		if e.meta.SelfJoins == nil {
			e.meta.SelfJoins = map[string][]time.Time{}
		}
		e.meta.SelfJoins[hexID(id).hex()] = append(e.meta.SelfJoins[hexID(id).hex()], e.now())
		if lost, err := e.lostRace(ctx, id, b.log, readTo, seq, m.Epoch()-1); err != nil {
			return err
		} else if lost {
			continue
		}
		g.mls, g.history = m, keys
		if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, false); err != nil {
			return err
		}
		if err := e.processEnvelopes(ctx, g, b.log); err != nil {
			return err
		}
		if err := e.persistMeta(ctx); err != nil {
			return err
		}
		return e.publishBundles(ctx, g, &gi.Policy)
	}
	return errors.New("mls/busy: the channel kept moving; the join will be retried")
}

// repairBundles republishes, on connect, the standing bundles of the
// channels this device is in whose latest bundle is sealed under an older
// root epoch, and re-issues stale invite bundles (docs/protocol/groups.md
// "When published": self-healing when a root committer did not finish).
func (e *Engine) repairBundles(ctx context.Context) error {
	epoch, _, ok := e.currentEnrol()
	if !ok {
		return nil
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Policy.Admission != roster.AdmissionParent || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		if g.rec.BundleEpoch < epoch {
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
	var rep SyncReport
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
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return rep, err
		}
	}
	if err := e.repairBundles(ctx); err != nil {
		return rep, err
	}
	if e.roster.DeviceLive(e.devID) {
		if err := e.ensureKeyPackages(ctx); err != nil {
			return rep, err
		}
		if err := e.acceptWelcomes(ctx); err != nil {
			return rep, err
		}
	}
	jr, err := e.runJoinLoop(ctx)
	rep.Joined = jr
	rep.Ready = e.ready()
	if err != nil && !errors.Is(err, groups.ErrSelfJoinRate) {
		return rep, err
	}
	if rep.Ready && !e.meta.Steps[StepReady] {
		e.meta.Steps[StepReady] = true
		if err := e.persistMeta(ctx); err != nil {
			return rep, err
		}
		e.emit(Event{Kind: EventReady})
	}
	return rep, err
}

// CreateChannel creates a channel: its GroupPolicy in the roster (history
// follows admission), its MLS group with this device as the sole member
// and, for a parent channel, its standing bundles, so every entitled member
// joins it on their next sync.
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
	if len(e.roster.Groups()) >= groups.MaxGroups {
		e.mu.Unlock()
		return Channel{}, groups.ErrGroupsLimit
	}
	var id identity.GroupID
	err := e.appendRoster(ctx, func() (roster.Body, error) {
		cg, err := roster.NewChannel(e.rand, e.roster, name, admission)
		if err == nil {
			id = cg.Policy.Group
		}
		return cg, err
	})
	if err == nil {
		gi, _ := e.roster.Group(id)
		err = e.ensureOwnGroup(ctx, gi)
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
