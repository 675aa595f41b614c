package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"weald/backend/errcode"
	"weald/backend/health"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// The weekly health check (spec/lifecycle.md "Ongoing health";
// docs/protocol/health.md): the engine gathers backend/health's Facts,
// makes the repairs the spec makes automatic, runs the checks, keeps the
// report and emits EventHealth. It runs at the end of a sync when the last
// run is 7 days old (so at launch after a week away) and on demand.

// groupHealth is what the check reads from a group's log as it is
// processed.
type groupHealth struct {
	// Wrapped: a recovery.wrap of this user's is in the log, at seq
	// WrapSeq, processed in epoch WrapEpoch.
	Wrapped   bool   `json:"wrapped,omitempty"`
	WrapEpoch uint64 `json:"wrap_epoch,omitempty"`
	WrapSeq   uint64 `json:"wrap_seq,omitempty"`
	// HasHistory: a history.publish this member opened is in the log,
	// sealed under root epoch HistoryEpoch (the newest such).
	HasHistory   bool   `json:"has_history,omitempty"`
	HistoryEpoch uint64 `json:"history_epoch,omitempty"`
	// DirWant is the seq of the newest recovery.wrap this device sent, for
	// the recovery principal DirOwner; DirPut the last one it named in the
	// recovery tag directory (recoverydir.go: owed while they differ).
	DirWant  uint64 `json:"dir_want,omitempty"`
	DirOwner hexID  `json:"dir_owner,omitzero"`
	DirPut   uint64 `json:"dir_put,omitempty"`
}

func (h *groupHealth) noteHistory(rootEpoch uint64) {
	if !h.HasHistory || rootEpoch >= h.HistoryEpoch {
		h.HasHistory, h.HistoryEpoch = true, rootEpoch
	}
}

// noteOwnWrap records a recovery.wrap this device sent for epoch at seq.
func (h *groupHealth) noteOwnWrap(epoch, seq uint64) {
	h.Wrapped, h.WrapEpoch, h.WrapSeq = true, epoch, seq
}

// noteWrap records a recovery.wrap of this user's (sent by any of the
// user's devices) at the group's current epoch.
func (e *Engine) noteWrap(g *group, se *wire.SeqEnvelope) {
	if tag, ok := wire.WrapTag(se.Envelope.CT); ok && g.rec.WrapIndex {
		a := hexID(se.Envelope.Author).hex()
		if !slices.Contains(g.rec.WrapTags[a], hexID(tag)) {
			if g.rec.WrapTags == nil {
				g.rec.WrapTags = map[string][]hexID{}
			}
			g.rec.WrapTags[a] = append(g.rec.WrapTags[a], hexID(tag))
		}
	}
	d, ok := e.roster.Device(identity.DeviceID(se.Envelope.Author))
	if !ok || d.User != identity.UserID(e.meta.User) || g.mls == nil {
		return
	}
	g.rec.Health.noteOwnWrap(g.mls.Epoch(), se.Seq)
}

// EventHealth: a health check ran; Health returns its report.
const EventHealth EventKind = "health"

// ErrUnknownCheck refuses a dismissal of a check that cannot be dismissed.
var ErrUnknownCheck = errcode.New("health/not_dismissable", "only the admin-devices check can be dismissed")

// Health returns the newest stored health report (nil before the first
// run).
func (e *Engine) Health(ctx context.Context) (*health.Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastHealth(ctx)
}

func (e *Engine) lastHealth(ctx context.Context) (*health.Report, error) {
	var runs [][]byte
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		runs, err = tx.HealthRuns(1)
		return err
	}); err != nil || len(runs) == 0 {
		return nil, err
	}
	r, err := health.DecodeReport(runs[0])
	if err != nil {
		return nil, fmt.Errorf("engine: stored health report: %w", err)
	}
	return r, nil
}

// RunHealth connects, catches up the roster and runs every check now.
func (e *Engine) RunHealth(ctx context.Context) (*health.Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return nil, err
	}
	return e.runHealth(ctx)
}

// DismissHealth dismisses the failure of check id once (spec: the
// admin-devices row is "shown until resolved or explicitly dismissed
// once"); the stored report is updated at once.
func (e *Engine) DismissHealth(ctx context.Context, id string) (*health.Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if health.ID(id) != health.AdminDevices {
		return nil, ErrUnknownCheck
	}
	if e.meta.HealthDismissed == nil {
		e.meta.HealthDismissed = map[string]bool{}
	}
	e.meta.HealthDismissed[id] = true
	if err := e.persistMeta(ctx); err != nil {
		return nil, err
	}
	r, err := e.lastHealth(ctx)
	if err != nil || r == nil {
		return r, err
	}
	for i, f := range r.Findings {
		if f.Check == health.ID(id) && f.State == health.StateAction {
			r.Findings[i].State = health.StateDismissed
		}
	}
	return r, e.keepHealth(ctx, r)
}

