package roster

import (
	"bytes"
	"slices"
	"time"

	"weald/backend/identity"
	"weald/backend/wire"
)

// Ref points at the operation that created a roster entry: the "roster
// entry reference" a joiner embeds in its external commit.
type Ref struct {
	Index int
	Head  Head
}

// UserInfo is a user's entry.
type UserInfo struct {
	ID        identity.UserID
	Name      string // display name (set-name); "" until set
	Role      Role
	Admitted  Ref
	Joined    time.Time // created_at of the operation that admitted it (genesis or redeem-invite)
	Devices   []identity.DeviceID
	Recovery  []identity.RecoveryID
	RevokedAt *time.Time
}

// DeviceInfo is a device's entry.
type DeviceInfo struct {
	ID        identity.DeviceID
	User      identity.UserID
	Public    identity.DevicePublic
	Admitted  Ref
	Invite    *InviteID // the invite it redeemed, if any
	Probation bool      // admitted by recovery and not yet approved
	// RecoveredBy is the recovery principal whose recover-device admitted
	// the device, RecoveredAt that operation's created_at (zero otherwise).
	RecoveredBy identity.RecoveryID
	RecoveredAt time.Time
	// Vouches lists the users that vouched for the device while on
	// probation (vouch-device), in order.
	Vouches   []identity.UserID
	RevokedAt *time.Time
}

// AgentInfo is an agent's entry.
type AgentInfo struct {
	ID        identity.AgentID
	Name      string                          // as approved (admit-agent)
	Cert      *identity.DelegationCertificate // the current one
	Admitted  Ref
	Renewed   *Ref // the latest renewal or scope change, if any
	RevokedAt *time.Time
}

// RecoveryInfo is a recovery principal's entry.
type RecoveryInfo struct {
	ID        identity.RecoveryID
	User      identity.UserID
	Public    identity.RecoveryPublic
	HPKE      []byte
	Admitted  Ref
	RevokedAt *time.Time
}

// GroupInfo is a group's entry.
type GroupInfo struct {
	Policy    GroupPolicy
	Name      string
	Position  uint32
	Archived  bool
	Deleted   bool
	Created   Ref
	DMUsers   [2]identity.UserID // for DMs, ascending
	Pending   []PendingInfo      // explicit groups only, in order of recording
	Retention *ActiveRetention
}

// PendingInfo is one pending add.
type PendingInfo struct {
	Device  identity.DeviceID
	AddedBy identity.DeviceID
	Since   time.Time
}

// ActiveRetention is a group's active retention policy.
type ActiveRetention struct {
	Proposal    Head
	TextWindow  time.Duration
	MediaWindow time.Duration
	ActiveSince time.Time
	// ProposedAt is the proposal's time: the relay-visible policy's
	// version ([RelayPolicy]).
	ProposedAt time.Time
	// Approvals are the admins' approvals of the relay-visible policy
	// carried by the proposal and its approvals, one per admin user.
	Approvals []wire.Approval
}

// InviteInfo is an invite's entry.
type InviteInfo struct {
	Invite    Invite
	CreatedBy identity.DeviceID
	Created   Ref
	CreatedAt time.Time
	Uses      int
	Revoked   bool
	// Pairing is set for a pairing (pair-device): the user whose new
	// device redeems it. Its Invite has the root as only scope, one use
	// and the user's role.
	Pairing *identity.UserID
}

type retentionProposal struct {
	policy     RetentionPolicy
	destroy    *RetentionDestroy // set for a destruction proposal (policy unset)
	resolve    *RetentionResolve // set for a resolution proposal (policy unset)
	proposer   identity.UserID
	proposedAt time.Time
	approvals  []identity.UserID
	relay      []wire.Approval // approvals of the relay-visible policy, by the users above
	active     bool
}

