package identity

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// testRand is a deterministic io.Reader for tests.
func testRand(seed uint64) *rand.ChaCha8 {
	var s [32]byte
	s[0] = byte(seed)
	s[1] = byte(seed >> 8)
	return rand.NewChaCha8(s)
}

func TestKeyTypesNotComparableAndDistinct(t *testing.T) {
	for _, v := range []any{DevicePublic{}, DevicePrivate{}, AgentPublic{}, RecoveryPrivate{}, GenesisPublic{}, RecoveryPhrase{}, InviteSecret{}} {
		if reflect.TypeOf(v).Comparable() {
			t.Errorf("%T is comparable with ==", v)
		}
	}
	if reflect.TypeOf(DevicePublic{}) == reflect.TypeOf(AgentPublic{}) {
		t.Fatal("device and agent public keys are the same type")
	}
	if !reflect.TypeOf(DeviceID{}).Comparable() {
		t.Fatal("ids must be comparable (map keys)")
	}
}

func TestPrivateKeyNeverPrintsSecret(t *testing.T) {
	k, err := GenerateKey[Device](testRand(1))
	if err != nil {
		t.Fatal(err)
	}
	seedHex := hex.EncodeToString(k.Seed())
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q", "%d"} {
		out := fmt.Sprintf(verb, k)
		if strings.Contains(strings.ToLower(out), seedHex[:16]) {
			t.Fatalf("%s printed the seed: %s", verb, out)
		}
		if !strings.HasPrefix(out, "devpriv:") {
			t.Fatalf("%s printed %q without the kind prefix", verb, out)
		}
	}
	// Also inside structs, in exported and unexported fields, where fmt
	// cannot call methods and prints the fields themselves.
	seedDec := strings.TrimSuffix(fmt.Sprint(k.Seed()[:6]), "]")
	ph0, _ := NewRecoveryPhrase(testRand(9))
	rk, _ := DeriveRecoveryKeys(ph0)
	hb, _ := rk.HPKE.Key().Bytes()
	hpkeDec := strings.TrimSuffix(fmt.Sprint(hb[:6]), "]")
	recDec := strings.TrimSuffix(fmt.Sprint(rk.Signature.Seed()[:6]), "]")
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		out := fmt.Sprintf(verb, struct {
			K  DevicePrivate
			k  DevicePrivate
			r  RecoveryKeys
			hk RecoveryHPKEPrivate
		}{k, k, rk, rk.HPKE})
		for _, secret := range []string{seedHex[:16], seedDec, hpkeDec, recDec, hex.EncodeToString(hb[:8])} {
			if strings.Contains(out, secret) {
				t.Fatalf("%s of a struct leaked a secret: %s", verb, out)
			}
		}
	}
	if _, err := k.MarshalText(); err == nil {
		t.Fatal("private key marshalled as text")
	}
	ph, _ := NewRecoveryPhrase(testRand(2))
	if s := fmt.Sprintf("%v %s %#v", ph, ph, ph); strings.Contains(s, ph.Words()[0]+" "+ph.Words()[1]) {
		t.Fatalf("phrase printed: %s", s)
	}
	is, _ := NewInviteSecret(testRand(3))
	if s := fmt.Sprintf("%v %x", is, is); strings.Contains(s, hex.EncodeToString(is.Bytes())[:16]) {
		t.Fatalf("invite secret printed: %s", s)
	}
}

func TestPublicKeyText(t *testing.T) {
	k, _ := GenerateKey[Agent](testRand(4))
	p := k.Public()
	txt, err := p.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(txt), "agentpub:") || len(txt) != len("agentpub:")+64 {
		t.Fatalf("text %q", txt)
	}
	if s := p.ShortString(); s != "agentpub:"+hex.EncodeToString(p.Bytes()[:4])+"…" {
		t.Fatalf("short %q", s)
	}
	var q AgentPublic
	if err := q.UnmarshalText(txt); err != nil || !q.Equal(p) {
		t.Fatalf("round trip: %v", err)
	}
	var d DevicePublic
	if err := d.UnmarshalText(txt); !errors.Is(err, ErrKeyPrefix) {
		t.Fatalf("agent key parsed as device key: %v", err)
	}
	if got := AgentIDOf(p); got != AgentID(sha256.Sum256(p.Bytes())) {
		t.Fatal("agent id is not SHA-256 of the key")
	}
	dk, _ := GenerateKey[Device](testRand(5))
	if DeviceIDOf(dk.Public()) != DeviceID(sha256.Sum256(dk.Public().Bytes())) {
		t.Fatal("device id is not SHA-256 of the key")
	}
}

