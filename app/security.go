package app

import (
	"context"
	"sort"
	"strings"
	"time"

	"weald/backend/engine"
)

// The Security view (issue 12; spec/lifecycle.md "Key compromise",
// "Detection"; docs/protocol/desktop-ui.md "Security"): the alerts list with
// the action each calls for and an acknowledgement kept on this device,
// approving a device on probation, revoking every agent a device issued,
// and rotating the recovery phrase.

// SecurityAlert is one alert of the Security view (engine.AlertView), with
// its acknowledgement on this device.
type SecurityAlert struct {
	ID      string    `json:"id"`
	Code    string    `json:"code"`
	Tone    AlertTone `json:"tone" ts_type:"'notice' | 'alert'"`
	Summary string    `json:"summary"` // one plain sentence
	Detail  string    `json:"detail"`  // the engine's own sentence (it may name CLI commands)
	Time    int64     `json:"time"`    // unix ms
	// ActorName is the person (or agent, or "<name>'s recovery phrase")
	// that acted; ActorDevice the acting device's id, if a device acted.
	ActorName   string `json:"actorName"`
	ActorDevice string `json:"actorDevice"`
	// Device is the device the alert concerns, DeviceName whose it is.
	Device     string `json:"device"`
	DeviceName string `json:"deviceName"`
	// What this device can do about it now (engine.AlertView).
	Approve bool `json:"approve"`
	Revoke  bool `json:"revoke"`
	Rotate  bool `json:"rotate"`
	// Vouch: vouch for the device as a member of the recovery quorum.
	Vouch bool `json:"vouch"`
	// Acknowledged: when (unix ms; 0: not yet) and how.
	Acknowledged int64        `json:"acknowledged"`
	Outcome      AlertOutcome `json:"outcome" ts_type:"'' | 'dismissed' | 'approved' | 'vouched' | 'revoked' | 'rotated'"`
	// namesPending: the summary names someone whose name is not known yet
	// (engine.AlertView.NamesPending); renameAlerts reads it again later.
	namesPending bool
}

// SecurityAlerts lists the workspace's alerts, newest first.
func (w *Workspaces) SecurityAlerts(ws string) ([]SecurityAlert, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	return w.securityAlerts(r), nil
}

func (w *Workspaces) securityAlerts(r *wsRun) []SecurityAlert {
	ctx, cancel := w.callCtx()
	defer cancel()
	views := r.eng.AlertViews(ctx)
	r.mu.Lock()
	acked := r.prefs.Acked
	r.mu.Unlock()
	out := make([]SecurityAlert, 0, len(views))
	for i := len(views) - 1; i >= 0; i-- {
		a := toSecurityAlert(views[i])
		if k, ok := acked[a.ID]; ok {
			a.Acknowledged, a.Outcome = k.At, AlertOutcome(k.Outcome)
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time > out[j].Time })
	return out
}

func toSecurityAlert(v engine.AlertView) SecurityAlert {
	return SecurityAlert{ID: v.ID, Code: v.Code, Tone: AlertTone(v.Tone), Summary: v.Summary, Detail: sentenceOf(v.Message),
		Time: v.Time.UnixMilli(), ActorName: v.ActorName, ActorDevice: v.ActorDevice, Device: v.Device, DeviceName: v.DeviceName,
		Approve: v.Approve, Revoke: v.Revoke, Rotate: v.Rotate, Vouch: v.Vouch, namesPending: v.NamesPending}
}

// DismissAlert acknowledges one alert on this device ("dismissed"); it
// stays in the list, marked. An unknown id is refused (alert/unknown).
func (w *Workspaces) DismissAlert(ws, id string) ([]SecurityAlert, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	if err := w.acknowledge(r, OutcomeDismissed, func(a SecurityAlert) bool { return a.ID == id }); err != nil {
		return nil, err
	}
	return w.securityAlerts(r), nil
}

