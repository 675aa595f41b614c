package roster

import (
	"fmt"
	"io"
	"time"

	"weald/backend/identity"
)

// Builders for the operation bodies the bootstrap, invite and channel
// flows write. They fill in the derived fields so callers cannot get them
// wrong; the rules are still checked by State.Apply.

// NewGenesis builds the genesis body, signed by the provisioned genesis key.
func NewGenesis(ws identity.WorkspaceID, user identity.UserID, dev identity.DevicePublic, gen identity.GenesisPrivate) (*Genesis, error) {
	sig, err := gen.Sign(identity.LabelGenesis, GenesisContent(ws, user, dev))
	if err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	return &Genesis{Workspace: ws, User: user, Device: dev, GenesisKey: gen.Public(), GenesisSig: sig}, nil
}

// BootstrapGroups returns, in the spec's order (spec/channels.md "Ordering
// at bootstrap"), the group-policy bodies of the root, #general and
// #activity that the state does not hold yet. Creation is idempotent on the
// deterministic ids: an empty result means the roster part of bootstrap is
// complete. Sign fills in created_by and created_at.
func BootstrapGroups(s *State, workspaceName string) []*CreateGroup {
	ws := s.Workspace()
	root := RootGroupID(ws)
	var out []*CreateGroup
	if _, ok := s.groups[root]; !ok {
		out = append(out, &CreateGroup{Name: workspaceName, Policy: GroupPolicy{Group: root, Kind: KindWorkspace,
			Admission: AdmissionEveryone, History: HistoryOpen, Default: true}})
	}
	for _, name := range []string{GeneralName, ActivityName} {
		id := DefaultChannelID(ws, name)
		if _, ok := s.groups[id]; ok {
			continue
		}
		out = append(out, &CreateGroup{Name: name, Policy: GroupPolicy{Group: id, Kind: KindChannel, Parent: &root,
			Admission: AdmissionParent, History: HistoryOpen, Default: true}})
	}
	return out
}

// NewChannel builds a non-default channel with a random id; history
// follows admission (parent → open, explicit → closed), the only legal pairs.
func NewChannel(rand io.Reader, s *State, name string, admission Admission) (*CreateGroup, error) {
	id, err := identity.NewRandomID[identity.Group](rand)
	if err != nil {
		return nil, err
	}
	h := HistoryOpen
	if admission == AdmissionExplicit {
		h = HistoryClosed
	}
	root := s.RootGroup()
	return &CreateGroup{Name: name, Policy: GroupPolicy{Group: id, Kind: KindChannel, Parent: &root,
		Admission: admission, History: h}}, nil
}

// NewDM builds the DM between the creator's user and peer.
func NewDM(ws identity.WorkspaceID, me, peer identity.UserID, name string) *CreateGroup {
	return &CreateGroup{Name: name, DMPeer: &peer, Policy: GroupPolicy{Group: DMGroupID(ws, me, peer), Kind: KindDM,
		Admission: AdmissionExplicit, History: HistoryClosed}}
}

// NewInvite draws an invite id and secret and builds the invite record.
// The root is added to scopes if missing. The secret goes into the link.
func NewInvite(rand io.Reader, s *State, scopes []identity.GroupID, role Role, expires time.Time, updatePub []byte, maxUses uint16) (*Invite, identity.InviteSecret, error) {
	sec, err := identity.NewInviteSecret(rand)
	if err != nil {
		return nil, identity.InviteSecret{}, err
	}
	pk, err := sec.ProofKey()
	if err != nil {
		return nil, identity.InviteSecret{}, err
	}
	var id InviteID
	if _, err := io.ReadFull(rand, id[:]); err != nil {
		return nil, identity.InviteSecret{}, err
	}
	root := s.RootGroup()
	all := []identity.GroupID{root}
	for _, g := range scopes {
		if g != root {
			all = append(all, g)
		}
	}
	return &Invite{ID: id, Scopes: all, Role: role, ExpiresAt: expires, UpdatePub: append([]byte(nil), updatePub...),
		Grant: sec.Grant(), ProofKey: pk.Public(), MaxUses: maxUses}, sec, nil
}

// NewRedemption builds the redeem-invite body proving secret, for the
// operation that will extend prev.
func NewRedemption(ws identity.WorkspaceID, prev Head, invite InviteID, secret identity.InviteSecret, user identity.UserID, dev identity.DevicePublic) (*RedeemInvite, error) {
	pk, err := secret.ProofKey()
	if err != nil {
		return nil, err
	}
	proof, err := pk.Sign(identity.LabelInviteRedeem, RedeemContent(ws, prev, invite, user, dev))
	if err != nil {
		return nil, err
	}
	return &RedeemInvite{Invite: invite, User: user, Device: dev, Proof: proof}, nil
}