func TestSignatureLabelSeparation(t *testing.T) {
	k, _ := GenerateKey[Device](testRand(6))
	sig, err := k.Sign(LabelRosterOp, []byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Public().Verify(LabelRosterOp, []byte("content"), sig); err != nil {
		t.Fatal(err)
	}
	if err := k.Public().Verify(LabelDelegation, []byte("content"), sig); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("signature verified under another label: %v", err)
	}
	if err := k.Public().Verify(LabelRosterOp, []byte("content!"), sig); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("signature verified over other content: %v", err)
	}
	// The signed bytes are exactly the conventions.md struct.
	msg, _ := SignedContent("x", []byte{1, 2})
	want := append([]byte{byte(len("weald 1 x"))}, "weald 1 x"...)
	want = append(want, 2, 1, 2)
	if !bytes.Equal(msg, want) {
		t.Fatalf("signed content %x, want %x", msg, want)
	}
	if _, err := k.Sign("", nil); !errors.Is(err, ErrBadLabel) {
		t.Fatalf("empty label: %v", err)
	}
	if _, err := k.Sign("a b", nil); !errors.Is(err, ErrBadLabel) {
		t.Fatalf("label with a space: %v", err)
	}
	var zero DevicePrivate
	if _, err := zero.Sign(LabelRosterOp, nil); !errors.Is(err, ErrZeroKey) {
		t.Fatalf("zero key signed: %v", err)
	}
}

func TestIDText(t *testing.T) {
	id, _ := NewRandomID[User](testRand(7))
	var back UserID
	if err := back.UnmarshalText([]byte(id.String())); err != nil || back != id {
		t.Fatalf("round trip: %v", err)
	}
	var g GroupID
	if err := g.UnmarshalText([]byte(id.String())); !errors.Is(err, ErrBadID) {
		t.Fatalf("user id parsed as group id: %v", err)
	}
	p := UserPrincipal(id)
	if !strings.HasPrefix(p.ShortString(), "user_") || len(p.ShortString()) != 13 {
		t.Fatalf("principal short %q", p.ShortString())
	}
}

func FuzzUnmarshalText(f *testing.F) {
	k, _ := GenerateKey[Device](testRand(30))
	txt, _ := k.Public().MarshalText()
	f.Add(string(txt))
	f.Add(DeviceIDOf(k.Public()).String())
	f.Add("devpub:zz")
	f.Fuzz(func(t *testing.T, s string) {
		var p DevicePublic
		if err := p.UnmarshalText([]byte(s)); err == nil {
			back, _ := p.MarshalText()
			if !strings.EqualFold(string(back), s) {
				t.Fatalf("key %q re-marshals as %q", s, back)
			}
		}
		var id DeviceID
		if err := id.UnmarshalText([]byte(s)); err == nil && !strings.EqualFold(id.String(), s) {
			t.Fatalf("id %q re-marshals as %q", s, id.String())
		}
	})
}

func ExampleParseRecoveryPhrase() {
	_, err := ParseRecoveryPhrase(strings.Repeat("abandon ", 23) + "zoo")
	fmt.Println(err)
	_, err = ParseRecoveryPhrase(strings.Repeat("abandon ", 6) + "abandonn " + strings.Repeat("abandon ", 16) + "art")
	fmt.Println(err)
	p, _ := ParseRecoveryPhrase(strings.Repeat("abandon ", 23) + "art")
	fmt.Println(p)
	// Output:
	// identity/phrase_checksum: the checksum does not match; one of the words is wrong or two are swapped
	// identity/phrase_unknown_word: word 7, "abandonn", is not in the word list (did you mean "abandon"?)
	// recovery-phrase:(secret)
}
