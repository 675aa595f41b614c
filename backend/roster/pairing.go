package roster

import (
	"io"
	"slices"
	"time"

	"weald/backend/identity"
)

// Pairing a second device (issue 13; spec/channels.md "The join" for what
// the new device does once admitted; docs/protocol/devices.md). A device
// of the user writes a pair-device record; the new device redeems it with
// redeem-invite naming that user, proving the pairing secret, so the
// roster admits the device under the same person before it enters the
// root by external commit.

// MaxPairingLife bounds how long a pairing may stay redeemable.
const MaxPairingLife = time.Hour

func (s *State) checkPairDevice(op *Operation, a actor, b *PairDevice) (func(), error) {
	if a.user() != b.User {
		return nil, reject(ErrNotAuthorized, "only a device of the user may pair a device for that user")
	}
	u, ok := s.users[b.User]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "user %s", b.User.ShortString())
	}
	if _, ok := s.invites[b.ID]; ok {
		return nil, reject(ErrDuplicate, "invite id")
	}
	switch {
	case !b.ExpiresAt.After(op.CreatedAt):
		return nil, reject(ErrInviteExpired, "the expiry is not after the pairing's creation")
	case b.ExpiresAt.Sub(op.CreatedAt) > MaxPairingLife:
		return nil, reject(ErrBadOperation, "a pairing lasts at most %s", MaxPairingLife)
	case len(b.UpdatePub) != 32:
		return nil, reject(ErrBadOperation, "update_pub must be a 32-byte HPKE public key")
	case b.Grant == [32]byte{} || b.ProofKey.IsZero():
		return nil, reject(ErrBadOperation, "a pairing needs a grant and a proof key")
	}
	ref := s.ref(op)
	root := RootGroupID(s.workspace)
	return func() {
		user := b.User
		inv := Invite{ID: b.ID, Scopes: []identity.GroupID{root}, Role: u.Role, ExpiresAt: b.ExpiresAt,
			UpdatePub: slices.Clone(b.UpdatePub), Grant: b.Grant, ProofKey: b.ProofKey, MaxUses: 1}
		s.invites[b.ID] = &InviteInfo{Invite: inv, CreatedBy: a.device.ID, Created: ref, CreatedAt: op.CreatedAt, Pairing: &user}
	}, nil
}

// NewPairing builds a pair-device body for user, with a fresh secret.
func NewPairing(rand io.Reader, user identity.UserID, expires time.Time, updatePub []byte) (*PairDevice, identity.InviteSecret, error) {
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
	return &PairDevice{ID: id, User: user, ExpiresAt: expires, UpdatePub: slices.Clone(updatePub),
		Grant: sec.Grant(), ProofKey: pk.Public()}, sec, nil
}
