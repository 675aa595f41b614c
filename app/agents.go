package app

import "weald/backend/engine"

// Agents by delegation for the desktop app: the approval sheet and the
// agents list (spec/channels.md "Group policy", the agent paragraphs;
// docs/protocol/agents.md).

// AgentScope is one channel of an agent's scope with its lock state.
type AgentScope struct {
	Channel   string    `json:"channel"`
	Name      string    `json:"name"`
	Admission Admission `json:"admission" ts_type:"'everyone' | 'parent' | 'explicit'"`
	History   History   `json:"history" ts_type:"'open' | 'closed'"`
	Member    bool      `json:"member"` // the agent's leaf is in it
}

// AgentRequest is what the approval sheet shows before approving.
type AgentRequest struct {
	Agent       string       `json:"agent"`
	Name        string       `json:"name"`
	Fingerprint string       `json:"fingerprint"`
	Scope       []AgentScope `json:"scope"`
	Expiry      int64        `json:"expiry"` // unix ms, if approved now
	Renewal     bool         `json:"renewal"`
	Added       []string     `json:"added"`
	Dropped     []string     `json:"dropped"`
	Parent      string       `json:"parent"`     // the agent it is a sub-agent of (id), if any
	ParentName  string       `json:"parentName"` // that agent's name
	Blocked     string       `json:"blocked"`    // why this device cannot approve it, if it cannot
}

// AgentSubmission is what submitting a pasted request did: Renewed when
// it renewed the agent at once (same channels: nothing to approve, no
// membership changes), else Request, the approval sheet to show.
type AgentSubmission struct {
	Renewed *Agent        `json:"renewed"`
	Request *AgentRequest `json:"request"`
}

// Agent is an agent of the workspace.
type Agent struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Fingerprint string       `json:"fingerprint"`
	Owner       string       `json:"owner"`
	OwnerName   string       `json:"ownerName"`
	Scope       []AgentScope `json:"scope"`
	Expiry      int64        `json:"expiry"` // unix ms
	State       AgentState   `json:"state" ts_type:"'live' | 'expired' | 'revoked'"`
	Yours       bool         `json:"yours"`      // issued by this device
	Parent      string       `json:"parent"`     // the agent whose certificate this one's sub-delegates (id), if any
	ParentName  string       `json:"parentName"` // that agent's name
}

func agentScopes(in []engine.AgentScope) []AgentScope {
	out := []AgentScope{}
	for _, s := range in {
		out = append(out, AgentScope{Channel: s.Channel, Name: s.Name, Admission: Admission(s.Admission), History: History(s.History), Member: s.Member})
	}
	return out
}

func agentOf(v engine.AgentView) Agent {
	return Agent{ID: v.ID, Name: v.Name, Fingerprint: v.Fingerprint, Owner: v.Owner, OwnerName: v.OwnerName,
		Scope: agentScopes(v.Scope), Expiry: v.Expiry.UnixMilli(), State: AgentState(v.State), Yours: v.Yours,
		Parent: v.Parent, ParentName: v.ParentName}
}

func agentRequestOf(v engine.AgentRequestView) AgentRequest {
	return AgentRequest{Agent: v.Agent, Name: v.Name, Fingerprint: v.Fingerprint, Scope: agentScopes(v.Scope),
		Expiry: v.Expiry.UnixMilli(), Renewal: v.Renewal, Added: v.Added, Dropped: v.Dropped,
		Parent: v.Parent, ParentName: v.ParentName, Blocked: v.Blocked}
}

// PreviewAgentRequest decodes a pasted agent request for the approval
// sheet; nothing is written.
func (w *Workspaces) PreviewAgentRequest(ws, request string) (AgentRequest, error) {
	r, err := w.run(ws)
	if err != nil {
		return AgentRequest{}, err
	}
	v, perr := r.eng.PreviewAgentRequest(request)
	if perr != nil {
		return AgentRequest{}, toError(perr)
	}
	return agentRequestOf(v), nil
}

// SubmitAgentRequest is what the app does with a pasted request
// (spec/channels.md "Group policy": "Renewal within the same scope does not
// change membership or prompt again. Widening a scope is one visible
// approval followed by the matching additions."): a renewal of an agent
// this device approved, for exactly the channels it has, is approved at
// once, without a prompt, and changes no membership (Renewed); anything
// else (a new agent, a wider or narrower scope, a request this device
// cannot approve) is returned as the approval sheet (Request), and
// ApproveAgent is the one approval, after which the adds follow.
func (w *Workspaces) SubmitAgentRequest(ws, request string) (AgentSubmission, error) {
	req, err := w.PreviewAgentRequest(ws, request)
	if err != nil {
		return AgentSubmission{}, err
	}
	if !req.Renewal {
		return AgentSubmission{Request: &req}, nil
	}
	renewed, err := w.ApproveAgent(ws, request)
	if err != nil {
		return AgentSubmission{}, err
	}
	return AgentSubmission{Renewed: &renewed}, nil
}

// ApproveAgent approves a request from this device (the certificate, then
// the agent's adds to the channels named once it has connected).
func (w *Workspaces) ApproveAgent(ws, request string) (Agent, error) {
	r, err := w.run(ws)
	if err != nil {
		return Agent{}, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	v, aerr := r.eng.ApproveAgent(ctx, request)
	if aerr != nil {
		return Agent{}, toError(aerr)
	}
	return agentOf(v), nil
}

// Agents lists the workspace's agents.
func (w *Workspaces) Agents(ws string) ([]Agent, error) {
	r, err := w.run(ws)
	if err != nil {
		return nil, err
	}
	out := []Agent{}
	for _, v := range r.eng.Agents() {
		out = append(out, agentOf(v))
	}
	return out, nil
}

// RevokeAgent revokes an agent (its id) and evicts it.
func (w *Workspaces) RevokeAgent(ws, id string) (Agent, error) {
	r, err := w.run(ws)
	if err != nil {
		return Agent{}, err
	}
	ctx, cancel := w.callCtx()
	defer cancel()
	v, rerr := r.eng.RevokeAgent(ctx, id)
	if rerr != nil {
		return Agent{}, toError(rerr)
	}
	return agentOf(v), nil
}
