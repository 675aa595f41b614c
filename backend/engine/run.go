package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Run syncs, then stays connected and acts on events until ctx ends, as an
// agent process or the desktop app does: new envelopes are processed as
// they arrive (EventMessages, alerts, evictions), a roster change runs the
// join loop and the admin's access-set duty, a reconnect syncs again and
// sends the outbox.
//
// Offline, Run holds no lock: it dials outside the engine's lock, and work
// in progress when the connection drops is cancelled (beginWork), so the
// UI's reads answer at once and show the offline state (EventConnection).
// A sync that fails is reported as EventProblem and retried; the next one
// that succeeds clears it.
func (e *Engine) Run(ctx context.Context) error {
	ch := make(chan relayclient.Event, 256)
	e.liveMu.Lock()
	e.live = ch
	e.liveMu.Unlock()
	defer func() {
		e.liveMu.Lock()
		e.live = nil
		e.liveMu.Unlock()
		for {
			select {
			case <-ch:
			default:
				return
			}
		}
	}()
	e.mu.Lock()
	setup := (e.meta.Creator && !e.meta.Steps[StepReady]) || (e.meta.Invite != nil && !e.meta.Invite.Done)
	e.mu.Unlock()
	if !setup {
		// Setup (bootstrap, redemption) dials by itself, in its order.
		if err := e.dialLive(ctx); err != nil {
			return err
		}
	}
	subscribed := map[identity.GroupID]bool{}
	var subscriber *relayclient.Client // the client subscribed holds for
	subscribe := func(ctx context.Context) error {
		if e.client == nil {
			return nil
		}
		if e.client != subscriber {
			// A client dialled afresh (the last one stopped for good)
			// holds no subscriptions yet.
			subscribed, subscriber = map[identity.GroupID]bool{}, e.client
		}
		var items []wire.SubscribeItem
		for id, g := range e.groups {
			if g.mls != nil && g.mls.Active() && !subscribed[id] {
				items = append(items, wire.SubscribeItem{Group: wire.ID(id), AfterSeq: g.rec.LastSeq})
			}
		}
		if len(items) == 0 {
			return nil
		}
		if err := e.client.Subscribe(ctx, items...); err != nil {
			return err
		}
		for _, it := range items {
			subscribed[identity.GroupID(it.Group)] = true
		}
		return nil
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// What a sync could not finish (a join that met groups/no_bundle, a
	// dropped connection, a relay restart, a message in the outbox) is
	// retried with backoff, reset whenever a channel was joined, so no
	// transient failure leaves a channel visible and unread, or a message
	// unsent, until some unrelated event.
	var bo retryBackoff
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	armed := false
	problem := ""
	// work runs f with e.mu held, then the outbox, then decides whether to
	// retry, and reports a failure or its end (EventProblem).
	work := func(f func(ctx context.Context) error) error {
		wctx, done := e.beginWork(ctx)
		e.mu.Lock()
		before := e.joinedCount()
		err := f(wctx)
		if err == nil {
			err = subscribe(wctx)
		}
		if err == nil {
			err = e.drainOutbox(wctx)
		}
		if e.joinedCount() > before {
			bo.reset()
		}
		left := err != nil || e.joinLeft() || e.outboxWaiting() || e.dmWaiting()
		e.mu.Unlock()
		done()
		if ctx.Err() != nil {
			return err
		}
		switch {
		case !left:
			bo.reset()
			if armed {
				retry.Stop()
				armed = false
			}
		case !armed && !e.offline.Load():
			// Offline, the reconnect (EventConnected) syncs.
			retry.Reset(bo.next())
			armed = true
		}
		// A dropped connection is the offline state (EventConnection),
		// not a problem; anything else, an unreachable relay during
		// setup included, is.
		msg := ""
		if err != nil && !errors.Is(err, context.Canceled) && !e.offline.Load() {
			msg = err.Error()
		}
		if msg != problem {
			problem = msg
			code, _ := splitCode(msg)
			// A coded error is said by its code and sentence however
			// deep it surfaced ("genesis access set: relay/...").
			if c, ok := errcode.Of(err); ok && msg != "" {
				code, msg = string(c), errcode.SentenceOf(err)
			}
			e.emit(Event{Kind: EventProblem, Code: code, Message: msg})
		}
		return err
	}
	// A sync at least every AttestEvery: it compares the head
	// attestations read since the last one (attest.go) and sends this
	// device's own.
	lastSync := time.Now()
	syncAll := func(ctx context.Context) error { lastSync = time.Now(); _, err := e.sync(ctx); return err }
	if err := work(syncAll); err != nil && !transient(err) {
		// A first sync that fails for a reason the connection does not
		// explain (the workspace not provisioned, a refused redemption)
		// is the caller's to report and retry.
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			armed = false
			work(syncAll)
		case <-e.kick:
			work(func(context.Context) error { return nil })
		case <-tick.C:
			if e.missed.Swap(false) || time.Since(lastSync) >= e.attestEvery {
				work(syncAll)
			}
		case ev := <-ch:
			if ev.Kind == relayclient.EventDisconnected {
				e.emit(Event{Kind: EventConnection, Connected: false})
				continue
			}
			work(func(ctx context.Context) error { return e.handle(ctx, ev) })
		}
	}
}

