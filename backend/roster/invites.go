package roster

import "time"

// InviteByGrant returns the invite whose grant is grant (the relay binds
// device keys to a grant up to the invite's max_uses). Should two records
// share a grant, the one allowing fewer uses is returned.
func (s *State) InviteByGrant(grant [32]byte) (InviteInfo, bool) {
	var best *InviteInfo
	for _, i := range s.invites {
		if i.Invite.Grant == grant && (best == nil || i.Invite.MaxUses < best.Invite.MaxUses) {
			best = i
		}
	}
	if best == nil {
		return InviteInfo{}, false
	}
	return s.Invite(best.Invite.ID)
}

// InviteLive reports whether an invite can still be redeemed at t: not
// revoked, unexpired, uses left and its creator device live.
func (s *State) InviteLive(i InviteInfo, t time.Time) bool {
	return !i.Revoked && t.Before(i.Invite.ExpiresAt) && i.Uses < int(i.Invite.MaxUses) && s.DeviceLive(i.CreatedBy)
}
