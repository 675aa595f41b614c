package app

import (
	"context"
	"time"

	"weald/backend/engine"
	"weald/backend/health"
)

// The Encryption & health panel (issue 14; spec/lifecycle.md "Ongoing
// health"; docs/protocol/health.md).

// HealthAction is a finding's resolve action.
type HealthAction struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Command string `json:"command"`
}

// HealthFinding is one check's result.
type HealthFinding struct {
	Check    string         `json:"check"`
	Title    string         `json:"title"`
	State    HealthState    `json:"state" ts_type:"'ok' | 'repaired' | 'action' | 'dismissed' | 'not_checked'"`
	Severity HealthSeverity `json:"severity" ts_type:"'info' | 'warning' | 'critical'"`
	Finding  string         `json:"finding"`
	Action   *HealthAction  `json:"action"`
	Groups   []string       `json:"groups"`
}

// HealthReport is the newest run; At is 0 before the first.
type HealthReport struct {
	At          int64           `json:"at"` // unix ms
	NeedsAction bool            `json:"needsAction"`
	Findings    []HealthFinding `json:"findings"`
}

// GroupEncryption is one group's encryption state.
type GroupEncryption struct {
	Channel       string  `json:"channel"`
	Group         string  `json:"group"`
	Kind          string  `json:"kind"`
	History       History `json:"history" ts_type:"'open' | 'closed'"`
	Epoch         uint64  `json:"epoch"`
	Devices       int     `json:"devices"`
	People        int     `json:"people"`
	TextDays      int     `json:"textDays"`  // 0 = unlimited
	MediaDays     int     `json:"mediaDays"` // 0 = unlimited
	DefaultPolicy bool    `json:"defaultPolicy"`
	ChainFrozen   bool    `json:"chainFrozen"`
	// LastCheckpoint and VerifiedFrom are unix ms, 0 for none.
	LastCheckpoint int64 `json:"lastCheckpoint"`
	VerifiedFrom   int64 `json:"verifiedFrom"`
}

// StoragePoint is the workspace's relay usage as read at At.
type StoragePoint struct {
	At         int64  `json:"at"` // unix ms
	LogBytes   uint64 `json:"logBytes"`
	LimitBytes uint64 `json:"limitBytes"` // 0: no budget
}

// RetentionProposal is a retention change waiting for admins' approval.
type RetentionProposal struct {
	ID         string   `json:"id"`
	Channel    string   `json:"channel"`
	TextDays   int      `json:"textDays"`  // 0 = unlimited
	MediaDays  int      `json:"mediaDays"` // 0 = unlimited
	Proposer   string   `json:"proposer"`
	ProposedAt int64    `json:"proposedAt"` // unix ms
	ApprovedBy []string `json:"approvedBy"`
	Threshold  int      `json:"threshold"`
	// Approvable: this device is an admin whose user has not approved it.
	Approvable bool `json:"approvable"`
	// Destroy: a compact-now waiting for approval (the windows are 0):
	// delete the channel's history on the relay below the checkpoint
	// written at CheckpointAt (0: not verified by this device), if
	// approved before ExpiresAt.
	Destroy      bool  `json:"destroy"`
	CheckpointAt int64 `json:"checkpointAt"` // unix ms
	// ExpiresAt: a destruction's or a resolution's last moment for
	// approvals (0 for a policy).
	ExpiresAt int64 `json:"expiresAt"` // unix ms
	// Resolve: the resolution of the channel's frozen retention chain
	// waiting for a second admin (the windows are 0), keeping the key of
	// epoch ResolveEpoch (0: a key this device's chain does not hold).
	// Approvable is false when this device does not derive that key.
	Resolve      bool   `json:"resolve"`
	ResolveEpoch uint64 `json:"resolveEpoch"`
}

// EncryptionHealth is everything the panel shows.
type EncryptionHealth struct {
	Report  HealthReport        `json:"report"`
	Groups  []GroupEncryption   `json:"groups"`
	Storage []StoragePoint      `json:"storage"`
	Pending []RetentionProposal `json:"pending"`
}

// healthTimeout bounds a run: it may send a recovery wrap per group.
const healthTimeout = 2 * time.Minute

// EncryptionHealth returns the newest health report, each group's
// encryption state and the storage history.
func (w *Workspaces) EncryptionHealth(ws string) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) { return e.Health(ctx) })
}

// RunHealth runs the health check now and returns the panel's state.
func (w *Workspaces) RunHealth(ws string) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) { return e.RunHealth(ctx) })
}

// DismissHealth dismisses a check's failure once (admin_devices only).
func (w *Workspaces) DismissHealth(ws, check string) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) {
		return e.DismissHealth(ctx, check)
	})
}

// ApproveRetention approves a pending retention change with this admin
// device (docs/protocol/retention.md "RetentionPolicy").
func (w *Workspaces) ApproveRetention(ws, id string) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) {
		if _, err := e.ApproveRetention(ctx, id); err != nil {
			return nil, err
		}
		return e.Health(ctx)
	})
}

