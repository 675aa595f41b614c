package roster

import (
	"time"

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
