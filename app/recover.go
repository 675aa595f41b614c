package app

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"weald/backend/engine"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Recovery onto a new device with the recovery phrase, in the desktop app
// (issue 12; spec/lifecycle.md "Key compromise": "recover onto a new
// device, which revokes the old one as its last step"; docs/protocol/
// lifecycle.md "Recovery onto a new device", desktop-ui.md "Recovering with
// the phrase"). The first-run screen's third way in: the 24 words and
// where the workspace is, then a status screen until the probation ends.

// Recovery is a recovery onto this device (engine.RecoveryStatus) as the
// status screen shows it.
type Recovery struct {
	Stage RecoveryStage `json:"stage" ts_type:"'listing' | 'approval' | 'wait' | 'finishing' | 'done'"`
	// Device is this device's id (hex), as an admin's approval request
	// names it.
	Device string `json:"device"`
	// Listed: the relay lets this device connect with its own key.
	Listed bool `json:"listed"`
	// ProbationEnds is when the phrase may end the only admin's probation
	// (unix ms; 0 when another admin approves).
	ProbationEnds int64 `json:"probationEnds"`
	// RevokedOld: how many older devices of the person this device revoked
	// (known while the app runs).
	RevokedOld int `json:"revokedOld"`
}

func recoveryOf(st engine.RecoveryStatus) *Recovery {
	out := &Recovery{Device: strings.TrimPrefix(st.Device, "dev_"), Listed: st.Listed, RevokedOld: len(st.RevokedOld)}
	if !st.ProbationEnds.IsZero() {
		out.ProbationEnds = st.ProbationEnds.UnixMilli()
	}
	switch {
	case st.Finished:
		out.Stage = RecoveryDone
	case !st.Probation:
		out.Stage = RecoveryFinishing
	case out.ProbationEnds != 0:
		out.Stage = RecoveryWait
	case st.Listed:
		out.Stage = RecoveryApproval
	default:
		out.Stage = RecoveryListing
	}
	return out
}

// PhraseWord is one word of a recovery phrase being typed.
type PhraseWord struct {
	// Known: the word is in the list (an empty box is not).
	Known bool `json:"known"`
	// Suggest: the list word sharing its first four letters, if any.
	Suggest string `json:"suggest"`
}

// PhraseCheck is CheckRecoveryPhrase's answer.
type PhraseCheck struct {
	Words []PhraseWord `json:"words"` // one for each word given, in order
	// Complete: 24 words of the list whose checksum matches.
	Complete bool `json:"complete"`
	// Problem is what is wrong with the phrase as a whole once every word
	// is of the list (identity/phrase_length, identity/phrase_checksum).
	Problem *Error `json:"problem"`
}

// CheckRecoveryPhrase checks a recovery phrase as it is typed, word by word
// (one box a word, in order; an empty box is ""), then as a whole. Nothing
// leaves this device and nothing is kept.
func (w *Workspaces) CheckRecoveryPhrase(words []string) PhraseCheck {
	if len(words) > 4*identity.PhraseWords {
		words = words[:4*identity.PhraseWords]
	}
	out := PhraseCheck{Words: make([]PhraseWord, len(words))}
	known := true
	for i, word := range words {
		word = strings.TrimSpace(word)
		out.Words[i] = PhraseWord{Known: identity.IsPhraseWord(word)}
		if !out.Words[i].Known {
			known = false
			out.Words[i].Suggest = identity.SuggestWord(word)
		}
	}
	if !known {
		return out
	}
	if _, err := identity.ParseRecoveryPhrase(strings.Join(words, " ")); err != nil {
		out.Problem = toError(err)
		return out
	}
	out.Complete = true
	return out
}

// Recover makes this device a new device of the person whose recovery
// phrase this is (engine.Recover), for someone who lost every other one.
// where names the workspace: a workspace link (weald://workspace?…, which
// any member's app shows under Security), an invite or pairing link of
// that workspace (only its relay and workspace are read), or the relay's
// address, with the workspace id in workspace. The device is then on
// probation (Workspace.Recovery) until an admin approves it, or, for a
// workspace's only admin, until 72 hours have passed; the app resumes the
// recovery by itself until it is done. A phrase that recovers nothing
// leaves nothing on the device.
func (w *Workspaces) Recover(where, workspace string, phrase []string) (Workspace, error) {
	relay, ws, perr := recoveryPlace(where, workspace)
	if perr != nil {
		return Workspace{}, perr
	}
	if _, err := identity.ParseRecoveryPhrase(strings.Join(phrase, " ")); err != nil {
		return Workspace{}, toError(err)
	}
	if w.has(ws) {
		return Workspace{}, &Error{Code: "workspace/exists", Message: "This workspace is already on this device."}
	}
	c, err := w.make(func(ctx context.Context, dir string) (*engine.Engine, error) {
		eng, _, err := engine.Recover(ctx, engine.Options{Dir: dir, Clock: w.app.engineClock()}, relay, ws, strings.Join(phrase, " "))
		if errors.Is(err, engine.ErrRecoveryWaiting) {
			err = nil // the status says so; the run keeps trying
		}
		return eng, recoverError(err)
	}, "", false)
	if err != nil {
		return Workspace{}, err
	}
	return c.Workspace, nil
}

