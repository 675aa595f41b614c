package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"weald/app/notify"
	"weald/backend/engine"
	"weald/backend/errcode"
	"weald/backend/relayclient"
)

// Workspace is one workspace on this device as the sidebar shows it.
type Workspace struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Relay     string   `json:"relay"`
	You       string   `json:"you"`
	Ready     bool     `json:"ready"`
	Unread    int      `json:"unread"`
	Connected bool     `json:"connected"`
	Pending   []string `json:"pending"`
	// CanInvite: this device may create invites (an admin); members get no
	// Invite button.
	CanInvite bool `json:"canInvite"`
	// Provision is set while the relay does not hold the workspace yet: an
	// operator step (weald-relay provision) that the app cannot do itself.
	Provision *Provision `json:"provision"`
	// Problem is the last error of the background sync, if it failed.
	Problem *Error `json:"problem"`
	// Removed: an admin removed this person (or revoked this device): the
	// roster says so, or the relay refuses the device (auth/revoked).
	Removed bool `json:"removed"`
	// Notifications: which new messages show a desktop notification —
	// "all", "mentions" (DMs and mentions of you) or "none".
	Notifications NotifyLevel `json:"notifications" ts_type:"'all' | 'mentions' | 'none'"`
	// Link is the workspace link (weald://workspace?…: the relay and the
	// workspace id, nothing secret): with the recovery phrase, what a
	// person needs to recover onto a new device (recover.go).
	Link string `json:"link"`
	// Recovery is set on a device recovered with a recovery phrase: where
	// the recovery stands (recover.go).
	Recovery *Recovery `json:"recovery"`
}

// Provision is what the relay's operator needs to record a new workspace.
type Provision struct {
	Workspace  string `json:"workspace"`
	GenesisKey string `json:"genesisKey"`
	Command    string `json:"command"`
}

// Created is what Workspaces.Create returns.
type Created struct {
	Workspace Workspace `json:"workspace"`
	// RecoveryPhrase is the creator's 24 recovery words, returned once
	// (engine.TakeRecoveryPhrase); empty if they could not be read.
	RecoveryPhrase []string `json:"recoveryPhrase"`
}

// Workspaces is the bound service for the workspaces on this device: each
// is a backend/engine.Engine in <data>/workspaces/<id>, kept running (Run:
// connected, syncing, self-joining) while the app runs, retried with a
// backoff when it fails, its events pushed to the frontend.
type Workspaces struct {
	app *App

	mu      sync.Mutex
	started bool
	ctx     context.Context
	cancel  context.CancelFunc
	runs    map[string]*wsRun
	wg      sync.WaitGroup

	notifier  notify.Notifier // nil: no notifications (notify.go)
	attention attention
}

type wsRun struct {
	id     string
	eng    *engine.Engine
	events chan engine.Event
	ctx    context.Context // ends when the workspace is removed or the app stops
	cancel context.CancelFunc
	loops  sync.WaitGroup

	mu        sync.Mutex
	prefs     prefs
	problem   *Error
	connected bool
	started   time.Time        // when this run began (notify.go)
	notified  map[string]int64 // channel → newest message time considered for a notification

	// stateChanged says the state above (connected, problem) changed; the
	// engine's connection, problem and ready events are applied in onEvent,
	// in the engine's order, so none is lost when the UI is behind.
	stateChanged chan struct{}
	logger       *log.Logger // the app's log (nil in unit tests)

	wake           chan struct{} // a recovery got listed: the run loop need not wait out its delay
	probationTimer *time.Timer   // resumes a recovery when the only admin's wait ends (recover.go)

	// Security alerts wait in their own queue, never dropped: events drops
	// what does not fit when the UI is behind (the next event or sync
	// refreshes it), but nothing repeats an alert's event and notification.
	alertMu sync.Mutex
	alertQ  []engine.Event
	alerted chan struct{} // an alert was queued
	// unnamed: alerts whose event went out before a name they use was
	// known, by id (the event loop's own; security.go renameAlerts).
	unnamed map[string]unnamedAlert
}

const wsEventBuffer = 512

// maxQueuedAlerts bounds the alert queue; the engine keeps fewer alerts
// than this and raises each once, so it is not reached in practice.
const maxQueuedAlerts = 1024