// splitCode splits "area/name: sentence" into its code and sentence.
func splitCode(s string) (string, string) {
	if s == "" {
		return "", ""
	}
	if i := strings.Index(s, ": "); i > 0 && strings.Contains(s[:i], "/") && !strings.ContainsAny(s[:i], " \t") {
		return s[:i], s[i+2:]
	}
	return "sync/error", s
}

// beginWork returns a context for work done while connected: it is
// cancelled when the connection drops (drainEvents), so no request waits
// for a reconnect with the engine's lock held.
func (e *Engine) beginWork(ctx context.Context) (context.Context, func()) {
	wctx, cancel := context.WithCancel(ctx)
	e.liveMu.Lock()
	e.workCancel = cancel
	e.liveMu.Unlock()
	if e.offline.Load() {
		cancel()
	}
	return wctx, func() {
		e.liveMu.Lock()
		e.workCancel = nil
		e.liveMu.Unlock()
		cancel()
	}
}

// retryBackoff is the delay before Run retries an unfinished sync: 250 ms,
// doubling to at most 30 s, back to 250 ms on progress.
type retryBackoff struct{ n int }

const (
	retryMin = 250 * time.Millisecond
	retryMax = 30 * time.Second
)

func (b *retryBackoff) next() time.Duration {
	d := retryMin << min(b.n, 8)
	if d > retryMax {
		d = retryMax
	}
	b.n++
	return d
}

func (b *retryBackoff) reset() { b.n = 0 }

// joinedCount counts the channels this device is a member of.
func (e *Engine) joinedCount() int {
	n := 0
	for _, g := range e.groups {
		if g.mls != nil && g.mls.Active() {
			n++
		}
	}
	return n
}

// joinLeft reports whether the join loop has groups left this device is
// entitled to and not in.
// For an agent: groups in its scope it is not in yet (its issuer's Add
// comes with no event to it), or content before its Welcome to read again
// now that the history keys came (agentBackfills); for an issuing device: an agent of its own
// not yet added where it could be (the agent's key packages come with no
// event either). Run retries those with backoff.
func (e *Engine) joinLeft() bool {
	if e.agentMode() {
		return !e.agentJoinedAll() || e.backfillDue()
	}
	return (e.member(e.roster.RootGroup()) && len(e.roster.SelfJoinGroups(e.devID, e.member)) > 0) || e.agentAddsLeft() ||
		e.ownDevicesLeft() || e.pairedRecently()
}

