package roster

import (
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
)

// JoinPath is how a principal may enter a group (spec/channels.md "Group
// policy", the table of admission and entitled sets).
type JoinPath uint8

// Join paths.
const (
	// NotEntitled: the principal may not be in the group.
	NotEntitled JoinPath = iota
	// JoinRootExternal: a live device entering the workspace root by external
	// commit (against its invite bundle; the root has no parent to self-join from).
	JoinRootExternal
	// JoinSelf: a live device already in the parent root, entering a parent
	// channel by external commit against its standing GroupInfo.
	JoinSelf
	// JoinAgentAdd: an agent named by a live delegation certificate scoped to
	// the group, added by its issuing device; never by external commit.
	JoinAgentAdd
	// JoinMemberAdd: an explicit group's candidate, added by a current member
	// (the roster cannot see MLS membership; backend/groups checks the adder).
	JoinMemberAdd
)

func (j JoinPath) String() string {
	return [...]string{"not-entitled", "root-external", "self-join", "agent-add", "member-add"}[min(int(j), 4)]
}

// Entitlement reports how principal p may enter group g at time t.
// inGroup reports the principal's current MLS membership (only the parent
// root's is consulted). Revoked principals, deleted groups, users and
// recovery principals are NotEntitled.
func (s *State) Entitlement(g identity.GroupID, p identity.Principal, t time.Time, inGroup func(identity.GroupID) bool) JoinPath {
	gi, ok := s.groups[g]
	if !ok || gi.Deleted {
		return NotEntitled
	}
	switch p.Kind {
	case identity.KindAgent:
		a, ok := s.agents[identity.AgentID(p.ID)]
		if ok && a.Cert.InScope(g) && s.AgentLive(a.ID, t) && gi.Policy.Kind != KindDM {
			return JoinAgentAdd
		}
		return NotEntitled
	case identity.KindDevice:
		d := identity.DeviceID(p.ID)
		if !s.DeviceLive(d) {
			return NotEntitled
		}
		switch gi.Policy.Admission {
		case AdmissionEveryone:
			return JoinRootExternal
		case AdmissionParent:
			if gi.Policy.Parent != nil && inGroup(*gi.Policy.Parent) {
				return JoinSelf
			}
			return NotEntitled
		case AdmissionExplicit:
			if gi.Policy.Kind == KindDM {
				u := s.devices[d].User
				if u != gi.DMUsers[0] && u != gi.DMUsers[1] {
					return NotEntitled
				}
			}
			return JoinMemberAdd
		}
	}
	return NotEntitled
}

// SelfJoinGroups returns, in sidebar order, the groups device d is entitled
// to self-join and is not yet in: parent-admission groups whose parent it
// is in (spec/channels.md "The join", step 1). Agents never self-join, so
// they have no such set; a revoked device has none either. Archived groups
// are included (they stay readable).
func (s *State) SelfJoinGroups(d identity.DeviceID, inGroup func(identity.GroupID) bool) []identity.GroupID {
	if !s.DeviceLive(d) {
		return nil
	}
	var out []identity.GroupID
	for _, g := range s.Groups() {
		if g.Policy.Admission != AdmissionParent || inGroup(g.Policy.Group) {
			continue
		}
		if g.Policy.Parent != nil && inGroup(*g.Policy.Parent) {
			out = append(out, g.Policy.Group)
		}
	}
	return out
}

// AgentGroups returns the existing groups an agent's live certificate
// scopes at time t: the groups its issuing device adds it to in one batch.
func (s *State) AgentGroups(id identity.AgentID, t time.Time) []identity.GroupID {
	a, ok := s.agents[id]
	if !ok || !s.AgentLive(id, t) {
		return nil
	}
	var out []identity.GroupID
	for _, g := range a.Cert.Scope {
		if gi, ok := s.groups[g]; ok && !gi.Deleted && gi.Policy.Kind != KindDM {
			out = append(out, g)
		}
	}
	return out
}

// Errors of the join checks, for receivers validating commits
// (spec/channels.md "The join", validation paragraphs).
var (
	ErrNotEntitled   = errcode.New("roster/not_entitled", "the principal is not in the group's entitled set")
	ErrPolicyHash    = errcode.New("roster/policy_hash", "the commit names a group policy other than the roster's")
	ErrAgentExternal = errcode.New("roster/agent_external_commit", "an agent never joins a group by external commit")
	ErrAgentAdder    = errcode.New("roster/agent_adder", "an agent is added only by the device that issued its certificate")
)

// CheckExternalJoin validates the joiner of an external commit to group g:
// the joiner is a live device in the roster, inside the entitled set (the
// root: any live device; a parent channel: a device in the root, per
// inGroup), and policyHash is the roster's GroupPolicy hash for g. Agents'
// external commits are always refused; explicit groups are never joined
// by external commit. Errors are *Error with Index -1.
func (s *State) CheckExternalJoin(g identity.GroupID, joiner identity.Principal, policyHash [32]byte, t time.Time, inGroup func(identity.GroupID) bool) error {
	fail := func(err error, format string, args ...any) error {
		e := reject(err, format, args...).(*Error)
		e.Index = -1
		return e
	}
	gi, ok := s.groups[g]
	if !ok || gi.Deleted {
		return fail(ErrUnknownGroup, "group %s", g.ShortString())
	}
	if joiner.Kind == identity.KindAgent {
		return fail(ErrAgentExternal, "agent %s to %s", joiner.ShortString(), gi.Name)
	}
	if h := gi.Policy.Hash(); h != policyHash {
		return fail(ErrPolicyHash, "group %s", gi.Name)
	}
	switch s.Entitlement(g, joiner, t, inGroup) {
	case JoinRootExternal, JoinSelf:
		return nil
	}
	return fail(ErrNotEntitled, "%s in %s", joiner.ShortString(), gi.Name)
}

// CheckAgentAdd validates an agent leaf added to group g by device adder:
// the agent is live at t, its certificate names g, and adder is the
// certificate chain's issuing device and live (spec/channels.md "The join",
// the agent path). Errors are *Error with Index -1.
func (s *State) CheckAgentAdd(adder identity.DeviceID, agent identity.AgentID, g identity.GroupID, t time.Time) error {
	fail := func(err error, format string, args ...any) error {
		e := reject(err, format, args...).(*Error)
		e.Index = -1
		return e
	}
	a, ok := s.agents[agent]
	if !ok {
		return fail(ErrUnknownPrincipal, "agent %s", agent.ShortString())
	}
	if a.Cert.IssuingDevice != adder || !s.DeviceLive(adder) {
		return fail(ErrAgentAdder, "agent %s, adder %s", agent.ShortString(), adder.ShortString())
	}
	if s.Entitlement(g, identity.AgentPrincipal(agent), t, func(identity.GroupID) bool { return false }) != JoinAgentAdd {
		return fail(ErrNotEntitled, "agent %s in %s", agent.ShortString(), g.ShortString())
	}
	return nil
}