// onEvent takes an engine event (under the engine's lock: it never blocks).
func (r *wsRun) onEvent(ev engine.Event) {
	switch ev.Kind {
	case engine.EventConnection, engine.EventProblem, engine.EventReady:
		r.applyState(ev)
		select {
		case r.stateChanged <- struct{}{}:
		default: // one wake-up is pending already
		}
		return
	}
	if ev.Kind == engine.EventAlert {
		r.alertMu.Lock()
		if len(r.alertQ) < maxQueuedAlerts {
			r.alertQ = append(r.alertQ, ev)
		}
		r.alertMu.Unlock()
		select {
		case r.alerted <- struct{}{}:
		default:
		}
		return
	}
	select {
	case r.events <- ev:
	default:
		// The UI is behind; the next event or sync refreshes it.
	}
}

// applyState applies a connection, problem or ready event to the
// workspace's state. It runs in onEvent, so in the order the engine emits
// (a queued event could be dropped when the UI is behind: an offline state
// then stayed "online", a cleared problem stayed shown).
func (r *wsRun) applyState(ev engine.Event) {
	r.mu.Lock()
	had := r.problem != nil
	switch ev.Kind {
	case engine.EventReady:
		r.problem = nil
	case engine.EventConnection:
		r.connected = ev.Connected
		if ev.Connected {
			r.problem = nil
		}
	case engine.EventProblem:
		r.problem = nil
		switch {
		case ev.Code == "":
		case ev.Code != "sync/error" && !strings.HasPrefix(ev.Message, ev.Code+": "):
			r.problem = &Error{Code: errcode.Code(ev.Code), Message: sentenceOf(ev.Message)} // errcode's sentence
		default:
			r.problem = toError(errors.New(ev.Message))
		}
	}
	p := r.problem
	r.mu.Unlock()
	if ev.Kind != engine.EventProblem || r.logger == nil {
		return
	}
	// The log says what the problem line said, and when it went.
	if p != nil {
		r.logger.Printf("workspace %s: sync: %s: %s", r.id, p.Code, p.Message)
	} else if had {
		r.logger.Printf("workspace %s: sync works again", r.id)
	}
}

// takeAlerts empties the alert queue.
func (r *wsRun) takeAlerts() []engine.Event {
	r.alertMu.Lock()
	defer r.alertMu.Unlock()
	q := r.alertQ
	r.alertQ = nil
	return q
}

func newWorkspaces(a *App) *Workspaces { return &Workspaces{app: a, runs: map[string]*wsRun{}} }

func (w *Workspaces) dir(id string) string { return filepath.Join(w.app.workspacesDir(), id) }

// start opens every workspace stored on this device and runs it.
func (w *Workspaces) start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return
	}
	w.started = true
	w.ctx, w.cancel = context.WithCancel(ctx)
	entries, _ := os.ReadDir(w.app.workspacesDir())
	for _, e := range entries {
		if !e.IsDir() || !isWorkspaceID(e.Name()) || !engine.Exists(w.dir(e.Name())) {
			continue
		}
		if err := w.openLocked(e.Name()); err != nil {
			w.app.logger.Printf("workspace %s: %s", e.Name(), err.Message)
		}
	}
}

func (w *Workspaces) stop() {
	w.mu.Lock()
	if w.cancel != nil {
		w.cancel()
	}
	runs := w.runs
	w.runs = map[string]*wsRun{}
	w.mu.Unlock()
	w.wg.Wait()
	for _, r := range runs {
		r.eng.Close()
	}
}

func isWorkspaceID(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32 && strings.ToLower(s) == s
}

// openLocked opens the engine of workspace id and starts its loops.
func (w *Workspaces) openLocked(id string) *Error {
	if _, ok := w.runs[id]; ok {
		return nil
	}
	r := &wsRun{id: id, events: make(chan engine.Event, wsEventBuffer), prefs: w.app.loadPrefs(id), started: time.Now(),
		wake: make(chan struct{}, 1), alerted: make(chan struct{}, 1), unnamed: map[string]unnamedAlert{},
		stateChanged: make(chan struct{}, 1), logger: w.app.logger}
	eng, err := engine.Open(w.ctx, engine.Options{Dir: w.dir(id), Provision: w.app.provisioner(nil), OnEvent: r.onEvent, Clock: w.app.engineClock()})
	if err != nil {
		return toError(err)
	}
	r.eng = eng
	// Read markers kept by the app before the engine's store kept them
	// (a marker never moves back: a no-op once carried over).
	for ch, ms := range r.prefs.LastRead {
		_ = eng.MarkRead(w.ctx, ch, time.UnixMilli(ms))
	}
	r.ctx, r.cancel = context.WithCancel(w.ctx)
	w.runs[id] = r
	w.wg.Add(2)
	r.loops.Add(2)
	go w.runLoop(r)
	go w.eventLoop(r)
	return nil
}

