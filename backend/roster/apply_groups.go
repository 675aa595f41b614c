package roster

import (
	"slices"

	"weald/backend/identity"
	"weald/backend/wire"
)

// Limits (spec/channels.md "Limits").
const (
	MaxGroups          = 512
	MaxPendingPerGroup = 64
	MaxInviteUses      = 1000
)

func (s *State) checkCreateGroup(op *Operation, a actor, b *CreateGroup) (func(), error) {
	p := b.Policy
	if existing, ok := s.groups[p.Group]; ok {
		if existing.Policy.Admission != p.Admission || existing.Policy.History != p.History || existing.Policy.Kind != p.Kind {
			return nil, reject(ErrPolicyImmutable, "group %s is %s/%s", p.Group.ShortString(),
				existing.Policy.Admission, existing.Policy.History)
		}
		return nil, reject(ErrGroupExists, "group %s", p.Group.ShortString())
	}
	if err := p.CheckLegal(); err != nil {
		return nil, err
	}
	if p.CreatedBy != a.device.ID || !p.CreatedAt.Equal(op.CreatedAt) {
		return nil, reject(ErrBadOperation, "created_by and created_at must be the operation's actor and time")
	}
	if !validName(b.Name) {
		return nil, reject(ErrBadName, "%q", b.Name)
	}
	if s.liveGroups() >= MaxGroups {
		return nil, reject(ErrLimitGroups, "")
	}
	if (p.Kind == KindDM) != (b.DMPeer != nil) {
		return nil, reject(ErrBadOperation, "a DM, and only a DM, names its peer")
	}
	ws := s.workspace
	root := RootGroupID(ws)
	isDefaultChan := p.Group == GeneralGroupID(ws) || p.Group == ActivityGroupID(ws)
	var dmUsers [2]identity.UserID
	switch p.Kind {
	case KindWorkspace:
		if p.Group != root {
			return nil, reject(ErrBadGroupID, "the workspace root's id is H(\"weald/ws\" ‖ workspace_id)")
		}
		if !p.Default {
			return nil, reject(ErrIllegalPolicy, "the workspace root is a default group")
		}
		if !s.IsAdmin(a.device.ID) {
			return nil, reject(ErrNotAuthorized, "only an admin creates the workspace root")
		}
	case KindChannel:
		if *p.Parent != root {
			return nil, reject(ErrIllegalPolicy, "a channel's parent is the workspace root")
		}
		if rg, ok := s.groups[root]; !ok || rg.Deleted {
			return nil, reject(ErrUnknownGroup, "the workspace root must exist before its channels")
		}
		if p.Group == root {
			return nil, reject(ErrBadGroupID, "a channel cannot take the root's id")
		}
		if isDefaultChan != p.Default {
			return nil, reject(ErrBadGroupID, "#general and #activity, and only they, are default channels")
		}
		if p.Default {
			if p.Admission != AdmissionParent {
				return nil, reject(ErrIllegalPolicy, "default channels are parent/open")
			}
			if !s.IsAdmin(a.device.ID) {
				return nil, reject(ErrNotAuthorized, "only an admin creates default channels")
			}
		}
	case KindDM:
		if p.Default {
			return nil, reject(ErrIllegalPolicy, "a DM is never a default group")
		}
		peer, ok := s.users[*b.DMPeer]
		if !ok || peer.RevokedAt != nil {
			return nil, reject(ErrUnknownPrincipal, "DM peer %s", b.DMPeer.ShortString())
		}
		if peer.ID == a.user() {
			return nil, reject(ErrBadOperation, "a DM needs two different users")
		}
		if p.Group != DMGroupID(s.workspace, a.user(), peer.ID) {
			return nil, reject(ErrBadGroupID, "a DM's id is H(\"weald/dm\" ‖ workspace_id ‖ min(u1,u2) ‖ max(u1,u2))")
		}
		dmUsers = sortedUsers(a.user(), peer.ID)
	}
	ref := s.ref(op)
	pos := uint32(len(s.groupOrder))
	return func() {
		pc := p
		if p.Parent != nil {
			par := *p.Parent
			pc.Parent = &par
		}
		s.groups[p.Group] = &GroupInfo{Policy: pc, Name: b.Name, Position: pos, Created: ref, DMUsers: dmUsers}
		s.groupOrder = append(s.groupOrder, p.Group)
	}, nil
}