// State is the roster folded from a valid chain. The zero value is not
// usable; start from New. Accessors return copies. A State is not safe for
// concurrent use.
type State struct {
	opts Options

	workspace  identity.WorkspaceID
	genesisKey identity.GenesisPublic
	head       Head
	length     int
	lastTime   time.Time

	users      map[identity.UserID]*UserInfo
	devices    map[identity.DeviceID]*DeviceInfo
	agents     map[identity.AgentID]*AgentInfo
	recoveries map[identity.RecoveryID]*RecoveryInfo
	groups     map[identity.GroupID]*GroupInfo
	groupOrder []identity.GroupID // creation order
	invites    map[InviteID]*InviteInfo
	retention  map[Head]*retentionProposal
	receipts   map[[32]byte]*ReceiptInfo // removal receipts by operation id
	quorum     *QuorumInfo               // the registered recovery quorum, if any
}

// Options configure validation.
type Options struct {
	// Genesis, if set, must be the genesis key of operation 0 (the key
	// recorded at provisioning, e.g. from the invite link or relay).
	Genesis *identity.GenesisPublic
	// GenesisHead, if set, must be the head of operation 0: a joiner pins
	// the roster it was invited to (e.g. from the invite link), so a relay
	// cannot serve it another workspace's chain.
	GenesisHead *Head
	// Clock and MaxSkew, if Clock is set, reject operations dated more than
	// MaxSkew after Clock's now (default skew 5 minutes).
	Clock   identity.Clock
	MaxSkew time.Duration
}

// New returns the empty roster (head = 32 zero bytes).
func New(opts Options) *State {
	if opts.MaxSkew == 0 {
		opts.MaxSkew = 5 * time.Minute
	}
	return &State{
		opts:       opts,
		users:      map[identity.UserID]*UserInfo{},
		devices:    map[identity.DeviceID]*DeviceInfo{},
		agents:     map[identity.AgentID]*AgentInfo{},
		recoveries: map[identity.RecoveryID]*RecoveryInfo{},
		groups:     map[identity.GroupID]*GroupInfo{},
		invites:    map[InviteID]*InviteInfo{},
		retention:  map[Head]*retentionProposal{},
	}
}

// Head returns the current head (zero for the empty roster).
func (s *State) Head() Head { return s.head }

// Len returns the number of operations applied.
func (s *State) Len() int { return s.length }

// Workspace returns the workspace id from genesis.
func (s *State) Workspace() identity.WorkspaceID { return s.workspace }

// RootGroup returns the workspace root's group id.
func (s *State) RootGroup() identity.GroupID { return RootGroupID(s.workspace) }

// User returns a user's entry.
func (s *State) User(id identity.UserID) (UserInfo, bool) {
	u, ok := s.users[id]
	if !ok {
		return UserInfo{}, false
	}
	c := *u
	c.Devices = slices.Clone(u.Devices)
	c.Recovery = slices.Clone(u.Recovery)
	return c, true
}

// Users returns all users ordered by admission.
func (s *State) Users() []UserInfo {
	out := make([]UserInfo, 0, len(s.users))
	for id := range s.users {
		u, _ := s.User(id)
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b UserInfo) int { return a.Admitted.Index - b.Admitted.Index })
	return out
}

// Device returns a device's entry.
func (s *State) Device(id identity.DeviceID) (DeviceInfo, bool) {
	d, ok := s.devices[id]
	if !ok {
		return DeviceInfo{}, false
	}
	return *d, true
}

// Agent returns an agent's entry.
func (s *State) Agent(id identity.AgentID) (AgentInfo, bool) {
	a, ok := s.agents[id]
	if !ok {
		return AgentInfo{}, false
	}
	return *a, true
}

// Recovery returns a recovery principal's entry.
func (s *State) Recovery(id identity.RecoveryID) (RecoveryInfo, bool) {
	r, ok := s.recoveries[id]
	if !ok {
		return RecoveryInfo{}, false
	}
	c := *r
	c.HPKE = slices.Clone(r.HPKE)
	return c, true
}

// Group returns a group's entry (deleted groups included, with Deleted set).
func (s *State) Group(id identity.GroupID) (GroupInfo, bool) {
	g, ok := s.groups[id]
	if !ok {
		return GroupInfo{}, false
	}
	c := *g
	c.Pending = slices.Clone(g.Pending)
	if g.Retention != nil {
		r := *g.Retention
		r.Approvals = slices.Clone(r.Approvals)
		c.Retention = &r
	}
	if g.Policy.Parent != nil {
		p := *g.Policy.Parent
		c.Policy.Parent = &p
	}
	return c, true
}