// runLoop keeps the engine running: a failed Run (relay unreachable, the
// workspace not provisioned yet, …) is retried with a growing delay, so an
// incomplete setup finishes by itself (spec "A partial bootstrap is resumed").
func (w *Workspaces) runLoop(r *wsRun) {
	defer w.wg.Done()
	defer r.loops.Done()
	defer func() {
		r.mu.Lock()
		if r.probationTimer != nil {
			r.probationTimer.Stop()
		}
		r.mu.Unlock()
	}()
	delay := time.Second
	for {
		began := time.Now()
		// A recovery the relay does not list yet is resumed instead of
		// run (recover.go).
		ok, err := w.recoveryBeforeRun(r)
		if ok {
			err = r.eng.Run(r.ctx)
		}
		if r.ctx.Err() != nil {
			return
		}
		if ok {
			r.mu.Lock()
			r.problem = toError(err)
			r.mu.Unlock()
		} // else recoverAgain kept its own outcome
		if err != nil && !errors.Is(err, engine.ErrRecoveryWaiting) {
			w.app.logger.Printf("workspace %s: %v (retrying in %s)", r.id, err, delay)
		}
		w.emitWorkspaces()
		if time.Since(began) > 30*time.Second {
			delay = time.Second
		}
		t := time.NewTimer(delay)
		select {
		case <-r.ctx.Done():
			t.Stop()
			return
		case <-r.wake:
			t.Stop()
		case <-t.C:
		}
		if delay < 8*time.Second {
			delay *= 2
		}
	}
}

// eventLoop turns the engine's events into frontend events (outside the
// engine's lock, as engine.Options.OnEvent requires).
func (w *Workspaces) eventLoop(r *wsRun) {
	defer w.wg.Done()
	defer r.loops.Done()
	for {
		select {
		case <-r.ctx.Done():
			return
		case ev := <-r.events:
			switch ev.Kind {
			case engine.EventChannels, engine.EventRoster:
				w.emitChannels(r)
				if ev.Kind == engine.EventRoster {
					w.renameAlerts(r)
					// Once ever, after the first other person joins a solo admin
					// (lifecycle.md "Roles"): it comes back as an alert event.
					r.eng.RemindSoloAdmin(r.ctx)
					w.emitWorkspaces()
					// Retention changes waiting for approval come from the roster.
					w.app.emit(w.ctx, EventHealthChanged, HealthChanged{Workspace: r.id})
					// #general's join notices and every author's name come from the roster.
					w.app.emit(w.ctx, EventMessagesChanged, MessagesChanged{Workspace: r.id, Channel: r.eng.GeneralChannel()})
				}
			case engine.EventMessages:
				w.app.emit(w.ctx, EventMessagesChanged, MessagesChanged{Workspace: r.id, Channel: ev.Channel})
				w.notifyNew(r, ev.Channel)
				w.emitChannels(r)
				w.renameAlerts(r)
				w.emitWorkspaces()
			case engine.EventHealth:
				w.app.emit(w.ctx, EventHealthChanged, HealthChanged{Workspace: r.id})
			case engine.EventProgress:
				w.app.emit(w.ctx, EventProgress, Progress{ID: r.id + "/" + ev.Task, Label: progressLabel(ev.Task),
					Done: ev.Done, Total: ev.Total, Finished: ev.Done >= ev.Total})
			}
		case <-r.stateChanged:
			// Connected, the problem or readiness changed (applyState):
			// the channel list says "ready", the workspace list the rest.
			w.emitChannels(r)
			w.emitWorkspaces()
		case <-r.alerted:
			for _, ev := range r.takeAlerts() {
				w.app.logger.Printf("workspace %s: alert %s: %s", r.id, ev.Code, ev.Message)
				if a, ok := w.alertEvent(r, ev); ok {
					// Focus is read before the banner's event goes out, so an
					// alert the focused window showed is not notified after a
					// later blur.
					focused := w.focused()
					w.app.emit(w.ctx, EventAlert, a)
					if !focused {
						w.notifyAlert(r, a)
					}
				}
			}
			if len(r.unnamed) > maxUnnamed {
				clear(r.unnamed)
			}
		}
	}
}