func editGroupID(body Body) identity.GroupID {
	switch b := body.(type) {
	case *RenameGroup:
		return b.Group
	case *ReorderGroup:
		return b.Group
	case *ArchiveGroup:
		return b.Group
	case *DeleteGroup:
		return b.Group
	}
	return identity.GroupID{}
}

// checkGroupEdit covers rename, reorder, archive and delete. Admins and the
// group's creator may edit a channel; only admins edit the root; DMs have
// no roster-level edits. Default groups may be renamed and reordered but
// not archived or deleted while their parent exists (spec/channels.md
// "Default channels").
func (s *State) checkGroupEdit(op *Operation, a actor) (func(), error) {
	id := editGroupID(op.Body)
	g, ok := s.groups[id]
	if !ok {
		return nil, reject(ErrUnknownGroup, "group %s", id.ShortString())
	}
	if g.Deleted {
		return nil, reject(ErrGroupDeleted, "group %s", id.ShortString())
	}
	if g.Policy.Kind == KindDM {
		return nil, reject(ErrBadOperation, "DMs are not renamed, reordered, archived or deleted in the roster")
	}
	admin := s.IsAdmin(a.device.ID)
	if !admin && (g.Policy.Kind == KindWorkspace || g.Policy.CreatedBy != a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin or the channel's creator may change it")
	}
	protected := false
	if g.Policy.Default {
		if g.Policy.Parent == nil {
			protected = true // the root is the workspace itself
		} else if par, ok := s.groups[*g.Policy.Parent]; ok && !par.Deleted {
			protected = true
		}
	}
	switch b := op.Body.(type) {
	case *RenameGroup:
		if !validName(b.Name) {
			return nil, reject(ErrBadName, "%q", b.Name)
		}
		return func() { g.Name = b.Name }, nil
	case *ReorderGroup:
		return func() { g.Position = b.Position }, nil
	case *ArchiveGroup:
		if protected {
			return nil, reject(ErrDefaultGroup, "%s", g.Name)
		}
		if g.Archived == b.Archived {
			return nil, reject(ErrBadOperation, "the group's archived state is already %v", b.Archived)
		}
		return func() { g.Archived = b.Archived }, nil
	case *DeleteGroup:
		if protected {
			return nil, reject(ErrDefaultGroup, "%s", g.Name)
		}
		return func() { g.Deleted = true; g.Pending = nil }, nil
	}
	return nil, reject(ErrBadOperation, "")
}

func (s *State) checkInvite(op *Operation, a actor, b *Invite) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin may create invites")
	}
	if _, ok := s.invites[b.ID]; ok {
		return nil, reject(ErrDuplicate, "invite id")
	}
	root := RootGroupID(s.workspace)
	if !slices.Contains(b.Scopes, root) {
		return nil, reject(ErrInviteScope, "the workspace root is always in scope")
	}
	seen := map[identity.GroupID]bool{}
	for _, g := range b.Scopes {
		if seen[g] {
			return nil, reject(ErrInviteScope, "%s is named twice", g.ShortString())
		}
		seen[g] = true
		gi, ok := s.groups[g]
		if !ok || gi.Deleted {
			return nil, reject(ErrUnknownGroup, "scope %s", g.ShortString())
		}
		if gi.Policy.History == HistoryClosed {
			return nil, reject(ErrInviteClosedScope, "%s", gi.Name)
		}
	}
	switch {
	case b.Role != RoleAdmin && b.Role != RoleMember:
		return nil, reject(ErrBadOperation, "unknown role %d", b.Role)
	case !b.ExpiresAt.After(op.CreatedAt):
		return nil, reject(ErrInviteExpired, "the expiry is not after the invite's creation")
	case len(b.UpdatePub) != 32:
		return nil, reject(ErrBadOperation, "update_pub must be a 32-byte HPKE public key")
	case b.Grant == [32]byte{} || b.ProofKey.IsZero():
		return nil, reject(ErrBadOperation, "an invite needs a grant hash and a proof key")
	case b.MaxUses == 0 || b.MaxUses > MaxInviteUses:
		return nil, reject(ErrBadOperation, "max uses must be 1 to %d", MaxInviteUses)
	}
	ref := s.ref(op)
	return func() {
		c := *b
		c.Scopes = slices.Clone(b.Scopes)
		c.UpdatePub = slices.Clone(b.UpdatePub)
		s.invites[b.ID] = &InviteInfo{Invite: c, CreatedBy: a.device.ID, Created: ref, CreatedAt: op.CreatedAt}
	}, nil
}

