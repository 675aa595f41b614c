package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// The owner's side of agents (spec/channels.md "Group policy", "The join";
// docs/protocol/agents.md): a person approves an agent's request from one
// of their devices, which issues the delegation certificate, records it in
// the roster (admit-agent) and adds the agent's leaf to exactly the groups
// the certificate names once the agent has key packages on the relay. The
// epoch steward evicts the leaf when the certificate expires, is revoked or
// stops naming the group.

// agentStewardGrace is how long the issuing device has to evict a leaf
// whose certificate lapsed before any other member does it.
const agentStewardGrace = time.Hour

// Errors of approving and managing agents.
var (
	ErrAgentWorkspace = errcode.New("agent/other_workspace", "the agent request is for another workspace")
	ErrAgentScope     = errcode.New("agent/scope", "an agent may be given channels only: not the workspace root, not a direct message")
	ErrAgentUnknown   = errcode.New("agent/unknown", "there is no agent with that id or name")
)

// AgentScope is one group of an agent's scope, as the approval sheet and
// the agents list show it.
type AgentScope struct {
	Channel   string `json:"channel"` // group id (hex)
	Name      string `json:"name"`
	Admission string `json:"admission"` // the lock state: admission and history
	History   string `json:"history"`
	Member    bool   `json:"member"` // the agent has a leaf there (as this client sees it)
}

// AgentView is an agent of the roster.
type AgentView struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Fingerprint string       `json:"fingerprint"`
	Owner       string       `json:"owner"` // user id (hex) of the issuing device's user
	OwnerName   string       `json:"owner_name"`
	Device      string       `json:"issuing_device"`
	Scope       []AgentScope `json:"scope"`
	NotBefore   time.Time    `json:"not_before"`
	Expiry      time.Time    `json:"expiry"`
	State       string       `json:"state"` // "live", "expired", "revoked"
	Yours       bool         `json:"yours"` // issued by this device
	// Parent is the agent (id hex) whose certificate this one's
	// sub-delegates, within the parent's scope and window; empty for a
	// certificate a device issued. ParentName is that agent's name.
	Parent     string `json:"parent,omitempty"`
	ParentName string `json:"parent_name,omitempty"`
}

// AgentRequestView is what the approval sheet shows of a request before it
// is approved.
type AgentRequestView struct {
	Agent       string       `json:"agent"` // agent id (hex)
	Name        string       `json:"name"`
	Fingerprint string       `json:"fingerprint"`
	Scope       []AgentScope `json:"scope"`
	Expiry      time.Time    `json:"expiry"` // if approved now
	// Renewal: the agent is already admitted with exactly this scope, so
	// approving changes no membership. Added names the channels approving
	// adds to its current scope, Dropped those it takes away.
	Renewal bool     `json:"renewal"`
	Added   []string `json:"added"`
	Dropped []string `json:"dropped"`
	// Parent and ParentName: the agent is already admitted by a
	// sub-delegation of that agent (AgentView.Parent). Blocked, when not
	// empty, says in one sentence why this device cannot approve the
	// request (the roster would refuse it): the agent is revoked, a
	// sub-agent, or issued by another device.
	Parent     string `json:"parent,omitempty"`
	ParentName string `json:"parent_name,omitempty"`
	Blocked    string `json:"blocked,omitempty"`
}

// Fingerprint is how an agent key is compared by eye: the first 16 hex
// digits of its id in groups of four (weald agent init prints the same).
func Fingerprint(id identity.AgentID) string {
	h := hex.EncodeToString(id[:8])
	return h[0:4] + " " + h[4:8] + " " + h[8:12] + " " + h[12:16]
}

// AgentFingerprint returns this agent's fingerprint.
func (e *Engine) AgentFingerprint() string { return Fingerprint(e.agentID()) }

// agentLabel is an agent's name as messages and member lists show it.
func (e *Engine) agentLabel(a roster.AgentInfo) string {
	owner := "unknown"
	if d, ok := e.roster.Device(a.Cert.IssuingDevice); ok {
		if u, ok := e.roster.User(d.User); ok && u.Name != "" {
			owner = u.Name
		} else {
			owner = "user " + hex.EncodeToString(d.User[:4])
		}
	}
	name := a.Name
	if name == "" {
		name = "agent " + hex.EncodeToString(a.ID[:4])
	}
	return name + " (agent of " + owner + ")"
}

