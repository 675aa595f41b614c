package wire

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"filippo.io/edwards25519"
)

// An order-8 point (a torsion point of Curve25519's Edwards form).
const order8Hex = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"

func TestPrimeOrderKey(t *testing.T) {
	pub := testKey("alice").Public().(ed25519.PublicKey)
	if !PrimeOrderKey(pub) {
		t.Fatal("an ordinary public key is refused")
	}
	t8b, _ := hex.DecodeString(order8Hex)
	t8, err := new(edwards25519.Point).SetBytes(t8b)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := new(edwards25519.Point).SetBytes(pub)
	mixed := new(edwards25519.Point).Add(p, t8).Bytes()
	identity := edwards25519.NewIdentityPoint().Bytes()
	nonCanonical := make([]byte, 32) // y = p (≡ 0) encodes the point (x, 0) non-canonically... or fails to decode
	for i := range nonCanonical {
		nonCanonical[i] = 0xff
	}
	nonCanonical[0], nonCanonical[31] = 0xed, 0x7f
	for name, k := range map[string][]byte{"order 8": t8b, "identity": identity, "key plus torsion": mixed,
		"non-canonical": nonCanonical, "short": pub[:31], "not a point": append([]byte{0x02}, make([]byte, 31)...)} {
		if PrimeOrderKey(k) {
			t.Errorf("%s accepted", name)
		}
	}
}
