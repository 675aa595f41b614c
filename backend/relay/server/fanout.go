package server

import (
	"context"
	"math"
	"sync"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// heads remembers, per group with local subscribers, the highest seq this
// process has published, so a change notification (from another relay or
// echoed from this one) is pulled from the database once, not once per
// subscriber.
type heads struct {
	mu    sync.Mutex
	seq   map[groupKey]uint64
	locks map[groupKey]*sync.Mutex
	ver   map[wire.ID]uint64 // access set version last enforced
	ros   map[wire.ID]uint64 // roster index last announced
}

func (h *heads) lock(g groupKey) *sync.Mutex {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.locks == nil {
		h.locks = map[groupKey]*sync.Mutex{}
	}
	l := h.locks[g]
	if l == nil {
		l = &sync.Mutex{}
		h.locks[g] = l
	}
	return l
}

func (h *heads) get(g groupKey) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq[g]
}

func (h *heads) raise(g groupKey, seq uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seq == nil {
		h.seq = map[groupKey]uint64{}
	}
	if seq > h.seq[g] {
		h.seq[g] = seq
	}
}

// bump records v for ws in m and reports whether it is newer.
func (h *heads) bump(m *map[wire.ID]uint64, ws wire.ID, v uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if *m == nil {
		*m = map[wire.ID]uint64{}
	}
	if v <= (*m)[ws] {
		return false
	}
	(*m)[ws] = v
	return true
}

// publishLocal fans accepted envelopes out to this process's subscribers.
func (s *Server) publishLocal(ws wire.ID, accepted []wire.SeqEnvelope) {
	start := time.Now()
	for len(accepted) > 0 {
		g := accepted[0].Envelope.Group
		n := 1
		for n < len(accepted) && accepted[n].Envelope.Group == g {
			n++
		}
		batch := accepted[:n]
		accepted = accepted[n:]
		s.heads.raise(groupKey{ws, g}, batch[len(batch)-1].Seq)
		s.hub.publish(ws, g, batch)
	}
	s.metrics.FanoutSeconds.Observe(time.Since(start).Seconds())
}

// pullGroup handles a change notification for a group: it reads what this
// process has not published yet and fans it out.
func (s *Server) pullGroup(ws, group wire.ID, seq uint64) {
	g := groupKey{ws, group}
	if !s.hub.subscribed(ws, group) || seq <= s.heads.get(g) {
		return
	}
	l := s.heads.lock(g)
	l.Lock()
	defer l.Unlock()
	for round := 0; round < 100; round++ {
		after := s.heads.get(g)
		if after == 0 {
			after = s.hub.minLast(ws, group)
		}
		if seq <= after {
			return
		}
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		res, err := s.backend.Fetch(ctx, ws, group, after, uint32(s.lim.FetchPageSize))
		cancel()
		if err != nil {
			s.log.Warn("pull after change notification failed", "group", group.Short(), "err", err)
			return
		}
		if len(res.Envelopes) == 0 && !res.More {
			s.heads.raise(g, res.HeadSeq)
			return
		}
		s.heads.raise(g, max(res.Through, after))
		if len(res.Envelopes) > 0 {
			s.hub.publish(ws, group, res.Envelopes)
		}
		if !res.More {
			return
		}
	}
}

// rosterMoved announces a new roster head to the workspace's connections.
func (s *Server) rosterMoved(ws wire.ID, index uint64, head wire.ID) {
	if !s.heads.bump(&s.heads.ros, ws, index) {
		return
	}
	s.broadcast(ws, &wire.EventRoster{Index: index, Head: head})
}

// accessSetMoved enforces a newly accepted access set at once (closing
// connections whose key left it) and announces the version.
func (s *Server) accessSetMoved(ws wire.ID, version uint64) {
	s.enforce(ws)
	if s.heads.bump(&s.heads.ver, ws, version) {
		s.broadcast(ws, &wire.EventAccessSet{Version: version})
	}
}

// welcomeKept tells the connections of key that a Welcome notice for it
// was kept (EVENT_WELCOME). A connection that misses it finds the notice
// with WELCOMES_GET when it next syncs.
func (s *Server) welcomeKept(ws, key wire.ID, ref wire.WelcomeRef) {
	s.pushTo(s.hub.keyConnections(ws, key), &wire.EventWelcome{WelcomeRef: ref})
}

func (s *Server) broadcast(ws wire.ID, body wire.Body) {
	s.pushTo(s.hub.connections(ws), body)
}

// pushTo queues an event to each of ms; a connection whose queue is full
// is closed (limit/slow_consumer).
func (s *Server) pushTo(ms []member, body wire.Body) {
	b, err := wire.EncodeFrame(wire.Frame{Body: body})
	if err != nil {
		return
	}
	for _, m := range ms {
		c := m.(*conn)
		select {
		case c.out <- b:
		default:
			c.kick(wire.Errorf(wire.CodeLimitSlowConsumer, "The connection fell too far behind; reconnect."))
		}
	}
}