// healthIfDue runs the check when the last run is 7 days old or more
// (the engine's clock). A failure to run is an alert, never a failed sync.
func (e *Engine) healthIfDue(ctx context.Context) {
	if e.meta.Agent != nil {
		return // an agent has no recovery, no admin role and no panel
	}
	if e.healthLast.IsZero() {
		if r, err := e.lastHealth(ctx); err == nil && r != nil {
			e.healthLast = r.At
		}
	}
	if !health.Due(e.healthLast, e.now()) {
		return
	}
	if _, err := e.runHealth(ctx); err != nil {
		e.raise(ctx, Alert{Code: "health/failed", Message: fmt.Sprintf("The weekly health check could not run: %v", err)})
	}
}

func (e *Engine) runHealth(ctx context.Context) (*health.Report, error) {
	f, err := e.healthFacts(ctx)
	if err != nil {
		return nil, err
	}
	r := health.Run(f)
	if err := e.keepHealth(ctx, r); err != nil {
		return nil, err
	}
	e.healthLast = r.At
	e.emit(Event{Kind: EventHealth})
	return r, nil
}

func (e *Engine) keepHealth(ctx context.Context, r *health.Report) error {
	b, err := r.Encode()
	if err != nil {
		return err
	}
	return e.db.update(ctx, func(t *txn) error { return t.tx.PutHealthRun(r.At.UnixMilli(), b) })
}

// healthFacts gathers the facts, repairing on the way what the spec
// repairs by itself: a stale recovery wrap is sent again, a stale
// history.publish republished, a stale access set republished by an admin.
func (e *Engine) healthFacts(ctx context.Context) (*health.Facts, error) {
	now := e.now()
	f := &health.Facts{Now: now, RosterRefused: -1, Dismissed: map[health.ID]bool{}}
	for k, v := range e.meta.HealthDismissed {
		f.Dismissed[health.ID(k)] = v
	}
	_, f.HasRecovery = e.recoveryKeys()
	f.Admin = e.roster.IsAdmin(e.devID)
	if e.rosterStuck != nil {
		f.RosterRefused, f.RosterBreak = e.rosterStuck.Index, e.rosterBreak
	}
	st := e.attestations(ctx)
	f.Attested = len(st.Attested)
	for _, a := range e.alerts {
		if a.Code == string(AlertSplitView) {
			f.SplitViews++
		}
	}
	for _, d := range e.silentDevices(st) {
		f.Silent = append(f.Silent, "device "+d[:8])
	}
	rootEpoch, _, _ := e.currentEnrol()
	var gs []*group
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || !e.member(gi.Policy.Group) {
			continue
		}
		g := e.groups[gi.Policy.Group]
		hg, err := e.groupHealthFacts(ctx, g, gi, rootEpoch, f.HasRecovery, now)
		if err != nil {
			return nil, err
		}
		f.Groups = append(f.Groups, hg)
		gs = append(gs, g)
	}
	e.recoveryDirFacts(ctx, f, gs) // names the wraps sent again first
	for _, u := range e.roster.Users() {
		for _, d := range u.Devices {
			if di, _ := e.roster.Device(d); di.Probation && e.roster.DeviceLive(d) {
				f.Probation = append(f.Probation, fmt.Sprintf("%s's device %s", userLabel(u), d.ShortString()))
			}
			if e.roster.IsAdmin(d) {
				f.AdminDevices++
			}
		}
	}
	f.RecoveryQuorum = e.roster.QuorumLive()
	_, f.QuorumRegistered = e.roster.RecoveryQuorum()
	if err := e.accessFacts(ctx, f); err != nil {
		return nil, err
	}
	if st, err := e.storage(ctx); err == nil {
		f.StorageKnown, f.LogBytes, f.LimitBytes = true, st.LogBytes, st.LimitBytes
	}
	return f, nil
}

func userLabel(u roster.UserInfo) string {
	if u.Name != "" {
		return u.Name
	}
	return u.ID.ShortString()
}

// groupLabel names a group in a finding: its channel name, or "DM with X".
func (e *Engine) groupLabel(gi roster.GroupInfo) string {
	if gi.Policy.Kind == roster.KindDM {
		if u, ok := e.roster.User(e.dmPeer(gi)); ok {
			return "DM with " + userLabel(u)
		}
		return "a DM"
	}
	return gi.Name
}