// recoveryPlace reads where a recovery goes: the relay's address and the
// workspace id (hex).
func recoveryPlace(where, workspace string) (relay, ws string, _ *Error) {
	where, workspace = strings.TrimSpace(where), strings.ToLower(strings.TrimSpace(workspace))
	lower := strings.ToLower(where)
	switch {
	case where == "":
		return "", "", &Error{Code: "recovery/no_workspace", Message: "Paste your workspace's link, or type its relay address and workspace id."}
	case relayclient.IsWorkspaceLink(where):
		l, err := relayclient.ParseWorkspaceLink(where)
		if err != nil {
			return "", "", toError(err)
		}
		return l.Relay, hex.EncodeToString(l.Workspace[:]), nil
	case strings.HasPrefix(lower, "weald://invite") || strings.HasPrefix(lower, "weald://pair"):
		l, err := groups.ParseLink(where)
		if err != nil {
			return "", "", &Error{Code: "invite/bad_link", Message: "This is not a whole Weald link. Copy the whole link and paste it again."}
		}
		return l.Relay, hex.EncodeToString(l.Workspace[:]), nil
	}
	addr, _, err := relayclient.RelayAndToken(where)
	if err != nil {
		return "", "", toError(err)
	}
	if workspace == "" {
		return "", "", &Error{Code: "recovery/no_workspace", Message: "Type the workspace id as well as the relay address, or paste the workspace's link instead."}
	}
	if !isWorkspaceID(workspace) {
		return "", "", &Error{Code: "workspace/bad_id", Message: "The workspace id is 64 letters and digits (0-9, a-f); copy it again."}
	}
	return addr, workspace, nil
}

// recoverError says a refused recovery in the words of this screen.
func recoverError(err error) error {
	if err == nil {
		return nil
	}
	code, _ := errcode.Of(err)
	switch code {
	case "roster/actor_revoked":
		return &Error{Code: "recovery/rotated", Message: "This recovery phrase no longer adds a device: it was replaced by a newer one (use the newest phrase you wrote down), or its person was removed from the workspace."}
	case errcode.Code(wire.CodeWorkspaceUnknown):
		return &Error{Code: "recovery/no_such_workspace", Message: "The relay does not hold this workspace; check the link, or the relay address and the workspace id."}
	}
	return err
}

// ResumeRecovery resumes an unfinished recovery now (engine.RecoverAgain),
// as the app does by itself on start, while the relay does not list the
// device yet, and when the only admin's wait is over: the status screen's
// "Check now". Still waiting is no error: the workspace's Recovery says so.
func (w *Workspaces) ResumeRecovery(ws string) (Workspace, error) {
	r, err := w.run(ws)
	if err != nil {
		return Workspace{}, err
	}
	if _, ok := r.eng.Recovery(); !ok {
		return Workspace{}, &Error{Code: "recovery/none_here", Message: "This device was not recovered with a recovery phrase."}
	}
	ctx, cancel := w.longCtx()
	defer cancel()
	if rerr := w.recoverAgain(ctx, r); rerr != nil && !errors.Is(rerr, engine.ErrRecoveryWaiting) {
		return Workspace{}, toError(recoverError(rerr))
	}
	w.emitWorkspaces()
	return w.describe(r), nil
}

// recoverAgain runs engine.RecoverAgain, keeps its outcome as the run's
// problem (recovery/waiting is said by the status, not as a problem) and
// wakes the run loop when the device got listed.
func (w *Workspaces) recoverAgain(ctx context.Context, r *wsRun) error {
	st, err := r.eng.RecoverAgain(ctx)
	r.mu.Lock()
	r.problem = nil
	if err != nil && !errors.Is(err, engine.ErrRecoveryWaiting) {
		r.problem = toError(recoverError(err))
	}
	r.mu.Unlock()
	if st.Listed {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
	return err
}

// recoveryBeforeRun is the run loop's part of an unfinished recovery: while
// the relay does not list the device, Run cannot connect, so the recovery
// is resumed instead (it reads the roster with the recovery key, and for
// the only admin ends the probation once the wait is over); ok says Run
// may go on. Once listed, Run's every sync (on start and on each roster
// change) resumes it (engine sync), and a timer resumes it when the only
// admin's wait ends.
func (w *Workspaces) recoveryBeforeRun(r *wsRun) (ok bool, err error) {
	st, has := r.eng.Recovery()
	if !has || st.Finished || r.eng.Status().Removed {
		return true, nil // a revoked device is told as removed, as any
	}
	if st.Probation && !st.ProbationEnds.IsZero() {
		w.armProbationEnd(r, st.ProbationEnds)
	}
	if st.Listed {
		return true, nil
	}
	ctx, cancel := context.WithTimeout(r.ctx, removalTimeout)
	defer cancel()
	err = w.recoverAgain(ctx, r)
	w.emitWorkspaces()
	if err != nil {
		return false, err
	}
	st, _ = r.eng.Recovery()
	return st.Listed, nil
}

// armProbationEnd resumes the recovery when the only admin's probation may
// end (a second after, so that the roster's own check agrees).
func (w *Workspaces) armProbationEnd(r *wsRun, end time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.probationTimer != nil {
		r.probationTimer.Stop()
	}
	r.probationTimer = time.AfterFunc(time.Until(end)+time.Second, func() {
		if r.ctx.Err() != nil {
			return
		}
		ctx, cancel := context.WithTimeout(r.ctx, removalTimeout)
		defer cancel()
		if err := w.recoverAgain(ctx, r); err != nil {
			w.app.logger.Printf("workspace %s: recovery after the wait: %v", r.id, err)
		}
		w.emitWorkspaces()
	})
}

// WorkspaceLinkOf is the workspace link of a workspace on this device
// (relayclient.WorkspaceLink): what a person needs beside their phrase to
// recover onto a new device.
func workspaceLinkOf(relay, ws string) string {
	id, err := hex.DecodeString(ws)
	if err != nil || len(id) != 32 || relay == "" {
		return ""
	}
	return relayclient.WorkspaceLink{Relay: relay, Workspace: wire.ID(id)}.String()
}