// scopeOf resolves a request's channel names against the roster: channels
// only, each one this device is in (it adds the agent there).
func (e *Engine) scopeOf(names []string) ([]roster.GroupInfo, error) {
	var out []roster.GroupInfo
	seen := map[identity.GroupID]bool{}
	for _, n := range names {
		gi, err := e.resolveChannel(n)
		if err != nil {
			return nil, fmt.Errorf("%w: %q", err, n)
		}
		if gi.Policy.Kind != roster.KindChannel {
			return nil, fmt.Errorf("%w: %q", ErrAgentScope, n)
		}
		if !e.member(gi.Policy.Group) {
			return nil, fmt.Errorf("%w: %s", ErrNotMember, gi.Name)
		}
		if !seen[gi.Policy.Group] {
			seen[gi.Policy.Group] = true
			out = append(out, gi)
		}
	}
	return out, nil
}

func (e *Engine) scopeView(gis []roster.GroupInfo, agent identity.AgentID) []AgentScope {
	out := []AgentScope{}
	for _, gi := range gis {
		out = append(out, AgentScope{Channel: hexID(gi.Policy.Group).hex(), Name: gi.Name, Admission: gi.Policy.Admission.String(),
			History: gi.Policy.History.String(), Member: e.agentInGroup(gi.Policy.Group, agent) >= 0})
	}
	return out
}

// agentInGroup returns the agent's leaf index in g as this client sees it,
// or -1.
func (e *Engine) agentInGroup(id identity.GroupID, agent identity.AgentID) int {
	g := e.groups[id]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return -1
	}
	for _, m := range g.mls.Members() {
		if bytes.Equal(m.Credential.Identity, agent[:]) {
			return int(m.Index)
		}
	}
	return -1
}

// PreviewAgentRequest decodes and checks a request for the approval sheet;
// nothing is written.
func (e *Engine) PreviewAgentRequest(request string) (AgentRequestView, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, gis, err := e.checkRequest(request)
	if err != nil {
		return AgentRequestView{}, err
	}
	return e.requestView(r, gis), nil
}

func (e *Engine) checkRequest(request string) (*roster.AgentRequest, []roster.GroupInfo, error) {
	if e.agentMode() {
		return nil, nil, ErrAgentOnly
	}
	r, err := roster.ParseAgentRequest(request)
	if err != nil {
		return nil, nil, err
	}
	if r.Workspace != e.wsID() {
		return nil, nil, ErrAgentWorkspace
	}
	gis, err := e.scopeOf(r.Scope)
	return r, gis, err
}

func (e *Engine) requestView(r *roster.AgentRequest, gis []roster.GroupInfo) AgentRequestView {
	v := AgentRequestView{Agent: hexID(r.AgentID()).hex(), Name: r.Name, Fingerprint: Fingerprint(r.AgentID()),
		Scope: e.scopeView(gis, r.AgentID()), Expiry: e.now().Add(r.ValidFor).UTC(), Added: []string{}, Dropped: []string{}}
	cur := map[identity.GroupID]bool{}
	if a, ok := e.roster.Agent(r.AgentID()); ok {
		for _, g := range a.Cert.Scope {
			cur[g] = true
		}
	}
	next := map[identity.GroupID]bool{}
	for _, gi := range gis {
		next[gi.Policy.Group] = true
		if !cur[gi.Policy.Group] {
			v.Added = append(v.Added, gi.Name)
		}
	}
	for g := range cur {
		if !next[g] {
			if gi, ok := e.roster.Group(g); ok {
				v.Dropped = append(v.Dropped, gi.Name)
			}
		}
	}
	sort.Strings(v.Dropped)
	if a, ok := e.roster.Agent(r.AgentID()); ok {
		v.Parent, v.ParentName = e.parentOf(a)
		switch {
		case a.RevokedAt != nil:
			v.Blocked = "This agent was revoked; a revoked agent cannot be approved again."
		case a.Cert.Parent != nil:
			v.Blocked = fmt.Sprintf("This agent is a sub-agent of %s; only %s can renew or change it.", v.ParentName, v.ParentName)
		case a.Cert.IssuingDevice != e.devID:
			owner := "another device"
			if d, ok := e.roster.Device(a.Cert.IssuingDevice); ok {
				owner = e.userName(d.User) + "'s device that approved it"
			}
			v.Blocked = fmt.Sprintf("This agent was approved by %s; only that device can renew or change it.", owner)
		}
	}
	v.Renewal = len(cur) > 0 && len(v.Added) == 0 && len(v.Dropped) == 0 && v.Blocked == ""
	return v
}