// acknowledge marks every alert not yet acknowledged that match picks
// with outcome, and forgets acknowledgements of alerts the engine no
// longer keeps. With none matching it refuses (alert/unknown) when
// outcome is a dismissal, and does nothing otherwise.
func (w *Workspaces) acknowledge(r *wsRun, outcome AlertOutcome, match func(SecurityAlert) bool) *Error {
	list := w.securityAlerts(r)
	now := time.Now().UnixMilli()
	hit := false
	for _, a := range list {
		if a.Acknowledged == 0 && match(a) {
			hit = true
		}
	}
	if !hit {
		if outcome == OutcomeDismissed {
			return &Error{Code: "alert/unknown", Message: "That alert is not in this workspace's list, or was acknowledged already."}
		}
		return nil
	}
	return w.updatePrefs(r, func(p *prefs) {
		next := map[string]ack{}
		for _, a := range list {
			switch k, ok := p.Acked[a.ID]; {
			case ok:
				next[a.ID] = k
			case match(a):
				next[a.ID] = ack{At: now, Outcome: string(outcome)}
			}
		}
		p.Acked = next
	})
}

// ApproveDevice ends the probation of a device recovered with a recovery
// phrase (engine.ApproveDevice: an admin device admitted before it), and
// marks the alerts about it approved.
func (w *Workspaces) ApproveDevice(ws, device string) error {
	return w.settleRecovered(ws, device, OutcomeApproved, func(r *wsRun, ctx context.Context) error {
		_, err := r.eng.ApproveDevice(ctx, device)
		return err
	})
}

// VouchDevice vouches, as a member of the recovery quorum, for a device
// recovered with a recovery phrase (engine.VouchDevice; the quorum's
// threshold-th vouch ends its probation), and marks the alerts about it
// vouched.
func (w *Workspaces) VouchDevice(ws, device string) error {
	return w.settleRecovered(ws, device, OutcomeVouched, func(r *wsRun, ctx context.Context) error {
		_, err := r.eng.VouchDevice(ctx, device)
		return err
	})
}

// settleRecovered runs act on a recovered device, then marks the alerts
// about it with outcome.
func (w *Workspaces) settleRecovered(ws, device string, outcome AlertOutcome, act func(*wsRun, context.Context) error) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	ctx, cancel := w.longCtx()
	defer cancel()
	if aerr := act(r, ctx); aerr != nil {
		return toError(aerr)
	}
	if err := w.acknowledge(r, outcome, concerning(device)); err != nil {
		return err
	}
	w.emitWorkspaces()
	return nil
}

// concerning matches the alerts about device (a full id).
func concerning(device string) func(SecurityAlert) bool {
	device = strings.ToLower(device)
	return func(a SecurityAlert) bool { return a.Device != "" && a.Device == device }
}

// RevokeAgentsIssuedBy revokes, in one roster operation, every agent whose
// certificate device issued (engine.RevokeAgentsIssuedBy: one of your
// devices, or anyone's for an admin); it returns the agents revoked.
func (w *Workspaces) RevokeAgentsIssuedBy(ws, device string) ([]Agent, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	ctx, cancel := w.longCtx()
	defer cancel()
	vs, rerr := r.eng.RevokeAgentsIssuedBy(ctx, device)
	if rerr != nil {
		return nil, toError(rerr)
	}
	out := []Agent{}
	for _, v := range vs {
		out = append(out, agentOf(v))
	}
	w.emitWorkspaces()
	return out, nil
}

// RecoveryRotation is a new recovery phrase from RotateRecovery.
type RecoveryRotation struct {
	// Phrase: the new 24 words, shown once; the UI has them confirmed
	// (ConfirmRecoveryRotation).
	Phrase []string `json:"phrase"`
	// Rewrapped: the channels whose recovery copy was sealed to the new phrase.
	Rewrapped int `json:"rewrapped"`
	// AccessVersion: the access set published without the old phrase (0
	// when this device is no admin: an admin's device publishes it).
	AccessVersion uint64 `json:"accessVersion"`
}

// RecoveryState is where this person's recovery phrase stands on this
// device.
type RecoveryState struct {
	// Unfinished: a rotation started and did not finish (the app closed,
	// the relay could not be reached); RotateRecovery finishes it, with
	// the phrase it drew.
	Unfinished bool `json:"unfinished"`
	// Unconfirmed: when the new phrase of a finished rotation was handed
	// to the UI and not confirmed (unix ms; 0: none). It cannot be shown
	// again: rotating again replaces it.
	Unconfirmed int64 `json:"unconfirmed"`
}

// RecoveryState says whether a rotation is unfinished or unconfirmed.
func (w *Workspaces) RecoveryState(ws string) (RecoveryState, error) {
	r, err := w.run(ws)
	if err != nil {
		return RecoveryState{}, err
	}
	r.mu.Lock()
	shown := r.prefs.RotationShown
	r.mu.Unlock()
	return RecoveryState{Unfinished: r.eng.RecoveryRotationPending(), Unconfirmed: shown}, nil
}

