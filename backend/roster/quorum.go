package roster

import (
	"slices"

	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// Recovery quorum (spec/lifecycle.md "Ongoing health": "at least two admin
// devices, or a registered recovery quorum"; gaps.md: a recovered device
// stays on probation "until a pre-existing admin approves it (or a
// registered recovery quorum does)"). An admin registers a set of users and
// a threshold k; a recovered device's probation ends when k distinct
// quorum users have vouched for it.
const (
	OpSetRecoveryQuorum OpType = 27
	OpVouchDevice       OpType = 28
)

// MaxQuorumUsers bounds a recovery quorum's size.
const MaxQuorumUsers = 16

// SetRecoveryQuorum registers (or replaces) the workspace's recovery
// quorum: Threshold of Users must vouch for a recovered device.
type SetRecoveryQuorum struct {
	Threshold uint8
	Users     []identity.UserID
}

// Type implements Body.
func (*SetRecoveryQuorum) Type() OpType { return OpSetRecoveryQuorum }

func (b *SetRecoveryQuorum) encode(w *codec.Writer) {
	w.U8(b.Threshold)
	w.Vector(func(w *codec.Writer) {
		for _, u := range b.Users {
			w.Raw(u[:])
		}
	})
}

func decodeSetRecoveryQuorum(r *codec.Reader) Body {
	b := &SetRecoveryQuorum{Threshold: r.U8()}
	r.VectorMax(MaxQuorumUsers, func(r *codec.Reader) { b.Users = append(b.Users, identity.UserID(r.Array32())) })
	return b
}

// VouchDevice is one quorum user's vouch for a recovered device.
type VouchDevice struct {
	Device identity.DeviceID
}

// Type implements Body.
func (*VouchDevice) Type() OpType { return OpVouchDevice }

func (b *VouchDevice) encode(w *codec.Writer) { w.Raw(b.Device[:]) }

// QuorumInfo is the registered recovery quorum.
type QuorumInfo struct {
	Threshold  int
	Users      []identity.UserID
	Registered Ref
}

// RecoveryQuorum returns the registered recovery quorum, if any.
func (s *State) RecoveryQuorum() (QuorumInfo, bool) {
	if s.quorum == nil {
		return QuorumInfo{}, false
	}
	q := *s.quorum
	q.Users = slices.Clone(q.Users)
	return q, true
}

// QuorumLive reports whether a recovery quorum is registered, every user
// in it is still a member, and it could vouch for a recovered device of
// every live admin: for each, at least Threshold quorum users other than
// that admin hold a live device not on probation (a quorum of the only
// admin alone could never vouch for her).
func (s *State) QuorumLive() bool {
	if s.quorum == nil {
		return false
	}
	for _, u := range s.quorum.Users {
		if s.users[u] == nil || s.users[u].RevokedAt != nil {
			return false
		}
	}
	if !s.QuorumCanReach(identity.UserID{}) {
		return false
	}
	for _, u := range s.users {
		if s.adminLive(u, nil) && !s.QuorumCanReach(u.ID) {
			return false
		}
	}
	return true
}

// QuorumCanReach reports whether at least Threshold quorum users other
// than except are unrevoked and hold a live non-probation device.
func (s *State) QuorumCanReach(except identity.UserID) bool {
	if s.quorum == nil {
		return false
	}
	n := 0
	for _, u := range s.quorum.Users {
		if u != except && s.userActive(u) {
			n++
		}
	}
	return n >= s.quorum.Threshold
}

// userActive: the user is unrevoked and holds a live device not on probation.
func (s *State) userActive(id identity.UserID) bool {
	u := s.users[id]
	if u == nil || u.RevokedAt != nil {
		return false
	}
	for _, d := range u.Devices {
		if dv := s.devices[d]; dv.RevokedAt == nil && !dv.Probation {
			return true
		}
	}
	return false
}

func (s *State) checkSetRecoveryQuorum(op *Operation, a actor, b *SetRecoveryQuorum) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin registers a recovery quorum")
	}
	if len(b.Users) == 0 || len(b.Users) > MaxQuorumUsers {
		return nil, reject(ErrBadQuorum, "%d users", len(b.Users))
	}
	if b.Threshold < 1 || int(b.Threshold) > len(b.Users) {
		return nil, reject(ErrBadQuorum, "threshold %d of %d users", b.Threshold, len(b.Users))
	}
	seen := map[identity.UserID]bool{}
	for _, u := range b.Users {
		if seen[u] {
			return nil, reject(ErrBadQuorum, "user %s named twice", u.ShortString())
		}
		seen[u] = true
		info := s.users[u]
		if info == nil {
			return nil, reject(ErrUnknownPrincipal, "user %s", u.ShortString())
		}
		if info.RevokedAt != nil {
			return nil, reject(ErrAlreadyRevoked, "user %s", u.ShortString())
		}
	}
	q := &QuorumInfo{Threshold: int(b.Threshold), Users: slices.Clone(b.Users), Registered: s.ref(op)}
	return func() { s.quorum = q }, nil
}

func (s *State) checkVouchDevice(op *Operation, a actor, b *VouchDevice) (func(), error) {
	if s.quorum == nil {
		return nil, reject(ErrNotInQuorum, "no recovery quorum is registered")
	}
	if !slices.Contains(s.quorum.Users, a.user()) {
		return nil, reject(ErrNotInQuorum, "user %s is not in the quorum", a.user().ShortString())
	}
	d, err := s.onProbation(b.Device)
	if err != nil {
		return nil, err
	}
	if d.User == a.user() {
		return nil, reject(ErrNotInQuorum, "the recovered user's own devices do not vouch for it")
	}
	if a.device.Admitted.Index > d.Admitted.Index {
		return nil, reject(ErrNotAuthorized, "only a device admitted before the recovered one vouches for it")
	}
	if slices.Contains(d.Vouches, a.user()) {
		return nil, reject(ErrDuplicate, "user %s already vouched for device %s", a.user().ShortString(), d.ID.ShortString())
	}
	voucher := a.user()
	return func() {
		d.Vouches = append(d.Vouches, voucher)
		if s.vouchesCounted(d) >= s.quorum.Threshold {
			d.Probation = false
		}
	}, nil
}

// vouchesCounted counts d's vouches by users in the current quorum that are
// still members: a vouch by a user removed since, or dropped from the quorum
// by a later registration, does not count.
func (s *State) vouchesCounted(d *DeviceInfo) int {
	n := 0
	for _, u := range d.Vouches {
		if slices.Contains(s.quorum.Users, u) && s.users[u] != nil && s.users[u].RevokedAt == nil {
			n++
		}
	}
	return n
}

// VouchesCounted returns how many vouches toward the registered quorum's
// threshold a device on probation holds.
func (s *State) VouchesCounted(id identity.DeviceID) int {
	d := s.devices[id]
	if d == nil || s.quorum == nil {
		return 0
	}
	return s.vouchesCounted(d)
}
