package roster

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// An agent request is what an agent process prints for a person to approve
// (docs/protocol/agents.md "The request"): its key, the name it asks to be
// shown under, the channels it asks for, for how long, and its proof of
// possession, all signed by the agent key so that the approval sheet shows
// exactly what the agent asked for.
//
//	struct {
//	    uint8  version = 1;
//	    opaque workspace[32];
//	    opaque agent_pub[32];
//	    opaque name<V>;              // 1..80 bytes (a roster name)
//	    opaque scope<V>;             // channel names, each opaque<V>, 1..64 of them
//	    uint64 valid_for;            // seconds, 1 .. MaxAgentValidity
//	    opaque possession<V>;        // AgentPossession (64 bytes)
//	    opaque signature<V>;         // agent key, label "agent-request", over all of the above
//	} AgentRequest;
//
// Its text form is AgentRequestPrefix followed by the unpadded base64url
// encoding.
type AgentRequest struct {
	Workspace  identity.WorkspaceID
	Agent      identity.AgentPublic
	Name       string
	Scope      []string
	ValidFor   time.Duration
	Possession []byte
	Signature  []byte
}

// Limits and text form of an agent request.
const (
	AgentRequestPrefix    = "weald-agent-request:"
	MaxAgentScopeNames    = 64
	MaxAgentValidity      = 90 * 24 * time.Hour
	LabelAgentRequest     = identity.Label("agent-request")
	maxAgentRequestLength = 16 << 10
)

// ErrAgentRequest is a request that does not decode or verify.
var ErrAgentRequest = errcode.New("agent/bad_request", "the agent request is malformed or its signature does not verify; ask the agent for a new one")

// NewAgentRequest signs a request with the agent key.
func NewAgentRequest(ws identity.WorkspaceID, k identity.AgentPrivate, name string, scope []string, validFor time.Duration) (*AgentRequest, error) {
	r := &AgentRequest{Workspace: ws, Agent: k.Public(), Name: name, Scope: scope, ValidFor: validFor}
	if err := r.checkShape(); err != nil {
		return nil, err
	}
	var err error
	if r.Possession, err = AgentPossession(ws, k); err != nil {
		return nil, err
	}
	if r.Signature, err = k.Sign(LabelAgentRequest, r.tbs()); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *AgentRequest) checkShape() error {
	bad := func(f string, a ...any) error { return fmt.Errorf("%w: %s", ErrAgentRequest, fmt.Sprintf(f, a...)) }
	if !validName(r.Name) {
		return bad("the name %q is not a valid name", r.Name)
	}
	if len(r.Scope) == 0 || len(r.Scope) > MaxAgentScopeNames {
		return bad("it names %d channels; 1 to %d", len(r.Scope), MaxAgentScopeNames)
	}
	for _, s := range r.Scope {
		if !validName(s) {
			return bad("the channel name %q is not valid", s)
		}
	}
	if r.ValidFor < time.Second || r.ValidFor > MaxAgentValidity {
		return bad("it asks for %v; from 1 s to %v", r.ValidFor, MaxAgentValidity)
	}
	return nil
}

func (r *AgentRequest) encodeTBS(w *codec.Writer) {
	w.U8(1)
	w.Raw(r.Workspace[:])
	w.Raw(pad32(r.Agent.Bytes()))
	w.String(r.Name)
	w.Vector(func(w *codec.Writer) {
		for _, s := range r.Scope {
			w.String(s)
		}
	})
	w.U64(uint64(r.ValidFor / time.Second))
	w.Opaque(r.Possession)
}

func (r *AgentRequest) tbs() []byte {
	var w codec.Writer
	r.encodeTBS(&w)
	return w.Bytes()
}

// String returns the text form.
func (r *AgentRequest) String() string {
	var w codec.Writer
	r.encodeTBS(&w)
	w.Opaque(r.Signature)
	return AgentRequestPrefix + base64.RawURLEncoding.EncodeToString(w.Bytes())
}

// ParseAgentRequest decodes and verifies a request's text form (spaces and
// line breaks around or inside it are ignored, as a pasted request may
// carry them): its shape, the agent's signature and its proof of
// possession for the workspace it names.
func ParseAgentRequest(s string) (*AgentRequest, error) {
	s = strings.Join(strings.Fields(s), "")
	if len(s) > maxAgentRequestLength {
		return nil, fmt.Errorf("%w: %d characters", ErrAgentRequest, len(s))
	}
	b64, ok := strings.CutPrefix(s, AgentRequestPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: it does not start with %s", ErrAgentRequest, AgentRequestPrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAgentRequest, err)
	}
	rd := codec.NewReader(raw)
	if v := rd.U8(); v != 1 && rd.Err() == nil {
		return nil, fmt.Errorf("%w: version %d", ErrAgentRequest, v)
	}
	r := &AgentRequest{Workspace: identity.WorkspaceID(rd.Array32())}
	pub := rd.Raw(32)
	r.Name = rd.StringMax(MaxNameLen)
	rd.VectorMax(MaxAgentScopeNames, func(rd *codec.Reader) { r.Scope = append(r.Scope, rd.StringMax(MaxNameLen)) })
	secs := rd.U64()
	r.Possession = rd.OpaqueMax(64)
	r.Signature = rd.OpaqueMax(64)
	if err := rd.Done(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAgentRequest, err)
	}
	if r.Agent, err = identity.PublicFromBytes[identity.Agent](pub); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAgentRequest, err)
	}
	if secs > uint64(MaxAgentValidity/time.Second) {
		return nil, fmt.Errorf("%w: it asks for %d s; at most %v", ErrAgentRequest, secs, MaxAgentValidity)
	}
	r.ValidFor = time.Duration(secs) * time.Second
	if err := r.checkShape(); err != nil {
		return nil, err
	}
	if err := primeOrder(identity.KindAgent, r.Agent.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAgentRequest, err)
	}
	if err := r.Agent.Verify(LabelAgentRequest, r.tbs(), r.Signature); err != nil {
		return nil, fmt.Errorf("%w: the agent's signature: %v", ErrAgentRequest, err)
	}
	if err := r.Agent.Verify(identity.LabelPossession, PossessionContent(r.Workspace, [32]byte{}, identity.KindAgent, r.Agent.Bytes()), r.Possession); err != nil {
		return nil, fmt.Errorf("%w: the proof of possession: %v", ErrAgentRequest, err)
	}
	return r, nil
}

// AgentID returns the requesting agent's id.
func (r *AgentRequest) AgentID() identity.AgentID { return identity.AgentIDOf(r.Agent) }