func (s *State) checkRevokeInvite(op *Operation, a actor, b *RevokeInvite) (func(), error) {
	inv, ok := s.invites[b.Invite]
	if !ok {
		return nil, reject(ErrUnknownInvite, "")
	}
	if inv.Revoked {
		return nil, reject(ErrInviteRevoked, "it is already revoked")
	}
	if !s.IsAdmin(a.device.ID) && inv.CreatedBy != a.device.ID {
		return nil, reject(ErrNotAuthorized, "only an admin or the invite's creator may revoke it")
	}
	return func() { inv.Revoked = true }, nil
}

func (s *State) explicitGroup(id identity.GroupID) (*GroupInfo, error) {
	g, ok := s.groups[id]
	if !ok {
		return nil, reject(ErrUnknownGroup, "group %s", id.ShortString())
	}
	if g.Deleted {
		return nil, reject(ErrGroupDeleted, "group %s", id.ShortString())
	}
	if g.Policy.Admission != AdmissionExplicit {
		return nil, reject(ErrBadOperation, "pending adds exist only in explicit groups")
	}
	return g, nil
}

func (s *State) checkPendingAdd(op *Operation, a actor, b *PendingAdd) (func(), error) {
	g, err := s.explicitGroup(b.Group)
	if err != nil {
		return nil, err
	}
	if len(b.Devices) == 0 {
		return nil, reject(ErrBadOperation, "no devices")
	}
	if g.Policy.Kind == KindDM && !slices.Contains(g.DMUsers[:], a.user()) {
		return nil, reject(ErrNotAuthorized, "only the DM's two users add to it")
	}
	if len(g.Pending)+len(b.Devices) > MaxPendingPerGroup {
		return nil, reject(ErrLimitPending, "")
	}
	seen := map[identity.DeviceID]bool{}
	for _, d := range b.Devices {
		if seen[d] {
			return nil, reject(ErrBadOperation, "%s is named twice", d.ShortString())
		}
		seen[d] = true
		di, ok := s.devices[d]
		if !ok {
			return nil, reject(ErrUnknownPrincipal, "device %s", d.ShortString())
		}
		if !s.DeviceLive(d) {
			return nil, reject(ErrAlreadyRevoked, "device %s", d.ShortString())
		}
		if g.Policy.Kind == KindDM && !slices.Contains(g.DMUsers[:], di.User) {
			return nil, reject(ErrNotAuthorized, "a DM holds only its two users' devices")
		}
		if slices.ContainsFunc(g.Pending, func(p PendingInfo) bool { return p.Device == d }) {
			return nil, reject(ErrDuplicate, "device %s is already pending", d.ShortString())
		}
	}
	return func() {
		for _, d := range b.Devices {
			g.Pending = append(g.Pending, PendingInfo{Device: d, AddedBy: a.device.ID, Since: op.CreatedAt})
		}
	}, nil
}

func (s *State) checkPendingResolve(op *Operation, a actor, b *PendingResolve) (func(), error) {
	g, err := s.explicitGroup(b.Group)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(g.Pending, func(p PendingInfo) bool { return p.Device == b.Device })
	if i < 0 {
		return nil, reject(ErrNotPending, "device %s in group %s", b.Device.ShortString(), b.Group.ShortString())
	}
	return func() { g.Pending = slices.Delete(g.Pending, i, i+1) }, nil
}

func (s *State) retentionThreshold() int {
	if s.LiveAdmins() <= 1 {
		return 1
	}
	return 2
}

func (s *State) checkRetentionPolicy(op *Operation, a actor, b *RetentionPolicy) (func(), error) {
	p := &retentionProposal{policy: *b, proposer: a.user(), proposedAt: op.CreatedAt}
	return s.proposeRetention(op, a, p, b.Group, b.Relay)
}

