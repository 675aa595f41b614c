package engine

import (
	"context"
	"errors"
	"io"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// An engine runs as an agent (spec/channels.md "Group policy", the agent
// paragraphs; docs/protocol/agents.md): it holds an agent key instead of a
// device key, connects with it once an access set lists it, never writes
// the roster, never self-joins and never commits; the device that approved
// it adds it to exactly the groups its certificate names, and it reads and
// posts there like any member.

// agentMeta is an agent engine's record: what it asked for.
type agentMeta struct {
	Name     string        `json:"name"`
	Scope    []string      `json:"scope"`
	ValidFor time.Duration `json:"valid_for"`
}

// Errors of an agent engine.
var (
	ErrAgentNotApproved = errcode.New("agent/not_approved", "the relay does not know this agent's key: its request is not approved yet, or its certificate expired or was revoked")
	ErrAgentOnly        = errcode.New("agent/not_allowed", "an agent cannot do that; its owner's device does")
)

func (e *Engine) agentMode() bool { return e.meta.Agent != nil }

func (e *Engine) agentID() identity.AgentID { return identity.AgentID(e.devID) }

func (e *Engine) initAgentKey() error {
	k, err := identity.PrivateFromSeed[identity.Agent](e.meta.DeviceSeed)
	if err != nil {
		return err
	}
	e.agentKey = k
	e.devID = identity.DeviceID(identity.AgentIDOf(k.Public()))
	return nil
}

// CreateAgent makes an agent identity for workspace ws (64 hex digits) at
// relayURL in opts.Dir: a fresh agent key and the signed request its owner
// approves (weald agent approve, or the app's approval sheet). It does not
// connect; Sync connects once the request is approved.
func CreateAgent(ctx context.Context, opts Options, relayURL, ws, name string, scope []string, validFor time.Duration) (*Engine, string, error) {
	var wsID hexID
	if err := wsID.UnmarshalText([]byte(ws)); err != nil {
		return nil, "", errcode.Errorf("workspace/unknown", "%v", err)
	}
	if Exists(opts.Dir) {
		return nil, "", ErrExists
	}
	e, err := newEngine(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	seed := make([]byte, 32)
	if _, err := io.ReadFull(e.rand, seed); err != nil {
		e.db.close()
		return nil, "", err
	}
	e.meta = meta{Workspace: wsID, Relay: relayURL, DeviceSeed: seed, Steps: map[string]bool{}, Muted: map[string]bool{},
		Agent: &agentMeta{Name: name, Scope: scope, ValidFor: validFor}}
	if err := e.initKeys(); err != nil {
		e.db.close()
		return nil, "", err
	}
	req, err := e.agentRequest()
	if err != nil {
		e.db.close()
		return nil, "", err
	}
	e.roster = roster.New(roster.Options{})
	if err := e.persistMeta(ctx); err != nil {
		e.db.close()
		return nil, "", err
	}
	return e, req, nil
}

func (e *Engine) agentRequest() (string, error) {
	a := e.meta.Agent
	r, err := roster.NewAgentRequest(e.wsID(), e.agentKey, a.Name, a.Scope, a.ValidFor)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

// AgentRequest returns this agent's request again (the same key, name,
// scope and validity; a new one is signed each time).
func (e *Engine) AgentRequest() (string, error) {
	if !e.agentMode() {
		return "", ErrAgentOnly
	}
	return e.agentRequest()
}

// AgentRequestScope is AgentRequest for another scope (channel names): how
// an approved agent asks for more channels, or fewer. Approving it is a
// scope change (docs/protocol/agents.md); the agent's own record keeps
// its first scope.
func (e *Engine) AgentRequestScope(scope []string) (string, error) {
	if !e.agentMode() {
		return "", ErrAgentOnly
	}
	a := e.meta.Agent
	r, err := roster.NewAgentRequest(e.wsID(), e.agentKey, a.Name, scope, a.ValidFor)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

// IsAgent reports whether this engine runs as an agent.
func (e *Engine) IsAgent() bool { return e.agentMode() }

// syncAgent is sync for an agent: connect with the agent key, read the
// roster, catch up the groups it is in, join by the Welcomes its issuer
// sent, and keep key packages on the relay for the next Add.
func (e *Engine) syncAgent(ctx context.Context) (SyncReport, error) {
	var rep SyncReport
	if err := e.connect(ctx); err != nil {
		var we *wire.Error
		if errors.As(err, &we) && (we.Code == wire.CodeAuthUnknownKey || we.Code == wire.CodeAuthRevoked) {
			return rep, ErrAgentNotApproved
		}
		return rep, err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return rep, err
	}
	for _, g := range e.groups {
		if g.mls == nil || !g.mls.Active() {
			continue
		}
		if err := e.catchUp(ctx, g); err != nil {
			return rep, err
		}
	}
	if !e.roster.AgentLive(e.agentID(), e.now()) {
		rep.Ready = false
		return rep, ErrAgentNotApproved
	}
	if err := e.acceptWelcomes(ctx); err != nil {
		return rep, err
	}
	if err := e.agentBackfills(ctx); err != nil {
		return rep, err
	}
	if err := e.ensureKeyPackages(ctx); err != nil {
		return rep, err
	}
	for _, id := range e.roster.AgentGroups(e.agentID(), e.now()) {
		if e.agentIn(id) {
			rep.Joined.Joined = append(rep.Joined.Joined, hexID(id).hex())
		} else {
			rep.Joined.Waiting = append(rep.Joined.Waiting, hexID(id).hex())
		}
	}
	rep.Ready = e.ready()
	if rep.Ready && !e.meta.Steps[StepReady] {
		e.meta.Steps[StepReady] = true
		if err := e.persistMeta(ctx); err != nil {
			return rep, err
		}
		e.emit(Event{Kind: EventReady})
	}
	return rep, nil
}

// agentReady: the agent is live and in at least one group of its scope.
func (e *Engine) agentReady() bool {
	for _, id := range e.roster.AgentGroups(e.agentID(), e.now()) {
		if e.agentIn(id) {
			return true
		}
	}
	return false
}

// welcomeGroups is where acceptWelcomes looks for Welcomes: a device's
// explicit groups, an agent's groups in scope.
func (e *Engine) welcomeGroups() []roster.GroupInfo {
	var out []roster.GroupInfo
	if e.agentMode() {
		for _, id := range e.roster.AgentGroups(e.agentID(), e.now()) {
			if gi, ok := e.roster.Group(id); ok {
				out = append(out, gi)
			}
		}
		return out
	}
	for _, gi := range e.roster.Groups() {
		if !gi.Deleted && gi.Policy.Admission == roster.AdmissionExplicit {
			out = append(out, gi)
		}
	}
	// A recovered device enters the root by Welcome (recover.go).
	if root, ok := e.roster.Group(e.roster.RootGroup()); ok && e.meta.Recovery != nil && !e.member(root.Policy.Group) {
		out = append([]roster.GroupInfo{root}, out...)
	}
	return out
}

// authorPub returns the roster key of an envelope's author in group g: a
// device of the roster, or an agent, unrevoked, whose certificate names g
// (agent is true then). An agent's envelope in any other group is not
// accepted (docs/protocol/agents.md "What receivers check").
func (e *Engine) authorPub(id wire.ID, g identity.GroupID) (pub []byte, agent, ok bool) {
	if p, ok := e.devicePub(id); ok {
		return p, false, true
	}
	a, ok := e.roster.Agent(identity.AgentID(id))
	if !ok || a.RevokedAt != nil || !a.Cert.InScope(g) {
		return nil, false, false
	}
	return a.Cert.Agent.Bytes(), true, true
}

// agentJoinedAll reports whether this agent is in every group its live
// certificate names.
func (e *Engine) agentJoinedAll() bool {
	for _, id := range e.roster.AgentGroups(e.agentID(), e.now()) {
		if !e.agentIn(id) {
			return false
		}
	}
	return true
}

// agentIn reports whether this agent can read and post in group id: a
// member, and in an open group holding a history key, which comes in the
// member copy its Add's committer publishes after the Welcome
// (docs/protocol/agents.md "Reading"). Until then the group is still
// joining: Run retries, and a post would have no key to go under.
func (e *Engine) agentIn(id identity.GroupID) bool {
	if !e.member(id) {
		return false
	}
	gi, ok := e.roster.Group(id)
	return !ok || gi.Policy.History != roster.HistoryOpen || len(e.groups[id].history) > 0
}

// agentBackfill gives an agent that joined an open group by Welcome the
// group's history, as a self-joiner has it: the content before the
// Welcome (before), opened with the history keys the member copy carried
// (docs/protocol/agents.md "Reading"). Devices read it by their own join
// path; closed groups have no history for joiners.
//
// The Add's committer publishes the member copy after its Welcome, so the
// agent may read the Welcome before the copy exists. The Welcome's seq is
// then kept (groupRec.Backfill) until a member copy opens
// (BackfillKeys, learnHistory), and the next sync reads the content
// before it again (agentBackfills).
func (e *Engine) agentBackfill(ctx context.Context, g *group, pol *roster.GroupPolicy, before []wire.SeqEnvelope) error {
	if !e.agentMode() || pol.History != roster.HistoryOpen {
		return nil
	}
	id := identity.GroupID(g.rec.ID)
	messages := false
	for i := range before {
		env := &before[i].Envelope
		if env.Kind != wire.KindContent {
			continue
		}
		pub, _, ok := e.authorPub(env.Author, id)
		if !ok || wire.VerifyEnvelope(env, pub) != nil {
			continue
		}
		if changed, err := e.applyContent(ctx, g, env); err == nil && changed {
			messages = true
		}
	}
	if g.rec.BackfillKeys {
		g.rec.Backfill, g.rec.BackfillKeys = 0, false
	}
	if err := e.db.update(ctx, func(t *txn) error {
		if err := e.saveShards(t); err != nil {
			return err
		}
		return e.saveGroup(t, g)
	}); err != nil {
		return err
	}
	if messages {
		e.emit(Event{Kind: EventMessages, Channel: hexID(id).hex()})
	}
	return nil
}

// agentBackfills reads again, in each group where a member copy of the
// history keys opened after the Welcome this agent joined by, the content
// before that Welcome (agentBackfill).
func (e *Engine) agentBackfills(ctx context.Context) error {
	for id, g := range e.groups {
		if g.rec.Backfill == 0 || !g.rec.BackfillKeys || !e.member(id) {
			continue
		}
		gi, ok := e.roster.Group(id)
		if !ok {
			continue
		}
		envs, err := e.fetchAll(ctx, wire.ID(id), 0)
		if err != nil {
			return err
		}
		n := 0
		for n < len(envs) && envs[n].Seq < g.rec.Backfill {
			n++
		}
		if err := e.agentBackfill(ctx, g, &gi.Policy, envs[:n]); err != nil {
			return err
		}
	}
	return nil
}

// backfillDue reports whether agentBackfills has a group to read.
func (e *Engine) backfillDue() bool {
	for id, g := range e.groups {
		if g.rec.Backfill > 0 && g.rec.BackfillKeys && e.member(id) {
			return true
		}
	}
	return false
}
