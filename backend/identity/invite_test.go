package identity

import (
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"testing"
	"time"
)

func TestInviteSecret(t *testing.T) {
	s, err := NewInviteSecret(testRand(40))
	if err != nil {
		t.Fatal(err)
	}
	gk, _ := s.GrantKey()
	gseed, _ := hkdf.Key(sha256.New, s.Bytes(), []byte("weald 1 invite"), "weald 1 invite grant", 32)
	if string(gk.Seed()) != string(gseed) || s.Grant() != [32]byte(gk.Public().Bytes()) {
		t.Fatal("the grant is not the public key of the documented HKDF derivation")
	}
	back, err := InviteSecretFromBytes(s.Bytes())
	if err != nil || !back.Equal(s) {
		t.Fatal("secret does not round-trip through the link bytes")
	}
	pk, _ := s.ProofKey()
	pk2, _ := back.ProofKey()
	seed, _ := hkdf.Key(sha256.New, s.Bytes(), []byte("weald 1 invite"), "weald 1 invite proof", 32)
	if !pk.Equal(pk2) || string(pk.Seed()) != string(seed) {
		t.Fatal("proof key is not the documented HKDF derivation")
	}
	sig, _ := pk.Sign(LabelInviteRedeem, []byte("c"))
	if err := pk2.Public().Verify(LabelInviteRedeem, []byte("c"), sig); err != nil {
		t.Fatal(err)
	}
	if _, err := InviteSecretFromBytes(make([]byte, 31)); !errors.Is(err, ErrBadKey) {
		t.Fatalf("short secret: %v", err)
	}
	var zero InviteSecret
	if !zero.IsZero() || zero.Bytes() != nil || zero.Grant() != [32]byte{} || zero.Equal(s) {
		t.Fatal("zero secret")
	}
	if _, err := zero.ProofKey(); !errors.Is(err, ErrZeroKey) {
		t.Fatal("zero secret derived a key")
	}
	if _, err := zero.GrantKey(); !errors.Is(err, ErrZeroKey) {
		t.Fatal("zero secret derived a grant key")
	}
}

func TestZeroValuesAndClock(t *testing.T) {
	var k DevicePrivate
	var p DevicePublic
	if !k.IsZero() || !p.IsZero() || k.Seed() != nil || !k.Public().IsZero() || p.Bytes() != nil {
		t.Fatal("zero keys")
	}
	if k.String() != "devpriv:none" || p.String() != "devpub:none" || p.ShortString() != "devpub:none" {
		t.Fatal(k.String(), p.String())
	}
	if _, err := p.MarshalText(); !errors.Is(err, ErrZeroKey) {
		t.Fatal("zero public key marshalled")
	}
	if err := p.Verify(LabelRosterOp, nil, nil); !errors.Is(err, ErrZeroKey) {
		t.Fatal("zero key verified")
	}
	if _, err := PublicFromBytes[Device](make([]byte, 31)); !errors.Is(err, ErrBadKey) {
		t.Fatal("short public key")
	}
	if _, err := PrivateFromSeed[Device](make([]byte, 31)); !errors.Is(err, ErrBadKey) {
		t.Fatal("short seed")
	}
	var ph RecoveryPhrase
	if !ph.IsZero() || ph.Words() != nil {
		t.Fatal("zero phrase")
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	c := ClockFunc(func() time.Time { return t0 })
	if !FromUnixMilli(UnixMilli(c.Now())).Equal(t0) {
		t.Fatal("millisecond round trip")
	}
	if UnixMilli(time.Unix(-5, 0)) != 0 || UnixMilli(time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)) != MaxWireTime {
		t.Fatal("clamping")
	}
	for _, pr := range []Principal{UserPrincipal(UserID{1}), DevicePrincipal(DeviceID{2}), AgentPrincipal(AgentID{3}), RecoveryPrincipal(RecoveryID{4})} {
		if !pr.Kind.Valid() || pr.ShortString()[len(pr.ShortString())-8:] == "00000000" {
			t.Fatal(pr)
		}
	}
	if PrincipalKind(9).Valid() || PrincipalKind(9).String() != "kind(9)" {
		t.Fatal("invalid kind")
	}
}