func progressLabel(task string) string {
	switch task {
	case "join":
		return "Joining channels"
	case "sync":
		return "Catching up"
	case "removal/revoke":
		return "Removing: devices revoked"
	case "removal/rotate":
		return "Removing: rotating channel keys"
	case "removal/wraps":
		return "Removing: deleting recovery wraps"
	case "removal/invites":
		return "Removing: revoking invites"
	case "removal/access":
		return "Removing: new access set published"
	case "removal/receipt":
		return "Removing: receipt written"
	}
	return sentenceOf(strings.ReplaceAll(task, "_", " "))
}

func (w *Workspaces) emitWorkspaces() {
	list, err := w.List()
	if err == nil {
		w.app.emit(w.ctx, EventWorkspacesChanged, list)
	}
}

func (w *Workspaces) emitChannels(r *wsRun) {
	w.app.emit(w.ctx, EventChannelsChanged, ChannelsChanged{Workspace: r.id, Channels: w.channels(r)})
}

func (w *Workspaces) run(id string) (*wsRun, *Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.started {
		return nil, &Error{Code: "app/not_started", Message: "Weald is still starting; try again in a moment."}
	}
	r, ok := w.runs[strings.ToLower(id)]
	if !ok {
		return nil, &Error{Code: "workspace/unknown", Message: "That workspace is not on this device."}
	}
	return r, nil
}

func (w *Workspaces) has(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.runs[strings.ToLower(id)]
	return ok
}

func (w *Workspaces) describe(r *wsRun) Workspace {
	st := r.eng.Status()
	r.mu.Lock()
	you, problem, connected, level := r.prefs.You, r.problem, r.connected, notifyLevel(r.prefs)
	r.mu.Unlock()
	ws := Workspace{ID: st.Workspace, Name: st.Name, Relay: st.Relay, You: you, Ready: st.Ready, Connected: connected,
		Pending: st.Pending, Problem: problem, CanInvite: st.Ready && r.eng.CanInvite(), Notifications: level,
		Removed: st.Removed || problem != nil && problem.Code == "auth/revoked", Link: workspaceLinkOf(st.Relay, st.Workspace)}
	if rs, ok := r.eng.Recovery(); ok {
		ws.Recovery = recoveryOf(rs)
		if problem != nil && problem.Code == "recovery/waiting" {
			ws.Problem = nil // the recovery's stage says it
		}
	}
	if name := r.eng.DisplayName(); name != "" {
		ws.You = name // the roster's name, once set (a rename reaches every device)
	}
	if ws.You == "" {
		ws.You = "You"
	}
	// The operator step is named only while the relay answered that it
	// does not hold the workspace: an unreachable relay is not that.
	unprovisioned := problem == nil || problem.Code == "workspace/not_provisioned"
	if st.GenesisKey != "" && !st.Ready && unprovisioned {
		for _, p := range st.Pending {
			if p == "bootstrap:"+engine.StepGenesisSet {
				ws.Provision = &Provision{Workspace: st.Workspace, GenesisKey: st.GenesisKey,
					Command: fmt.Sprintf("weald-relay provision -workspace %s -genesis %s", st.Workspace, st.GenesisKey)}
			}
		}
	}
	for _, c := range w.channels(r) {
		if !c.Muted {
			ws.Unread += c.Unread
		}
	}
	return ws
}

// List returns the workspaces on this device.
func (w *Workspaces) List() ([]Workspace, error) {
	w.mu.Lock()
	if !w.started {
		w.mu.Unlock()
		return nil, &Error{Code: "app/not_started", Message: "Weald is still starting; try again in a moment."}
	}
	runs := make([]*wsRun, 0, len(w.runs))
	for _, r := range w.runs {
		runs = append(runs, r)
	}
	w.mu.Unlock()
	out := make([]Workspace, 0, len(runs))
	for _, r := range runs {
		out = append(out, w.describe(r))
	}
	sortWorkspaces(out)
	return out, nil
}