// parentOf names the agent whose certificate a's sub-delegates (id hex and
// name), or nothing for a certificate a device issued.
func (e *Engine) parentOf(a roster.AgentInfo) (id, name string) {
	if a.Cert.Parent == nil {
		return "", ""
	}
	pid := a.Cert.Parent.AgentID()
	name = "agent " + pid.ShortString()
	if p, ok := e.roster.Agent(pid); ok {
		name = p.Name
	}
	return hexID(pid).hex(), name
}

// ApproveAgent approves a request from this device: it issues the
// delegation certificate (valid from a minute ago, for as long as the
// request asks), appends admit-agent to the roster, publishes the access
// set when this device is an admin (otherwise the next admin's sync does),
// and adds the agent to each group in scope whose Add can be made now (the
// rest when the agent has published key packages: every sync of this
// device tries again).
func (e *Engine) ApproveAgent(ctx context.Context, request string) (AgentView, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return AgentView{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return AgentView{}, err
	}
	r, gis, err := e.checkRequest(request)
	if err != nil {
		return AgentView{}, err
	}
	scope := make([]identity.GroupID, len(gis))
	for i, gi := range gis {
		scope[i] = gi.Policy.Group
	}
	now := e.now()
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		cert, err := identity.IssueDelegation(e.dev, r.Agent, scope, now.Add(-time.Minute), now.Add(r.ValidFor))
		if err != nil {
			return nil, err
		}
		return &roster.AdmitAgent{Cert: cert, Possession: r.Possession, Name: r.Name}, nil
	}); err != nil {
		return AgentView{}, err
	}
	e.emit(Event{Kind: EventRoster})
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return AgentView{}, err
		}
	}
	if err := e.addAgents(ctx); err != nil {
		return AgentView{}, err
	}
	a, _ := e.roster.Agent(r.AgentID())
	return e.agentView(a), nil
}

// Agents lists the roster's agents, newest admission last.
func (e *Engine) Agents() []AgentView {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []AgentView{}
	for _, a := range e.roster.Agents() {
		out = append(out, e.agentView(a))
	}
	return out
}

func (e *Engine) agentView(a roster.AgentInfo) AgentView {
	v := AgentView{ID: hexID(a.ID).hex(), Name: a.Name, Fingerprint: Fingerprint(a.ID), Device: hexID(a.Cert.IssuingDevice).hex(),
		NotBefore: a.Cert.NotBefore.UTC(), Expiry: a.Cert.Expiry.UTC(), State: "live", Yours: a.Cert.IssuingDevice == e.devID}
	if d, ok := e.roster.Device(a.Cert.IssuingDevice); ok {
		v.Owner = hexID(d.User).hex()
		v.OwnerName = e.userName(d.User)
	}
	var gis []roster.GroupInfo
	for _, g := range a.Cert.Scope {
		if gi, ok := e.roster.Group(g); ok {
			gis = append(gis, gi)
		}
	}
	// The certificate keeps its scope in group-id order (random to a
	// reader); people read channels by name.
	sort.SliceStable(gis, func(i, j int) bool { return gis[i].Name < gis[j].Name })
	v.Scope = e.scopeView(gis, a.ID)
	v.Parent, v.ParentName = e.parentOf(a)
	switch {
	case a.RevokedAt != nil:
		v.State = "revoked"
	case !e.roster.AgentLive(a.ID, e.now()):
		v.State = "expired"
	}
	return v
}

// findAgent resolves an agent by id (64 hex), id prefix (8+ hex digits) or
// exact name.
func (e *Engine) findAgent(s string) (roster.AgentInfo, error) {
	s = strings.TrimSpace(s)
	var found []roster.AgentInfo
	for _, a := range e.roster.Agents() {
		h := hexID(a.ID).hex()
		if h == strings.ToLower(s) || (len(s) >= 8 && strings.HasPrefix(h, strings.ToLower(s))) || strings.EqualFold(a.Name, s) {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		return roster.AgentInfo{}, fmt.Errorf("%w (%q: %d found)", ErrAgentUnknown, s, len(found))
	}
	return found[0], nil
}

// RevokeAgent revokes an agent (its owner's devices or an admin may), then
// runs the steward's pass: this device evicts the agent's leaves from the
// groups it is in when it issued the agent (others follow after the grace).
func (e *Engine) RevokeAgent(ctx context.Context, agent string) (AgentView, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.agentMode() {
		return AgentView{}, ErrAgentOnly
	}
	if err := e.connect(ctx); err != nil {
		return AgentView{}, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return AgentView{}, err
	}
	a, err := e.findAgent(agent)
	if err != nil {
		return AgentView{}, err
	}
	now := e.now()
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.Revoke{RevokedAt: now, Targets: []identity.Principal{identity.AgentPrincipal(a.ID)}}, nil
	}); err != nil {
		return AgentView{}, err
	}
	e.emit(Event{Kind: EventRoster})
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return AgentView{}, err
		}
	}
	if err := e.stewardAgents(ctx); err != nil {
		return AgentView{}, err
	}
	a, _ = e.roster.Agent(a.ID)
	return e.agentView(a), nil
}

