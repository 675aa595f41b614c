package server

import (
	"sync"

	"weald/backend/wire"
)

// member is what the hub needs from a connection.
type member interface {
	// principal returns the workspace, the key id (or grant hash) the
	// connection authenticated with, and its kind.
	principal() (ws wire.ID, key wire.ID, kind wire.PrincipalKind)
	// push queues accepted envelopes for the client without blocking; false
	// means the client is too slow and must be disconnected. frame returns
	// the EventEnvelopes encoding of exactly envs (shared by subscribers).
	push(group wire.ID, envs []wire.SeqEnvelope, frame func() []byte) bool
	// kick closes the connection, telling the client why.
	kick(e *wire.Error)
}

type groupKey struct{ ws, group wire.ID }
type keyKey struct{ ws, key wire.ID }

// hub tracks the authenticated connections of one relay process: per key
// (for the connections-per-key limit and for revocation) and per group
// subscription (for fan-out).
type hub struct {
	mu      sync.RWMutex
	maxPer  int
	byKey   map[keyKey]map[member]struct{}
	byWS    map[wire.ID]map[member]struct{}
	subs    map[groupKey]map[member]struct{}
	subsOf  map[member]map[groupKey]struct{}
	onCount func(delta int)
}

func newHub(maxPerKey int, onCount func(int)) *hub {
	if onCount == nil {
		onCount = func(int) {}
	}
	return &hub{
		maxPer:  maxPerKey,
		byKey:   map[keyKey]map[member]struct{}{},
		byWS:    map[wire.ID]map[member]struct{}{},
		subs:    map[groupKey]map[member]struct{}{},
		subsOf:  map[member]map[groupKey]struct{}{},
		onCount: onCount,
	}
}

// add registers an authenticated connection; it refuses with
// limit/connections when the key already has maxPer open.
func (h *hub) add(m member) *wire.Error {
	ws, key, _ := m.principal()
	k := keyKey{ws, key}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.byKey[k]) >= h.maxPer {
		return wire.Errorf(wire.CodeLimitConnections,
			"This key already has the maximum number of open connections to this relay.",
			wire.U("limit", uint64(h.maxPer)))
	}
	if h.byKey[k] == nil {
		h.byKey[k] = map[member]struct{}{}
	}
	h.byKey[k][m] = struct{}{}
	if h.byWS[ws] == nil {
		h.byWS[ws] = map[member]struct{}{}
	}
	h.byWS[ws][m] = struct{}{}
	h.onCount(1)
	return nil
}

// remove forgets a connection and its subscriptions; safe to repeat.
func (h *hub) remove(m member) {
	ws, key, _ := m.principal()
	k := keyKey{ws, key}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.byKey[k][m]; !ok {
		return
	}
	delete(h.byKey[k], m)
	if len(h.byKey[k]) == 0 {
		delete(h.byKey, k)
	}
	delete(h.byWS[ws], m)
	if len(h.byWS[ws]) == 0 {
		delete(h.byWS, ws)
	}
	for g := range h.subsOf[m] {
		delete(h.subs[g], m)
		if len(h.subs[g]) == 0 {
			delete(h.subs, g)
		}
	}
	delete(h.subsOf, m)
	h.onCount(-1)
}

// subscribe adds m to the subscribers of group in its workspace; it returns
// false when m has reached max subscriptions.
func (h *hub) subscribe(m member, group wire.ID, max int) bool {
	ws, _, _ := m.principal()
	g := groupKey{ws, group}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.byWS[ws][m]; !ok {
		return false
	}
	if _, ok := h.subsOf[m][g]; ok {
		return true
	}
	if len(h.subsOf[m]) >= max {
		return false
	}
	if h.subs[g] == nil {
		h.subs[g] = map[member]struct{}{}
	}
	h.subs[g][m] = struct{}{}
	if h.subsOf[m] == nil {
		h.subsOf[m] = map[groupKey]struct{}{}
	}
	h.subsOf[m][g] = struct{}{}
	return true
}

// publish pushes envelopes of one group to its local subscribers and
// returns how many were reached. Slow subscribers are kicked.
func (h *hub) publish(ws, group wire.ID, envs []wire.SeqEnvelope) int {
	h.mu.RLock()
	set := h.subs[groupKey{ws, group}]
	targets := make([]member, 0, len(set))
	for m := range set {
		targets = append(targets, m)
	}
	h.mu.RUnlock()
	var once sync.Once
	var enc []byte
	frame := func() []byte {
		once.Do(func() {
			enc, _ = wire.EncodeFrame(wire.Frame{Body: &wire.EventEnvelopes{Group: group, Envelopes: envs}})
		})
		return enc
	}
	n := 0
	for _, m := range targets {
		if m.push(group, envs, frame) {
			n++
		} else {
			m.kick(wire.Errorf(wire.CodeLimitSlowConsumer,
				"The connection fell too far behind the envelopes it subscribed to; reconnect and fetch from the last seq you hold."))
		}
	}
	return n
}

// connections returns the members of a workspace.
func (h *hub) connections(ws wire.ID) []member {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]member, 0, len(h.byWS[ws]))
	for m := range h.byWS[ws] {
		out = append(out, m)
	}
	return out
}

// keyConnections returns the connections of one key of a workspace.
func (h *hub) keyConnections(ws, key wire.ID) []member {
	h.mu.RLock()
	defer h.mu.RUnlock()
	set := h.byKey[keyKey{ws, key}]
	out := make([]member, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	return out
}

// workspaces returns the workspaces with at least one connection.
func (h *hub) workspaces() []wire.ID {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]wire.ID, 0, len(h.byWS))
	for ws := range h.byWS {
		out = append(out, ws)
	}
	return out
}

// count returns the number of registered connections of key.
func (h *hub) count(ws, key wire.ID) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.byKey[keyKey{ws, key}])
}

// revoke kicks every connection of ws for which refuse returns an error,
// with that error. It returns how many were kicked.
func (h *hub) revoke(ws wire.ID, refuse func(key wire.ID, kind wire.PrincipalKind) *wire.Error) int {
	n := 0
	for _, m := range h.connections(ws) {
		_, key, kind := m.principal()
		if e := refuse(key, kind); e != nil {
			m.kick(e)
			h.remove(m)
			n++
		}
	}
	return n
}

// unsubscribe removes m from the subscribers of group.
func (h *hub) unsubscribe(m member, group wire.ID) {
	ws, _, _ := m.principal()
	g := groupKey{ws, group}
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[g], m)
	if len(h.subs[g]) == 0 {
		delete(h.subs, g)
	}
	delete(h.subsOf[m], g)
}

// subscribed reports whether group has local subscribers.
func (h *hub) subscribed(ws, group wire.ID) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[groupKey{ws, group}]) > 0
}

// minLast returns the lowest last-pushed seq among the group's subscribers
// (where a pull must start when this process has published nothing yet).
func (h *hub) minLast(ws, group wire.ID) uint64 {
	h.mu.RLock()
	set := h.subs[groupKey{ws, group}]
	ms := make([]member, 0, len(set))
	for m := range set {
		ms = append(ms, m)
	}
	h.mu.RUnlock()
	var min uint64
	first := true
	for _, m := range ms {
		if c, ok := m.(*conn); ok {
			c.mu.Lock()
			if st := c.subs[group]; st != nil && (first || st.last < min) {
				min, first = st.last, false
			}
			c.mu.Unlock()
		}
	}
	return min
}

// groups returns every group with local subscribers.
func (h *hub) groups() []groupKey {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]groupKey, 0, len(h.subs))
	for g := range h.subs {
		out = append(out, g)
	}
	return out
}