// proposeRetention checks and applies a retention proposal (a policy or a
// destruction) for group gid with its proposer's relay approval.
func (s *State) proposeRetention(op *Operation, a actor, p *retentionProposal, gid identity.GroupID, relay *wire.Approval) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin may propose a retention change")
	}
	g, ok := s.groups[gid]
	if !ok || g.Deleted {
		return nil, reject(ErrUnknownGroup, "group %s", gid.ShortString())
	}
	if err := p.checkRelay(a, relay); err != nil {
		return nil, err
	}
	head := op.Head()
	threshold := s.retentionThreshold()
	return func() {
		p.approve(a, relay)
		s.retention[head] = p
		if len(p.approvals) >= threshold {
			s.complete(g, head, p, op)
		}
	}, nil
}

// complete marks a proposal approved by the threshold: a policy becomes the
// group's, a destruction is ready for its drop (ApprovedDestructions).
func (s *State) complete(g *GroupInfo, head Head, p *retentionProposal, op *Operation) {
	if p.destroy != nil || p.resolve != nil {
		p.active = true
		return
	}
	s.activate(g, head, p, op)
}

// checkRelay refuses a relay approval that is not the acting device's
// signature over the proposal's relay-visible policy or destruction. A
// destruction's approvals must carry one (it is what the relay checks).
func (p *retentionProposal) checkRelay(a actor, x *wire.Approval) error {
	if x == nil {
		if p.destroy != nil {
			return reject(ErrBadRetention, "an approval of a destruction must carry the device's signature of it")
		}
		if p.resolve != nil {
			return reject(ErrBadRetention, "an approval of a resolution must carry the device's signature of it")
		}
		return nil
	}
	if identity.DeviceID(wire.KeyID(x.DeviceKey)) != a.device.ID {
		return reject(ErrBadRetention, "the relay approval is not the signing device's")
	}
	label, tbs := p.relayTBS()
	if wire.Verify(x.DeviceKey, label, tbs, x.Signature) != nil {
		return reject(ErrBadRetention, "the relay approval does not verify over the proposal")
	}
	return nil
}

// relayTBS is what an admin's relay approval of the proposal signs.
func (p *retentionProposal) relayTBS() (string, []byte) {
	if p.destroy != nil {
		d := p.destroy.Destruction()
		return wire.LabelRetentionDestruction, d.TBS()
	}
	if p.resolve != nil {
		x := p.resolve.Resolution()
		return wire.LabelRetentionResolution, x.TBS()
	}
	rp := RelayPolicy(p.policy.Group, p.proposedAt, p.policy.TextWindow, p.policy.MediaWindow)
	return wire.LabelRetentionPolicy, rp.TBS()
}

// group is the group the proposal is about.
func (p *retentionProposal) group() identity.GroupID {
	switch {
	case p.destroy != nil:
		return p.destroy.Group
	case p.resolve != nil:
		return p.resolve.Group
	}
	return p.policy.Group
}

func (p *retentionProposal) approve(a actor, x *wire.Approval) {
	p.approvals = append(p.approvals, a.user())
	if x != nil {
		p.relay = append(p.relay, *x)
	}
}

func (s *State) activate(g *GroupInfo, head Head, p *retentionProposal, op *Operation) {
	p.active = true
	g.Retention = &ActiveRetention{Proposal: head, TextWindow: p.policy.TextWindow,
		MediaWindow: p.policy.MediaWindow, ActiveSince: op.CreatedAt, ProposedAt: p.proposedAt,
		Approvals: slices.Clone(p.relay)}
}

func (s *State) checkRetentionApprove(op *Operation, a actor, b *RetentionApprove) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin may approve a retention policy")
	}
	p, ok := s.retention[b.Proposal]
	if !ok {
		return nil, reject(ErrBadRetention, "no proposal %s", b.Proposal.ShortString())
	}
	if p.active {
		return nil, reject(ErrBadRetention, "the proposal is already active")
	}
	if slices.Contains(p.approvals, a.user()) {
		return nil, reject(ErrDuplicate, "this admin already approved the proposal")
	}
	gid := p.group()
	g, ok := s.groups[gid]
	if !ok || g.Deleted {
		return nil, reject(ErrUnknownGroup, "group %s", gid.ShortString())
	}
	if err := p.checkRelay(a, b.Relay); err != nil {
		return nil, err
	}
	threshold := s.retentionThreshold()
	return func() {
		p.approve(a, b.Relay)
		if len(p.approvals) >= threshold {
			s.complete(g, b.Proposal, p, op)
		}
	}, nil
}