// enforce closes every connection of ws whose principal the current access
// set no longer admits. When the set cannot be read, key connections stay
// (the next recheck decides) but grant connections, which rest on a
// provisional grant, are closed with internal/error (the client reconnects
// and is checked again); so is a grant connection whose grant cannot be
// read.
func (s *Server) enforce(ws wire.ID) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	unconfirmed := wire.Errorf(wire.CodeInternal, "The relay could not confirm this connection's invite grant; reconnect.")
	set, err := s.backend.AccessSet(ctx, ws)
	if err != nil {
		s.log.Warn("access set read failed during recheck", "workspace", ws.Short(), "err", err)
		s.hub.revoke(ws, func(_ wire.ID, kind wire.PrincipalKind) *wire.Error {
			if kind == wire.PrincipalGrant {
				return unconfirmed
			}
			return nil
		})
		return
	}
	kinds := set.KeyIDs()
	n := s.hub.revoke(ws, func(key wire.ID, kind wire.PrincipalKind) *wire.Error {
		if k, in := kinds[key]; in && (kind == wire.PrincipalGrant || k == kind) {
			return nil
		}
		if kind != wire.PrincipalGrant {
			return errRevoked
		}
		// A grant connection whose key is not (yet) in the set stays while
		// its grant is live; the backend knows which grant it used.
		ok, err := s.backend.Allowed(ctx, ws, kind, key)
		switch {
		case err != nil:
			return unconfirmed
		case !ok:
			return errRevoked
		}
		return nil
	})
	if n > 0 {
		s.log.Info("closed connections that left the access set", "workspace", ws.Short(), "closed", n, "version", set.Version)
	}
}

var errRevoked = wire.Errorf(wire.CodeAuthRevoked, "This key is no longer in the workspace's access set; the connection is closed.")

// watchChanges follows the backend's cross-process notifications.
func (s *Server) watchChanges() {
	defer s.wg.Done()
	var readyOnce sync.Once
	ready := func() { readyOnce.Do(func() { close(s.ready) }) }
	defer ready()
	for attempt := 0; s.ctx.Err() == nil; attempt++ {
		ch, err := s.backend.Changes(s.ctx)
		ready()
		if err == nil && attempt > 0 {
			// Changes were missed while the feed was down.
			s.applyChange(Change{Kind: store.ChangeResync})
		}
		if err != nil {
			s.log.Warn("change notifications unavailable; retrying", "err", err)
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		if ch == nil {
			return
		}
		for ch != nil {
			select {
			case <-s.ctx.Done():
				return
			case c, ok := <-ch:
				if !ok {
					ch = nil
					break
				}
				s.applyChange(c)
			}
		}
	}
}

func (s *Server) applyChange(c Change) {
	switch c.Kind {
	case store.ChangeEnvelopes:
		s.spawn(func() { s.pullGroup(c.Workspace, c.Group, c.Seq) })
	case store.ChangeAccessSet:
		s.spawn(func() { s.accessSetMoved(c.Workspace, c.Version) })
	case store.ChangeRoster:
		s.rosterMoved(c.Workspace, c.Version, c.Head)
	case store.ChangeWelcome:
		s.welcomeKept(c.Workspace, c.Head, wire.WelcomeRef{Group: c.Group, Seq: c.Seq})
	case store.ChangeResync:
		// Notifications may have been lost: recheck every connected
		// workspace and pull every subscribed group.
		for _, ws := range s.hub.workspaces() {
			s.spawn(func() { s.enforce(ws) })
		}
		for _, g := range s.hub.groups() {
			s.spawn(func() { s.pullGroup(g.ws, g.group, math.MaxUint64) })
		}
	}
}

// recheckLoop rechecks every connected workspace against its access set
// each RecheckInterval (the bound on revocation when a notification is
// lost), and refreshes the byte and retention gauges every 10th round.
func (s *Server) recheckLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.lim.RecheckInterval)
	defer t.Stop()
	for round := 1; ; round++ {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		for _, ws := range s.hub.workspaces() {
			s.enforce(ws)
			if round%10 == 0 {
				s.refreshStats(ws)
			}
		}
	}
}

// statsSoon refreshes ws's gauges after a request that deleted envelopes,
// off the connection's read loop: the statistics read scans the
// workspace's whole log, and a removal sends many deletions in a row. One
// refresh per workspace runs at a time; requests during it owe one more.
func (s *Server) statsSoon(ws wire.ID) {
	s.statsMu.Lock()
	if _, running := s.stats[ws]; running {
		s.stats[ws] = true
		s.statsMu.Unlock()
		return
	}
	if s.stats == nil {
		s.stats = map[wire.ID]bool{}
	}
	s.stats[ws] = false
	s.statsMu.Unlock()
	s.spawn(func() {
		for {
			s.refreshStats(ws)
			s.statsMu.Lock()
			if !s.stats[ws] || s.ctx.Err() != nil {
				delete(s.stats, ws)
				s.statsMu.Unlock()
				return
			}
			s.stats[ws] = false
			s.statsMu.Unlock()
		}
	})
}

func (s *Server) refreshStats(ws wire.ID) {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	st, err := s.backend.Stats(ctx, ws)
	if err == nil {
		s.observeStats(st)
	}
}

func (s *Server) observeStats(st *wire.Stats) {
	w := st.Workspace.String()
	s.metrics.WorkspaceBytes.WithLabelValues(w).Set(float64(st.LogBytes))
	s.metrics.Retention.WithLabelValues(w).Set(float64(st.OverRetention))
}
