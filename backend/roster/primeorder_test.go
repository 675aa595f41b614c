package roster

import (
	"testing"

	"filippo.io/edwards25519"

	"weald/backend/identity"
)

// A member admits a device key of small order (the identity point), with
// a proof of possession anyone can forge under it: R = B, S = 1 satisfies
// crypto/ed25519's equation for every message, since [k]A is the identity.
// Admitted, it would let anyone sign as that device, and the relay refuses
// every access set that lists it, so no admin could publish one again (no
// removal could take effect). Refused with roster/bad_key (docs/security.md
// section 7); on the main this started from it was admitted.
func TestSmallOrderKeyIsNotAdmitted(t *testing.T) {
	w := bootstrapped(t)
	m := w.join(w.owner, RoleMember)
	idPoint := edwards25519.NewIdentityPoint().Bytes()
	key, err := identity.PublicFromBytes[identity.Device](idPoint)
	if err != nil {
		t.Fatal(err)
	}
	one := [32]byte{1}
	forged := append(edwards25519.NewGeneratorPoint().Bytes(), one[:]...)
	if key.Verify(identity.LabelPossession, PossessionContent(w.ws, m.user, identity.KindDevice, idPoint), forged) != nil {
		t.Fatal("the forged proof does not verify: the attack needs it to")
	}
	e := w.fail(m.signer(), &AdmitDevice{User: m.user, Device: key, Possession: forged}, ErrBadKey)
	if e.Code() != "roster/bad_key" {
		t.Fatal(e.Code())
	}
}
