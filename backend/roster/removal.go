package roster

import (
	"bytes"
	"slices"
	"time"

	"weald/backend/identity"
	"weald/backend/wire"
)

// RemovalTargets enumerates what removing user u revokes, for the one
// roster.revoke of spec/lifecycle.md "Removing a person" (step 1,
// "Enumerate"): the user, each of its devices, every agent whose
// certificate chain was issued by one of its devices (sub-delegations
// included, since they inherit the issuing device), and its recovery
// principals. Only principals not yet revoked are listed, ordered by kind
// and then id.
func (s *State) RemovalTargets(u identity.UserID) []identity.Principal {
	ui, ok := s.users[u]
	if !ok {
		return nil
	}
	var out []identity.Principal
	if ui.RevokedAt == nil {
		out = append(out, identity.UserPrincipal(u))
	}
	for _, d := range ui.Devices {
		if s.devices[d].RevokedAt == nil {
			out = append(out, identity.DevicePrincipal(d))
		}
	}
	for _, a := range s.agents {
		if a.RevokedAt != nil {
			continue
		}
		if d, ok := s.devices[a.Cert.IssuingDevice]; ok && d.User == u {
			out = append(out, identity.AgentPrincipal(a.ID))
		}
	}
	for _, r := range ui.Recovery {
		if s.recoveries[r].RevokedAt == nil {
			out = append(out, identity.RecoveryPrincipal(r))
		}
	}
	slices.SortFunc(out, func(a, b identity.Principal) int {
		if a.Kind != b.Kind {
			return int(a.Kind) - int(b.Kind)
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	return out
}

// InvitesCreatedBy returns the unrevoked invites created by any device of
// user u, which a removal also revokes (spec/lifecycle.md "Provisional
// grants die here too"), ordered by creation.
func (s *State) InvitesCreatedBy(u identity.UserID) []InviteID {
	var infos []*InviteInfo
	for _, inv := range s.invites {
		if d, ok := s.devices[inv.CreatedBy]; ok && d.User == u && !inv.Revoked {
			infos = append(infos, inv)
		}
	}
	slices.SortFunc(infos, func(a, b *InviteInfo) int { return a.Created.Index - b.Created.Index })
	out := make([]InviteID, len(infos))
	for i, inv := range infos {
		out[i] = inv.Invite.ID
	}
	return out
}

// RemovalInvites returns the unrevoked invites a removal of user u revokes
// (spec/lifecycle.md "Provisional grants die here too"): the ones its
// devices created and the ones its devices redeemed that still have uses
// left (the invite "behind them", whose grant is still a connection
// credential), ordered by creation.
func (s *State) RemovalInvites(u identity.UserID) []InviteID {
	want := map[InviteID]bool{}
	for _, id := range s.InvitesCreatedBy(u) {
		want[id] = true
	}
	if ui, ok := s.users[u]; ok {
		for _, d := range ui.Devices {
			if inv := s.devices[d].Invite; inv != nil && !s.invites[*inv].Revoked &&
				s.invites[*inv].Uses < int(s.invites[*inv].Invite.MaxUses) {
				want[*inv] = true
			}
		}
	}
	var out []InviteID
	for _, inv := range s.Invites() {
		if want[inv.Invite.ID] {
			out = append(out, inv.Invite.ID)
		}
	}
	return out
}

// GenesisKey returns the genesis public key named by operation 0.
func (s *State) GenesisKey() identity.GenesisPublic { return s.genesisKey }

// Agents returns all agents' entries ordered by admission.
func (s *State) Agents() []AgentInfo {
	out := make([]AgentInfo, 0, len(s.agents))
	for _, a := range s.agents {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b AgentInfo) int { return a.Admitted.Index - b.Admitted.Index })
	return out
}

// Invites returns all invites' entries ordered by creation.
func (s *State) Invites() []InviteInfo {
	out := make([]InviteInfo, 0, len(s.invites))
	for id := range s.invites {
		inv, _ := s.Invite(id)
		out = append(out, inv)
	}
	slices.SortFunc(out, func(a, b InviteInfo) int { return a.Created.Index - b.Created.Index })
	return out
}

// AccessKeys is what the relay's access set is built from (gaps.md "Relay
// protocol"): the live device, agent and recovery keys and the grants of
// usable invites, at time t.
type AccessKeys struct {
	Devices    []identity.DevicePublic
	Agents     []identity.AgentPublic
	Recoveries []identity.RecoveryPublic
	Grants     [][32]byte
}

// AccessKeys lists the keys and grants that may connect at time t, each
// in admission order.
func (s *State) AccessKeys(t time.Time) AccessKeys {
	var out AccessKeys
	devs := make([]*DeviceInfo, 0, len(s.devices))
	for _, d := range s.devices {
		if s.DeviceLive(d.ID) {
			devs = append(devs, d)
		}
	}
	slices.SortFunc(devs, func(a, b *DeviceInfo) int { return a.Admitted.Index - b.Admitted.Index })
	for _, d := range devs {
		out.Devices = append(out.Devices, d.Public)
	}
	for _, a := range s.Agents() {
		if s.AgentLive(a.ID, t) {
			out.Agents = append(out.Agents, a.Cert.Agent)
		}
	}
	recs := make([]*RecoveryInfo, 0, len(s.recoveries))
	for _, r := range s.recoveries {
		if r.RevokedAt == nil && s.users[r.User].RevokedAt == nil {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, func(a, b *RecoveryInfo) int { return a.Admitted.Index - b.Admitted.Index })
	for _, r := range recs {
		out.Recoveries = append(out.Recoveries, r.Public)
	}
	for _, inv := range s.Invites() {
		// A grant that is not an Ed25519 key of prime order (an invite
		// made before grants were keys held a hash) can never
		// authenticate, and the relay refuses a set that lists it.
		if !inv.Revoked && s.DeviceLive(inv.CreatedBy) && t.Before(inv.Invite.ExpiresAt) && inv.Uses < int(inv.Invite.MaxUses) &&
			wire.PrimeOrderKey(inv.Invite.Grant[:]) {
			out.Grants = append(out.Grants, inv.Invite.Grant)
		}
	}
	return out
}