func (e *Engine) handle(ctx context.Context, ev relayclient.Event) error {
	switch ev.Kind {
	case relayclient.EventEnvelopes:
		g := e.groups[identity.GroupID(ev.Group)]
		if g == nil || g.mls == nil {
			return nil
		}
		if !consecutive(g.rec.LastSeq, ev.Envelopes) {
			// A push passed over a seq: only a FETCH says why (gaps.go).
			return e.catchUp(ctx, g)
		}
		return e.processEnvelopes(ctx, g, ev.Envelopes)
	case relayclient.EventRoster, relayclient.EventWelcome:
		// A Welcome notice: someone added this device (or agent) to a
		// group; the sync reads the notices (acceptWelcomes).
		_, err := e.sync(ctx)
		return err
	case relayclient.EventConnected:
		e.emit(Event{Kind: EventConnection, Connected: true})
		_, err := e.sync(ctx)
		return err
	}
	return nil
}

// Status is the workspace's state for `weald status` and the UI.
type Status struct {
	Workspace  string   `json:"workspace"`
	Name       string   `json:"name"`
	Relay      string   `json:"relay"`
	Device     string   `json:"device"`
	User       string   `json:"user"`
	Ready      bool     `json:"ready"`
	Groups     int      `json:"groups"`
	Joined     int      `json:"joined"`
	Pending    []string `json:"pending"` // work left: bootstrap steps, redemption, channels to join
	GenesisKey string   `json:"genesis_key,omitempty"`
	Alerts     []Alert  `json:"alerts"`
	// Removed: the roster this device holds revokes it (an admin removed
	// its person, or revoked the device).
	Removed bool `json:"removed,omitempty"`
}

// Status reports the local state (no network).
func (e *Engine) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := Status{Workspace: e.meta.Workspace.hex(), Name: e.meta.Name, Relay: e.meta.Relay, Device: hexID(e.devID).hex(),
		User: e.meta.User.hex(), Ready: e.ready(), Pending: []string{}, Alerts: append([]Alert{}, e.alerts...)}
	if d, ok := e.roster.Device(e.devID); ok && d.RevokedAt != nil {
		st.Removed = true
	}
	for _, g := range e.roster.Groups() {
		if g.Deleted {
			continue
		}
		st.Groups++
		if e.member(g.Policy.Group) {
			st.Joined++
		}
	}
	if e.meta.Creator {
		for _, s := range []string{StepProvision, StepGenesisSet, StepRoster, StepRoot, StepAccessSet, StepGeneral, StepActivity} {
			if !e.meta.Steps[s] {
				st.Pending = append(st.Pending, "bootstrap:"+s)
			}
		}
	}
	if e.meta.Invite != nil && !e.meta.Invite.Done {
		st.Pending = append(st.Pending, "redeem")
	}
	if e.member(e.roster.RootGroup()) {
		for _, id := range e.roster.SelfJoinGroups(e.devID, e.member) {
			st.Pending = append(st.Pending, "join:"+hexID(id).hex())
		}
	}
	if len(e.meta.GenesisSeed) == 32 {
		if gen, err := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed); err == nil {
			st.GenesisKey = hex.EncodeToString(gen.Public().Bytes())
		}
	}
	return st
}

// SetMuted mutes or unmutes a channel (local, like the sidebar's mute).
func (e *Engine) SetMuted(ctx context.Context, channel string, muted bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return err
	}
	e.meta.Muted[hexID(gi.Policy.Group).hex()] = muted
	if err := e.persistMeta(ctx); err != nil {
		return err
	}
	e.emit(Event{Kind: EventChannels})
	return nil
}

// consecutive reports whether envs continue after seq without skipping one
// (envelopes at or below seq, already read, may come first).
func consecutive(seq uint64, envs []wire.SeqEnvelope) bool {
	for _, se := range envs {
		if se.Seq > seq+1 {
			return false
		}
		seq = max(seq, se.Seq)
	}
	return true
}