// Groups returns the groups that are not deleted, ordered by position and
// then by creation.
func (s *State) Groups() []GroupInfo {
	var out []GroupInfo
	for _, id := range s.groupOrder {
		if g := s.groups[id]; !g.Deleted {
			c, _ := s.Group(id)
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b GroupInfo) int {
		if a.Position != b.Position {
			if a.Position < b.Position {
				return -1
			}
			return 1
		}
		return a.Created.Index - b.Created.Index
	})
	return out
}

// Invite returns an invite's entry.
func (s *State) Invite(id InviteID) (InviteInfo, bool) {
	i, ok := s.invites[id]
	if !ok {
		return InviteInfo{}, false
	}
	c := *i
	c.Invite.Scopes = slices.Clone(i.Invite.Scopes)
	if i.Pairing != nil {
		u := *i.Pairing
		c.Pairing = &u
	}
	return c, true
}

// DeviceLive reports whether a device is in the roster and neither it nor
// its user is revoked.
func (s *State) DeviceLive(id identity.DeviceID) bool {
	d, ok := s.devices[id]
	if !ok || d.RevokedAt != nil {
		return false
	}
	u := s.users[d.User]
	return u != nil && u.RevokedAt == nil
}

// AgentLive reports whether an agent is admitted, unrevoked, its whole
// certificate chain is valid at t, its issuing device is live and every
// parent agent in the chain is admitted and unrevoked.
func (s *State) AgentLive(id identity.AgentID, t time.Time) bool {
	a, ok := s.agents[id]
	if !ok || a.RevokedAt != nil {
		return false
	}
	return s.certLive(a.Cert, t) == nil
}

func (s *State) certLive(c *identity.DelegationCertificate, t time.Time) error {
	if !s.DeviceLive(c.IssuingDevice) {
		return reject(ErrDelegation, "issuing device %s is not live", c.IssuingDevice.ShortString())
	}
	for p := c.Parent; p != nil; p = p.Parent {
		pa, ok := s.agents[p.AgentID()]
		if !ok || pa.RevokedAt != nil {
			return reject(ErrDelegation, "parent agent %s is not live", p.AgentID().ShortString())
		}
	}
	if err := c.VerifyAt(s.devicePublic, t); err != nil {
		return reject(ErrDelegation, "%v", err)
	}
	return nil
}

func (s *State) devicePublic(id identity.DeviceID) (identity.DevicePublic, bool) {
	d, ok := s.devices[id]
	if !ok {
		return identity.DevicePublic{}, false
	}
	return d.Public, true
}

// IsAdmin reports whether a device is live, not on probation, and its
// user is an admin: whether it holds admin authority.
func (s *State) IsAdmin(id identity.DeviceID) bool {
	if !s.DeviceLive(id) || s.devices[id].Probation {
		return false
	}
	return s.users[s.devices[id].User].Role == RoleAdmin
}

// LiveAdmins returns the number of admin users that are unrevoked and hold
// at least one live device that is not on probation.
func (s *State) LiveAdmins() int {
	n := 0
	for _, u := range s.users {
		if s.adminLive(u, nil) {
			n++
		}
	}
	return n
}

// adminLive reports whether u is a live admin, treating the principals in
// gone as revoked (to test a revocation before applying it).
func (s *State) adminLive(u *UserInfo, gone map[identity.Principal]bool) bool {
	if u.Role != RoleAdmin || u.RevokedAt != nil || gone[identity.UserPrincipal(u.ID)] {
		return false
	}
	for _, d := range u.Devices {
		if dv := s.devices[d]; dv.RevokedAt == nil && !dv.Probation && !gone[identity.DevicePrincipal(d)] {
			return true
		}
	}
	return false
}

// LiveGroups counts the groups not deleted (the 512 limit counts these).
func (s *State) LiveGroups() int { return s.liveGroups() }

func (s *State) liveGroups() int {
	n := 0
	for _, g := range s.groups {
		if !g.Deleted {
			n++
		}
	}
	return n
}

func sortedUsers(a, b identity.UserID) [2]identity.UserID {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	return [2]identity.UserID{a, b}
}