// RotateRecovery replaces this person's recovery phrase
// (engine.RotateRecovery): the old one is revoked, every channel this
// device is in gets a recovery copy for the new one, and an admin device
// publishes the access set without the old one. An unfinished rotation is
// finished, with the phrase it drew. The alerts that called for it (and
// for nothing else still open) are marked rotated.
func (w *Workspaces) RotateRecovery(ws string) (RecoveryRotation, error) {
	r, err := w.run(ws)
	if err != nil {
		return RecoveryRotation{}, err
	}
	ctx, cancel := w.longCtx()
	defer cancel()
	res, rerr := r.eng.RotateRecovery(ctx)
	if rerr != nil {
		return RecoveryRotation{}, toError(rerr)
	}
	out := RecoveryRotation{Phrase: strings.Fields(res.Phrase), Rewrapped: res.Rewrapped, AccessVersion: res.AccessVersion}
	if err := w.updatePrefs(r, func(p *prefs) { p.RotationShown = time.Now().UnixMilli() }); err != nil {
		w.app.logger.Printf("workspace %s: %s", r.id, err.Message)
	}
	if err := w.acknowledge(r, OutcomeRotated, func(a SecurityAlert) bool { return a.Rotate && !a.Revoke && !a.Approve }); err != nil {
		w.app.logger.Printf("workspace %s: %s", r.id, err.Message)
	}
	return out, nil
}

// ConfirmRecoveryRotation records that the new phrase was confirmed.
func (w *Workspaces) ConfirmRecoveryRotation(ws string) error {
	r, err := w.run(ws)
	if err != nil {
		return err
	}
	if err := w.updatePrefs(r, func(p *prefs) { p.RotationShown = 0 }); err != nil {
		return err
	}
	return nil
}

// longCtx bounds a call that may rotate many groups by removalTimeout
// rather than the 30 s of an ordinary call.
func (w *Workspaces) longCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := w.callCtx()
	cancel()
	return context.WithTimeout(context.WithoutCancel(ctx), removalTimeout)
}

// alertEvent is the frontend event for an alert the engine just raised:
// its view read now (the newest kept alert with its code and message).
// ok is false for a roster change the list folds into the approval
// request of the same operation, which has an event of its own.
func (w *Workspaces) alertEvent(r *wsRun, ev engine.Event) (out Alert, ok bool) {
	out = Alert{Workspace: r.id, Code: ev.Code, Message: sentenceOf(ev.Message), Tone: ToneAlert}
	for _, a := range w.securityAlerts(r) {
		if a.Code == ev.Code && a.Detail == sentenceOf(ev.Message) {
			out.ID, out.Tone, out.Message = a.ID, a.Tone, a.Summary
			if a.namesPending {
				r.unnamed[a.ID] = unnamedAlert{out, time.Now().Add(unnamedWait)}
			}
			return out, true
		}
	}
	return out, ev.Code != string(engine.AlertRosterChange)
}

// maxUnnamed bounds the alerts waiting for their actor's name, and
// unnamedWait how long one waits: a name that has not come by then is not
// looked for on every later event.
const (
	maxUnnamed  = 64
	unnamedWait = 10 * time.Minute
)

// unnamedAlert is an alert whose event went out before the name of a
// person it names was known, with the time after which renameAlerts stops looking.
type unnamedAlert struct {
	Alert
	until time.Time
}

// renameAlerts emits again, with the same id, the event of an alert
// that named someone without a name yet when it was raised (a person's
// name comes with a set-name operation after the one that admitted them): once the name is known its summary says it, and the window's
// banner shows that instead of "user 1a2b3c4d". Called on roster and
// message events, on the event loop.
func (w *Workspaces) renameAlerts(r *wsRun) {
	now := time.Now()
	for id, u := range r.unnamed {
		if now.After(u.until) {
			delete(r.unnamed, id)
		}
	}
	if len(r.unnamed) == 0 {
		return
	}
	for _, a := range w.securityAlerts(r) {
		was, ok := r.unnamed[a.ID]
		if !ok {
			continue
		}
		if a.Summary != was.Message {
			was.Message = a.Summary
			w.app.emit(w.ctx, EventAlert, was.Alert)
		}
		if !a.namesPending {
			delete(r.unnamed, a.ID)
		} else {
			r.unnamed[a.ID] = was
		}
	}
}