// addAgents adds each live agent this device issued to every group its
// certificate names that this device is in and the agent is not, when the
// agent has a key package on the relay (one Add commit per group). The
// logs are read together (prefetch), the key packages claimed in one
// request (claimMany), the commits sent in one SEND and the groups'
// bundles in one more (commitBatch).
func (e *Engine) addAgents(ctx context.Context) error {
	now := e.now()
	type add struct {
		g     *group
		agent identity.AgentID
	}
	var adds []add
	seen := map[identity.GroupID]bool{}
	var keys []fetchKey
	for _, a := range e.roster.Agents() {
		if a.Cert.IssuingDevice != e.devID || !e.roster.AgentLive(a.ID, now) {
			continue
		}
		for _, id := range e.roster.AgentGroups(a.ID, now) {
			if !e.member(id) || e.agentInGroup(id, a.ID) >= 0 {
				continue
			}
			g := e.groups[id]
			adds = append(adds, add{g, a.ID})
			if !seen[id] {
				seen[id] = true
				keys = append(keys, fetchKey{wire.ID(id), g.rec.LastSeq})
			}
		}
	}
	if len(adds) == 0 {
		return nil
	}
	// One batch of Add commits, one per group, for all the groups at once
	// (commitBatch, as the removal rotates): approving an agent for 20
	// channels is one SEND of commits, not 20 round trips.
	e.prefetch(ctx, keys)
	defer e.dropPrefetched()
	byGroup := map[*group]*batchCommit{}
	var batch []*batchCommit
	caught := map[*group]bool{}
	var want []add // the adds still to do, one key package each
	for _, ad := range adds {
		if !caught[ad.g] {
			caught[ad.g] = true
			if err := e.catchUp(ctx, ad.g); err != nil {
				return err
			}
		}
		if e.agentInGroup(identity.GroupID(ad.g.rec.ID), ad.agent) < 0 {
			want = append(want, ad)
		}
	}
	// One claim request for every group's key package (claimMany).
	owners := make([]wire.ID, len(want))
	for i, ad := range want {
		owners[i] = wire.ID(ad.agent)
	}
	claimed, err := e.claimMany(ctx, owners)
	if err != nil {
		return err
	}
	for i, ad := range want {
		if !claimed[i].Found {
			continue // no key package yet: the agent has not connected
		}
		kp := claimed[i].KeyPackage
		if err := e.checkClaimed(ctx, ad.g, identity.DeviceID(ad.agent), kp); err != nil {
			return err
		}
		c := byGroup[ad.g]
		if c == nil {
			c = &batchCommit{g: ad.g, name: hexID(ad.g.rec.ID).hex(), opts: mls.CommitOptions{RatchetTreeInWelcome: true}}
			byGroup[ad.g] = c
			batch = append(batch, c)
		}
		c.opts.Add = append(c.opts.Add, kp)
	}
	for len(batch) > 0 {
		part := batch[:min(len(batch), rotateBatch)]
		batch = batch[len(part):]
		redo, err := e.commitBatch(ctx, part, func(*batchCommit) {})
		if err != nil {
			return err
		}
		// Group by group what the batch could not do: the log says
		// whether the commit was taken after all.
		for _, c := range redo {
			if err := e.catchUp(ctx, c.g); err != nil {
				return err
			}
			var kps [][]byte
			for _, kp := range c.opts.Add {
				id, err := mls.KeyPackageIdentity(kp)
				if err == nil && len(id) == 32 && e.agentInGroup(identity.GroupID(c.g.rec.ID), identity.AgentID(id)) < 0 {
					kps = append(kps, kp)
				}
			}
			if len(kps) == 0 {
				continue
			}
			if err := e.commit(ctx, c.g, mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true}); err != nil {
				return err
			}
		}
	}
	return nil
}

