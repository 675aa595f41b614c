package roster

import (
	"testing"
	"time"

	"weald/backend/identity"
)

// pairBody builds a pair-device record for user with a fresh secret.
func (w *world) pairBody(user identity.UserID, ttl time.Duration) (*PairDevice, invited) {
	upd := make([]byte, 32)
	w.rnd.Read(upd)
	b, sec, err := NewPairing(w.rnd, user, w.now.Add(ttl), upd)
	if err != nil {
		w.t.Fatal(err)
	}
	return b, invited{sec, b.ID}
}

// Issue 13 "a second device": a device of the user pairs a new device,
// which redeems the pairing under the same user; from the attacker's side,
// a pairing used twice, redeemed under another user, made for somebody
// else, by a recovered device on probation, or proved with the wrong
// secret is refused and changes nothing.
func TestPairDevice(t *testing.T) {
	w := bootstrapped(t)
	sam := w.join(w.owner, RoleMember)

	b, pair := w.pairBody(sam.user, 10*time.Minute)
	w.must(sam.signer(), b)
	inv, ok := w.st.Invite(pair.id)
	if !ok || inv.Pairing == nil || *inv.Pairing != sam.user || inv.Invite.MaxUses != 1 || inv.CreatedBy != sam.id() {
		t.Fatalf("pairing %+v", inv)
	}
	if keys := w.st.AccessKeys(w.now); !containsGrant(keys.Grants, b.Grant) {
		t.Fatal("the pairing's grant is not in the access keys")
	}

	// Its secret under another user (a new one, or the owner) is refused.
	second := member{user: sam.user, dev: w.newMember().dev}
	w.fail(second.signer(), w.redeemBody(pair, member{user: w.owner.user, dev: second.dev}), ErrNotAuthorized)
	stranger := w.newMember()
	w.fail(stranger.signer(), w.redeemBody(pair, stranger), ErrNotAuthorized)
	// The wrong secret.
	wrong := pair
	wrong.secret, _ = identity.NewInviteSecret(w.rnd)
	w.fail(second.signer(), w.redeemBody(wrong, second), ErrInviteProof)

	// Redeemed: one more device of the same user, live, no new user.
	users := len(w.st.Users())
	w.must(second.signer(), w.redeemBody(pair, second))
	u, _ := w.st.User(sam.user)
	if len(u.Devices) != 2 || u.Devices[1] != second.id() || !w.st.DeviceLive(second.id()) || len(w.st.Users()) != users {
		t.Fatalf("user %+v, %d users (was %d)", u, len(w.st.Users()), users)
	}
	// Used twice: refused.
	third := member{user: sam.user, dev: w.newMember().dev}
	w.fail(third.signer(), w.redeemBody(pair, third), ErrInviteUsed)

	// Nobody pairs a device for another person, not even an admin.
	b, _ = w.pairBody(sam.user, 10*time.Minute)
	w.fail(w.owner.signer(), b, ErrNotAuthorized)
	// Bounded life; expiry after creation.
	b, _ = w.pairBody(sam.user, 2*time.Hour)
	w.fail(sam.signer(), b, ErrBadOperation)
	b, _ = w.pairBody(sam.user, 0)
	w.fail(sam.signer(), b, ErrInviteExpired)
	// Expired before it was redeemed.
	b, late := w.pairBody(sam.user, time.Minute)
	w.must(sam.signer(), b)
	w.now = w.now.Add(2 * time.Minute)
	w.fail(third.signer(), w.redeemBody(late, third), ErrInviteExpired)
	// Revoked by its maker.
	b, cancelled := w.pairBody(sam.user, 10*time.Minute)
	w.must(sam.signer(), b)
	w.must(sam.signer(), &RevokeInvite{Invite: cancelled.id})
	w.fail(third.signer(), w.redeemBody(cancelled, third), ErrInviteRevoked)

	// A recovered device on probation may not pair.
	ph, _ := identity.NewRecoveryPhrase(w.rnd)
	rk, _ := identity.DeriveRecoveryKeys(ph)
	w.must(sam.signer(), w.admitRecovery(sam.user, rk))
	rec := member{user: sam.user, dev: w.newMember().dev}
	w.must(RecoverySigner(rk.Signature), w.recoverDevice(sam.user, rec.dev))
	b, _ = w.pairBody(sam.user, 10*time.Minute)
	w.fail(rec.signer(), b, ErrProbation)
}

func containsGrant(gs [][32]byte, g [32]byte) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}
