package engine

import (
	"context"
	"encoding/hex"
	"time"

	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Run syncs, then stays connected and acts on events until ctx ends, as an
// agent process or the desktop app does: new envelopes are processed as
// they arrive (EventMessages, alerts, evictions), a roster change runs the
// join loop and the admin's access-set duty, a reconnect syncs again.
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
	if _, err := e.Sync(ctx); err != nil {
		return err
	}
	subscribed := map[identity.GroupID]bool{}
	subscribe := func() error {
		var items []wire.SubscribeItem
		for id, g := range e.groups {
			if g.mls != nil && g.mls.Active() && !subscribed[id] {
				items = append(items, wire.SubscribeItem{Group: wire.ID(id), AfterSeq: g.rec.LastSeq})
				subscribed[id] = true
			}
		}
		if len(items) == 0 {
			return nil
		}
		return e.client.Subscribe(ctx, items...)
	}
	e.mu.Lock()
	err := subscribe()
	e.mu.Unlock()
	if err != nil {
		return err
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// What a sync could not finish (a join that met groups/no_bundle, a
	// dropped connection, a relay restart) is retried with backoff, reset
	// whenever a channel was joined, so no transient failure leaves a
	// channel visible and unread until some unrelated event.
	var bo retryBackoff
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	armed := false
	settle := func(err error, joinedBefore int) {
		if e.joinedCount() > joinedBefore {
			bo.reset()
		}
		if err == nil && !e.joinLeft() {
			bo.reset()
			if armed {
				retry.Stop()
				armed = false
			}
			return
		}
		if !armed {
			retry.Reset(bo.next())
			armed = true
		}
	}
	e.mu.Lock()
	settle(nil, 0)
	e.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			armed = false
			e.mu.Lock()
			before := e.joinedCount()
			_, err := e.sync(ctx)
			if err == nil {
				err = subscribe()
			}
			settle(err, before)
			e.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				e.emit(Event{Kind: EventAlert, Code: "sync/error", Message: err.Error()})
			}
		case <-tick.C:
			if e.missed.Swap(false) {
				e.mu.Lock()
				before := e.joinedCount()
				_, err := e.sync(ctx)
				if err == nil {
					err = subscribe()
				}
				settle(err, before)
				e.mu.Unlock()
				if err != nil && ctx.Err() == nil {
					e.emit(Event{Kind: EventAlert, Code: "sync/error", Message: err.Error()})
				}
			}
		case ev := <-ch:
			e.mu.Lock()
			before := e.joinedCount()
			err := e.handle(ctx, ev)
			if err == nil {
				err = subscribe()
			}
			if ev.Kind != relayclient.EventDisconnected {
				settle(err, before)
			}
			e.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				e.emit(Event{Kind: EventAlert, Code: "sync/error", Message: err.Error()})
			}
		}
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
func (e *Engine) joinLeft() bool {
	return e.member(e.roster.RootGroup()) && len(e.roster.SelfJoinGroups(e.devID, e.member)) > 0
}

func (e *Engine) handle(ctx context.Context, ev relayclient.Event) error {
	switch ev.Kind {
	case relayclient.EventEnvelopes:
		g := e.groups[identity.GroupID(ev.Group)]
		if g == nil || g.mls == nil {
			return nil
		}
		if len(ev.Envelopes) > 0 && ev.Envelopes[0].Seq > g.rec.LastSeq+1 {
			return e.catchUp(ctx, g)
		}
		return e.processEnvelopes(ctx, g, ev.Envelopes)
	case relayclient.EventRoster:
		_, err := e.sync(ctx)
		return err
	case relayclient.EventConnected:
		e.emit(Event{Kind: EventConnection, Connected: true})
		_, err := e.sync(ctx)
		return err
	case relayclient.EventDisconnected:
		e.emit(Event{Kind: EventConnection, Connected: false})
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
}

// Status reports the local state (no network).
func (e *Engine) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := Status{Workspace: e.meta.Workspace.hex(), Name: e.meta.Name, Relay: e.meta.Relay, Device: hexID(e.devID).hex(),
		User: e.meta.User.hex(), Ready: e.ready(), Pending: []string{}, Alerts: append([]Alert{}, e.alerts...)}
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