func sortWorkspaces(ws []Workspace) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && (ws[j].Name < ws[j-1].Name || (ws[j].Name == ws[j-1].Name && ws[j].ID < ws[j-1].ID)); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

func checkName(what, s string, max int) (string, *Error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", &Error{Code: "bad_request/name", Message: fmt.Sprintf("Type %s.", what)}
	}
	if len(s) > max {
		return "", &Error{Code: "bad_request/name", Message: fmt.Sprintf("That name is too long; keep it under %d characters.", max)}
	}
	return s, nil
}

// Create makes a new workspace with this device as its trust root and runs
// its setup: root group, access set, #general and #activity. relay is the
// relay's address or a relay link (weald://relay?…, from weald-relay token
// create): the app asks the relay to provision the workspace itself (with
// the link's token; with none, a relay in open mode accepts). When the
// relay leaves that to its operator, the result says so
// (Workspace.Provision) and the setup finishes by itself once the operator
// has provisioned it. A create the relay refused leaves nothing behind.
func (w *Workspaces) Create(name, you, relay string) (Created, error) {
	name, err := checkName("the workspace's name", name, 80)
	if err != nil {
		return Created{}, err
	}
	if you, err = checkName("your name", you, 80); err != nil {
		return Created{}, err
	}
	addr, token, rerr := relayclient.RelayAndToken(relay)
	if rerr != nil {
		return Created{}, toError(rerr)
	}
	var phrase string
	c, merr := w.make(func(ctx context.Context, dir string) (*engine.Engine, error) {
		eng, err := engine.CreateWorkspace(ctx, engine.Options{Dir: dir, DisplayName: you, Provision: w.app.provisioner(token), Clock: w.app.engineClock()}, name, addr)
		if eng != nil && engine.ProvisionFailed(err) {
			// The workspace never reached the relay (a wrong address or
			// link, nothing answering, a refused token): nothing is kept,
			// so nothing is left half-created.
			eng.Close()
			return nil, err
		}
		if eng != nil {
			// Drawn with the keys, so present even before provisioning;
			// handed out once (the engine keeps it only until registered).
			phrase, _ = eng.TakeRecoveryPhrase(ctx)
		}
		return eng, err
	}, you, false)
	if merr == nil && phrase != "" {
		c.RecoveryPhrase = strings.Fields(phrase)
	}
	return c, merr
}

// Join redeems an invite link under the joiner's name (you): the device
// enters the workspace's roster (with its name) and root group, then joins
// every channel in scope by itself. The joiner's own recovery phrase comes
// back once, as after Create.
func (w *Workspaces) Join(link, you string) (Created, error) {
	link = strings.TrimSpace(link)
	if link == "" {
		return Created{}, &Error{Code: "invite/bad_link", Message: "Paste the invite link you were sent."}
	}
	you, nerr := checkName("your name", you, 80)
	if nerr != nil {
		return Created{}, nerr
	}
	var phrase string
	c, err := w.make(func(ctx context.Context, dir string) (*engine.Engine, error) {
		eng, err := engine.Join(ctx, engine.Options{Dir: dir, DisplayName: you, Clock: w.app.engineClock()}, link)
		if eng != nil {
			phrase, _ = eng.TakeRecoveryPhrase(ctx)
		}
		return eng, err
	}, you, true)
	if err != nil {
		return Created{}, err
	}
	if phrase != "" {
		c.RecoveryPhrase = strings.Fields(phrase)
	}
	return c, nil
}