// stewardAgents is the epoch steward's pass over agent leaves
// (spec/channels.md "The join": "the epoch steward evicts the leaf when the
// certificate expires"): in every group this device is in, an agent leaf
// whose certificate is no longer live, or no longer names the group, is
// evicted with one Remove commit per group. The steward is the agent's
// issuing device, at once; if the leaf still stands agentStewardGrace after
// the certificate lapsed (the issuer is away, or revoked), any member
// device takes over: the first Remove in the log wins and the others' are
// stale (evict treats a lost race as done).
func (e *Engine) stewardAgents(ctx context.Context) error {
	if e.agentMode() || !e.roster.DeviceLive(e.devID) {
		return nil
	}
	now := e.now()
	ids := make([]identity.GroupID, 0, len(e.groups))
	for id := range e.groups {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return bytes.Compare(ids[i][:], ids[j][:]) < 0 })
	for _, id := range ids {
		g := e.groups[id]
		if !e.member(id) {
			continue
		}
		var leaves []uint32
		for _, m := range g.mls.Members() {
			if len(m.Credential.Identity) != 32 {
				continue
			}
			a, ok := e.roster.Agent(identity.AgentID(m.Credential.Identity))
			if !ok {
				continue
			}
			lapsed, since := e.agentLapsed(a, id, now)
			if !lapsed {
				continue
			}
			issuer := a.Cert.IssuingDevice == e.devID
			if issuer || !now.Before(since.Add(agentStewardGrace)) {
				leaves = append(leaves, m.Index)
			}
		}
		if len(leaves) > 0 {
			if err := e.evict(ctx, g, leaves); err != nil {
				return err
			}
			e.emit(Event{Kind: EventChannels})
		}
	}
	return nil
}

// agentLapsed reports whether agent a may no longer hold a leaf in group g
// at now, and since when: revoked, expired (or not live otherwise: its
// issuing device or a parent revoked), or its certificate no longer names
// g (a narrowed renewal).
func (e *Engine) agentLapsed(a roster.AgentInfo, g identity.GroupID, now time.Time) (bool, time.Time) {
	switch {
	case a.RevokedAt != nil:
		return true, *a.RevokedAt
	case !now.Before(a.Cert.Expiry):
		return true, a.Cert.Expiry
	case !e.roster.AgentLive(a.ID, now):
		return true, now.Add(-agentStewardGrace) // its issuer is gone: nobody else will do it sooner
	case !a.Cert.InScope(g):
		return true, a.Cert.NotBefore // the narrower certificate's issue
	}
	return false, time.Time{}
}

// agentAddsLeft reports whether a live agent this device issued is not yet
// in a group of its scope that this device is in.
func (e *Engine) agentAddsLeft() bool {
	now := e.now()
	for _, a := range e.roster.Agents() {
		if a.Cert.IssuingDevice != e.devID || !e.roster.AgentLive(a.ID, now) {
			continue
		}
		for _, id := range e.roster.AgentGroups(a.ID, now) {
			if e.member(id) && e.agentInGroup(id, a.ID) < 0 {
				return true
			}
		}
	}
	return false
}

// RevokeAgentsIssuedBy revokes, in one roster operation, every live agent
// whose certificate chain device issued (sub-delegations included) and
// evicts their leaves: spec/lifecycle.md "Key compromise", "revoke all
// certificates issued by this device" as one action, because a
// compromised laptop makes every agent it delegated to suspect. device is
// a device id or a unique prefix of 8+ hex digits: one of this user's, or
// anyone's for an admin (the roster's rule). It returns the agents
// revoked (none when there were none left).
func (e *Engine) RevokeAgentsIssuedBy(ctx context.Context, device string) ([]AgentView, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.agentMode() {
		return nil, ErrAgentOnly
	}
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return nil, err
	}
	d, err := e.findDevice(device)
	if err != nil {
		return nil, err
	}
	if d.User != identity.UserID(e.meta.User) && !e.roster.IsAdmin(e.devID) {
		return nil, ErrNotYourDevice
	}
	var ids []identity.AgentID
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		ids = ids[:0]
		var targets []identity.Principal
		for _, a := range e.roster.Agents() {
			if a.RevokedAt == nil && a.Cert.IssuingDevice == d.ID {
				ids = append(ids, a.ID)
				targets = append(targets, identity.AgentPrincipal(a.ID))
			}
		}
		if len(targets) == 0 {
			return nil, nil
		}
		return &roster.Revoke{RevokedAt: e.now(), Targets: targets}, nil
	}); err != nil {
		return nil, err
	}
	e.emit(Event{Kind: EventRoster})
	if e.roster.IsAdmin(e.devID) {
		if err := e.publishAccessSet(ctx); err != nil {
			return nil, err
		}
	}
	if err := e.stewardAgents(ctx); err != nil {
		return nil, err
	}
	out := []AgentView{}
	for _, id := range ids {
		a, _ := e.roster.Agent(id)
		out = append(out, e.agentView(a))
	}
	return out, nil
}
