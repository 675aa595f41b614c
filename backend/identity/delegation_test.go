package identity

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"weald/backend/internal/codec"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func groups(n int) []GroupID {
	out := make([]GroupID, n)
	for i := range out {
		out[i][0] = byte(i + 1)
	}
	return out
}

func TestDelegationChain(t *testing.T) {
	r := testRand(20)
	dev, _ := GenerateKey[Device](r)
	a1, _ := GenerateKey[Agent](r)
	a2, _ := GenerateKey[Agent](r)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	devices := func(id DeviceID) (DevicePublic, bool) {
		if id == DeviceIDOf(dev.Public()) {
			return dev.Public(), true
		}
		return DevicePublic{}, false
	}
	g := groups(3)
	root, err := IssueDelegation(dev, a1.Public(), []GroupID{g[2], g[0], g[1], g[0]}, t0, t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Scope) != 3 || !root.InScope(g[1]) {
		t.Fatal("scope not normalised")
	}
	clock := &fixedClock{t0.Add(time.Hour)}
	if err := root.Verify(devices, clock); err != nil {
		t.Fatal(err)
	}
	sub, err := SubDelegate(a1, root, a2.Public(), []GroupID{g[0]}, t0, t0.Add(12*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Verify(devices, clock); err != nil {
		t.Fatal(err)
	}
	if len(sub.Chain()) != 2 || sub.Chain()[0] != root {
		t.Fatal("chain")
	}

	// Scope can only shrink; windows nest.
	if _, err := SubDelegate(a1, root, a2.Public(), []GroupID{g[0], {9}}, t0, t0.Add(time.Hour)); !errors.Is(err, ErrCertScope) {
		t.Fatalf("widened scope: %v", err)
	}
	if _, err := SubDelegate(a1, root, a2.Public(), []GroupID{g[0]}, t0, t0.Add(48*time.Hour)); !errors.Is(err, ErrCertWindow) {
		t.Fatalf("longer window: %v", err)
	}
	if _, err := SubDelegate(a2, root, a2.Public(), []GroupID{g[0]}, t0, t0.Add(time.Hour)); !errors.Is(err, ErrCertIssuer) {
		t.Fatalf("wrong parent agent: %v", err)
	}
	if _, err := IssueDelegation(dev, a1.Public(), nil, t0, t0.Add(time.Hour)); !errors.Is(err, ErrCertEmptyScope) {
		t.Fatalf("empty scope: %v", err)
	}

	// Clock.
	clock.t = t0.Add(-time.Second)
	if err := root.Verify(devices, clock); !errors.Is(err, ErrCertNotYet) {
		t.Fatalf("before not_before: %v", err)
	}
	clock.t = t0.Add(13 * time.Hour)
	if err := root.Verify(devices, clock); err != nil {
		t.Fatal(err)
	}
	if err := sub.Verify(devices, clock); !errors.Is(err, ErrCertExpired) {
		t.Fatalf("sub after expiry: %v", err)
	}
	clock.t = t0.Add(24 * time.Hour)
	if err := root.Verify(devices, clock); !errors.Is(err, ErrCertExpired) {
		t.Fatalf("at expiry: %v", err)
	}
	clock.t = t0.Add(time.Hour)

	// Unknown issuer; tampered scope; encoding round trip.
	if err := root.Verify(func(DeviceID) (DevicePublic, bool) { return DevicePublic{}, false }, clock); !errors.Is(err, ErrCertUnknown) {
		t.Fatalf("unknown device: %v", err)
	}
	b, err := sub.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeDelegation(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(devices, clock); err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Encode()
	if !bytes.Equal(b, b2) {
		t.Fatal("encoding does not round-trip")
	}
	forged := *root
	forged.Scope = append([]GroupID{}, g...)
	forged.Scope = append(forged.Scope, GroupID{0xff})
	if err := forged.Verify(devices, clock); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("widened root scope verified: %v", err)
	}
	for i := range b {
		if i%7 != 0 {
			continue
		}
		m := bytes.Clone(b)
		m[i] ^= 0x01
		if c, err := DecodeDelegation(m); err == nil {
			if c.Verify(devices, clock) == nil {
				t.Fatalf("flipped byte %d still verifies", i)
			}
		}
	}
}

func FuzzDecodeDelegation(f *testing.F) {
	r := testRand(21)
	dev, _ := GenerateKey[Device](r)
	a1, _ := GenerateKey[Agent](r)
	a2, _ := GenerateKey[Agent](r)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	root, _ := IssueDelegation(dev, a1.Public(), groups(2), t0, t0.Add(time.Hour))
	sub, _ := SubDelegate(a1, root, a2.Public(), groups(1), t0, t0.Add(time.Hour))
	b1, _ := root.Encode()
	b2, _ := sub.Encode()
	f.Add(b1)
	f.Add(b2)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeDelegation(b)
		if err != nil {
			return
		}
		var w codec.Writer
		c.EncodeTo(&w)
		if !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("accepted encoding does not round-trip")
		}
	})
}