// make runs create in a fresh directory, then moves it to its workspace id
// and starts it. An engine that stopped part-way is kept: its setup resumes
// in the background.
func (w *Workspaces) make(create func(ctx context.Context, dir string) (*engine.Engine, error), you string, joining bool) (Created, error) {
	w.mu.Lock()
	started, base := w.started, w.ctx
	w.mu.Unlock()
	if !started {
		return Created{}, &Error{Code: "app/not_started", Message: "Weald is still starting; try again in a moment."}
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	tmp := filepath.Join(w.app.workspacesDir(), "new-"+hex.EncodeToString(nonce[:]))
	if err := os.MkdirAll(w.app.workspacesDir(), 0o700); err != nil {
		return Created{}, toError(err)
	}
	ctx, cancel := context.WithTimeout(base, 60*time.Second)
	defer cancel()
	eng, cerr := create(ctx, tmp)
	if you == "" && eng != nil {
		you = eng.DisplayName() // a paired device: the person's name from the roster
	}
	if eng == nil {
		os.RemoveAll(tmp)
		return Created{}, toError(cerr)
	}
	id := eng.WorkspaceID()
	if cerr != nil && joining && !eng.Admitted() {
		// A redemption the workspace never recorded (a bad or tampered
		// link, a relay that refused or could not be reached) leaves
		// nothing to resume: it is not kept, so it neither retries
		// forever under no name nor blocks the right link afterwards.
		eng.Close()
		os.RemoveAll(tmp)
		e := toError(cerr)
		if e.Code == "auth/unknown_key" {
			// The relay holds no grant for this link's secret.
			e = &Error{Code: "invite/refused", Message: "The relay does not accept this invite link: it was changed, already used or revoked, or the inviter's device has not published it yet. Ask the person who sent it for a new link."}
		}
		return Created{}, e
	}
	eng.Close()
	if joining {
		// An earlier join of this workspace that never got in (kept by an
		// older version) makes way for this one.
		if r, err := w.run(id); err == nil && !r.eng.Status().Ready && !r.eng.Admitted() {
			if err := w.Remove(id); err != nil {
				os.RemoveAll(tmp)
				return Created{}, err
			}
		}
	}
	if _, err := os.Stat(w.dir(id)); err == nil {
		os.RemoveAll(tmp)
		return Created{}, &Error{Code: "workspace/exists", Message: "This workspace is already on this device."}
	}
	if err := os.Rename(tmp, w.dir(id)); err != nil {
		return Created{}, &Error{Code: "storage/write_failed", Message: fmt.Sprintf("The new workspace could not be stored (%v); check that the data directory is writable.", err)}
	}
	if you != "" {
		p := w.app.loadPrefs(id)
		p.You = you
		if err := w.app.savePrefs(id, p); err != nil {
			return Created{}, err
		}
	}
	w.mu.Lock()
	oerr := w.openLocked(id)
	r := w.runs[id]
	w.mu.Unlock()
	if oerr != nil {
		return Created{}, oerr
	}
	if cerr != nil && !errors.Is(cerr, engine.ErrNotProvisioned) {
		r.mu.Lock()
		r.problem = toError(cerr)
		r.mu.Unlock()
	}
	ws := w.describe(r)
	w.emitWorkspaces()
	return Created{Workspace: ws, RecoveryPhrase: []string{}}, nil
}

// Remove abandons a workspace whose setup has not finished: its engine
// stops and its folder and settings leave this device. A workspace this
// device was creating whose first access set the relay never accepted (no
// trust root admitted) is torn down at the relay too (engine.Abandon; when
// the relay cannot be reached it keeps the provision, and the removal goes
// on). Nothing else is sent (an invite already redeemed stays spent). A
// ready workspace is refused: it holds history and keys that exist nowhere
// else.
func (w *Workspaces) Remove(id string) error {
	r, err := w.run(id)
	if err != nil {
		return err
	}
	if r.eng.Status().Ready {
		return &Error{Code: "workspace/ready", Message: "This workspace has finished setting up; Weald does not remove a ready workspace from a device."}
	}
	r.cancel()
	r.loops.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if torn, err := r.eng.Abandon(ctx); err != nil {
		w.app.logger.Printf("workspace %s: the relay keeps its provision: %v", r.id, err)
	} else if torn {
		w.app.logger.Printf("workspace %s: torn down at the relay (no trust root was admitted)", r.id)
	}
	cancel()
	w.mu.Lock()
	delete(w.runs, r.id)
	w.mu.Unlock()
	r.eng.Close()
	if err := engine.Remove(w.dir(r.id)); err != nil {
		return &Error{Code: "storage/write_failed", Message: fmt.Sprintf("The workspace's folder could not be removed (%v); check that the data directory is writable.", err)}
	}
	w.app.deletePrefs(r.id)
	w.emitWorkspaces()
	return nil
}