func (e *Engine) groupHealthFacts(ctx context.Context, g *group, gi roster.GroupInfo, rootEpoch uint64, recovery bool, now time.Time) (health.Group, error) {
	h := &g.rec.Health
	// A chain ending in a key no member derives stops compaction without
	// freezing: contested here (when this member proves it), it freezes
	// and the row offers the resolve.
	_, _ = e.contestForged(ctx, g)
	hg := health.Group{Name: e.groupLabel(gi), Epoch: g.mls.Epoch(), ChainFrozen: g.rec.Retention.Chain.Frozen,
		OpenParent: gi.Policy.History == roster.HistoryOpen && gi.Policy.Admission == roster.AdmissionParent,
		RootEpoch:  rootEpoch}
	// A drop at or above the wrap took it from the relay.
	wrapped := h.Wrapped && g.rec.Retention.DroppedBelow <= h.WrapSeq
	if recovery && (!wrapped || h.WrapEpoch < hg.Epoch) {
		if err := e.resendWrap(ctx, g); err == nil {
			hg.WrapRepaired = true
		}
	}
	hg.Wrapped, hg.WrapEpoch = h.Wrapped && g.rec.Retention.DroppedBelow <= h.WrapSeq, h.WrapEpoch // after a resend: the new one
	if hg.OpenParent && (!h.HasHistory || h.HistoryEpoch < rootEpoch) {
		if err := e.publishBundles(ctx, g, &gi.Policy); err == nil {
			h.noteHistory(rootEpoch)
			hg.HistoryRepaired = true
			if err := e.persistGroup(ctx, g); err != nil {
				return hg, err
			}
		}
	}
	hg.HasHistory, hg.HistoryEpoch = h.HasHistory, h.HistoryEpoch
	for _, m := range g.mls.Members() {
		if len(m.Credential.Identity) != 32 {
			continue
		}
		a := identity.AgentID(m.Credential.Identity)
		if _, ok := e.roster.Agent(a); ok && !e.roster.AgentLive(a, now) {
			hg.ExpiredAgents = append(hg.ExpiredAgents, a.ShortString())
		}
	}
	return hg, nil
}

// resendWrap sends this user's recovery.wrap of g at its current epoch.
func (e *Engine) resendWrap(ctx context.Context, g *group) error {
	id := identity.GroupID(g.rec.ID)
	wrap, err := e.recoveryWrap(id, g.mls, g.history)
	if err != nil {
		return err
	}
	seq, err := e.sendCT(ctx, g, wire.KindRecoveryWrap, wrap)
	if err != nil {
		return err
	}
	e.ownWrapSent(g, g.mls.Epoch(), seq)
	return e.persistGroup(ctx, g)
}

// accessFacts reads the relay's current access set; an admin device
// republishes one older than 7 days (spec: "Republished automatically on
// next admin connect").
func (e *Engine) accessFacts(ctx context.Context, f *health.Facts) error {
	ac, err := e.client.CurrentAccessSet(ctx)
	if err != nil {
		return nil // AccessSetKnown stays false
	}
	at := time.Unix(int64(ac.AcceptedAt), 0)
	if f.Now.Sub(at) > health.AccessSetMaxAge && e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err == nil {
			f.AccessRepaired = true
			if ac2, err := e.client.CurrentAccessSet(ctx); err == nil {
				at = time.Unix(int64(ac2.AcceptedAt), 0)
			}
		}
	}
	f.AccessSetKnown, f.AccessSetAt = true, at
	return nil
}

// StorageSample is the workspace's relay usage as read at At (STATS).
type StorageSample struct {
	At         time.Time `json:"at"`
	LogBytes   uint64    `json:"log_bytes"`
	LimitBytes uint64    `json:"limit_bytes"` // 0: no budget
}

// StorageHistory returns the kept storage samples, oldest first (at most
// store.KeptStorageSamples).
func (e *Engine) StorageHistory(ctx context.Context) ([]StorageSample, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var rows [][]byte
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		rows, err = tx.StorageSamples(store.KeptStorageSamples)
		return err
	}); err != nil {
		return nil, err
	}
	out := make([]StorageSample, 0, len(rows))
	for _, b := range rows {
		var s StorageSample
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("engine: stored storage sample: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}

// keepStorageSample stores what STATS said at now; a failure is not the
// caller's (the figures were read).
func (e *Engine) keepStorageSample(ctx context.Context, s StorageSample) {
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	_ = e.db.update(ctx, func(t *txn) error { return t.tx.PutStorageSample(s.At.UnixMilli(), b) })
}