// RegisterRecoveryQuorum registers the workspace's recovery quorum (an
// admin device): threshold of the people named by user id vouch for a
// device recovered with a recovery phrase (docs/protocol/roster.md
// "Recovery quorum"); then the check runs again, so the admin-devices row
// shows what it changed.
func (w *Workspaces) RegisterRecoveryQuorum(ws string, users []string, threshold int) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) {
		if _, err := e.SetRecoveryQuorum(ctx, users, threshold); err != nil {
			return nil, err
		}
		return e.RunHealth(ctx)
	})
}

// ResolveHealth runs a finding's resolve action where the panel has a
// button for it (docs/protocol/health.md "The panel"): "sync" syncs, which
// repairs what the sync repairs, then runs the check again; "compact_now"
// compacts every channel this device is in now (admins), then runs the
// check again; "resolve_chain" resolves every frozen retention chain of a
// channel this device is in (Engine.ResolveRetentionChain: admins; with
// several admins the first proposes the resolution, listed under Pending,
// and a second admin's resolve or approval publishes it), then runs the
// check again. Other actions are named with their
// command only.
func (w *Workspaces) ResolveHealth(ws, action string) (EncryptionHealth, error) {
	return w.encryptionHealth(ws, func(ctx context.Context, e *engine.Engine) (*health.Report, error) {
		switch action {
		case "sync":
			if _, err := e.Sync(ctx); err != nil {
				return nil, err
			}
		case "compact_now":
			if _, err := e.CompactAll(ctx, true); err != nil {
				return nil, err
			}
		case "resolve_chain":
			for _, g := range e.Encryption() {
				if !g.ChainFrozen {
					continue
				}
				if _, err := e.ResolveRetentionChain(ctx, g.Group); err != nil {
					return nil, err
				}
			}
		default:
			return nil, &Error{Code: "bad_request/health_action", Message: "The panel cannot run that action; use the command it names."}
		}
		return e.RunHealth(ctx)
	})
}

func (w *Workspaces) encryptionHealth(ws string, report func(context.Context, *engine.Engine) (*health.Report, error)) (EncryptionHealth, error) {
	r, err := w.run(ws)
	if err != nil {
		return EncryptionHealth{}, err
	}
	ctx, cancel := w.healthCtx()
	defer cancel()
	rep, rerr := report(ctx, r.eng)
	if rerr != nil {
		return EncryptionHealth{}, toError(rerr)
	}
	samples, serr := r.eng.StorageHistory(ctx)
	if serr != nil {
		return EncryptionHealth{}, toError(serr)
	}
	out := EncryptionHealth{Report: toHealthReport(rep), Groups: []GroupEncryption{}, Storage: []StoragePoint{}, Pending: []RetentionProposal{}}
	for _, p := range r.eng.PendingRetentions() {
		out.Pending = append(out.Pending, RetentionProposal{ID: p.ID, Channel: p.Channel, TextDays: days(p.TextWindow),
			MediaDays: days(p.MediaWindow), Proposer: p.Proposer, ProposedAt: unixMs(p.ProposedAt),
			ApprovedBy: append([]string{}, p.Approvals...), Threshold: p.Threshold, Approvable: p.Approvable,
			Destroy: p.Destroy, CheckpointAt: unixMs(p.CheckpointAt), ExpiresAt: unixMs(p.Expires),
			Resolve: p.Resolve, ResolveEpoch: p.ResolveEpoch})
	}
	for _, g := range r.eng.Encryption() {
		out.Groups = append(out.Groups, GroupEncryption{Channel: g.Channel, Group: g.Group, Kind: g.Kind, History: History(g.History),
			Epoch: g.Epoch, Devices: g.Devices, People: g.People, TextDays: days(g.TextWindow), MediaDays: days(g.MediaWindow),
			DefaultPolicy: g.DefaultPolicy, ChainFrozen: g.ChainFrozen, LastCheckpoint: unixMs(g.LastCheckpoint), VerifiedFrom: unixMs(g.VerifiedFrom)})
	}
	for _, s := range samples {
		out.Storage = append(out.Storage, StoragePoint{At: s.At.UnixMilli(), LogBytes: s.LogBytes, LimitBytes: s.LimitBytes})
	}
	return out, nil
}

// healthCtx is a call's context bounded by healthTimeout instead of
// callTimeout: a health run or a retention preview may read a group's log.
func (w *Workspaces) healthCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := w.callCtx()
	cancel()
	return context.WithTimeout(context.WithoutCancel(ctx), healthTimeout)
}

func toHealthReport(r *health.Report) HealthReport {
	out := HealthReport{Findings: []HealthFinding{}}
	if r == nil {
		return out
	}
	out.At, out.NeedsAction = r.At.UnixMilli(), r.NeedsAction()
	for _, f := range r.Findings {
		hf := HealthFinding{Check: string(f.Check), Title: f.Title, State: HealthState(f.State), Severity: HealthSeverity(f.Severity),
			Finding: f.Finding, Groups: append([]string{}, f.Groups...)}
		if f.Action != nil {
			hf.Action = &HealthAction{ID: f.Action.ID, Label: f.Action.Label, Command: f.Action.Command}
		}
		out.Findings = append(out.Findings, hf)
	}
	return out
}

// days is a retention window in whole days, rounded up (0 = unlimited).
func days(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + 24*time.Hour - 1) / (24 * time.Hour))
}

func unixMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
