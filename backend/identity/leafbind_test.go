package identity

import (
	"bytes"
	"errors"
	"testing"
)

func TestLeafBinding(t *testing.T) {
	dev, err := GenerateKey[Device](testRand(1))
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey[Device](testRand(2))
	if err != nil {
		t.Fatal(err)
	}
	ws := WorkspaceID{7}
	p := DevicePrincipal(DeviceIDOf(dev.Public()))
	leafKey := bytes.Repeat([]byte{9}, 32)
	b, err := SignLeafBinding(dev, ws, p, leafKey)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeLeafBinding(b.Encode())
	if err != nil || got.Kind != KindDevice || !bytes.Equal(got.Signature, b.Signature) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if err := got.Verify(dev.Public().Verify, ws, p, leafKey); err != nil {
		t.Fatalf("verify: %v", err)
	}
	// Another leaf key, workspace, principal kind or signer does not verify.
	for name, err := range map[string]error{
		"leaf key":  got.Verify(dev.Public().Verify, ws, p, bytes.Repeat([]byte{8}, 32)),
		"workspace": got.Verify(dev.Public().Verify, WorkspaceID{8}, p, leafKey),
		"kind":      got.Verify(dev.Public().Verify, ws, Principal{KindAgent, p.ID}, leafKey),
		"signer":    got.Verify(other.Public().Verify, ws, p, leafKey),
	} {
		if err == nil {
			t.Errorf("%s: a changed %s verified", name, name)
		}
	}
	for _, bad := range [][]byte{nil, {1}, {2, 2, 0}, {1, 1, 64}, append([]byte{1, 2, 63}, make([]byte, 63)...),
		append(b.Encode(), 0)} {
		if _, err := DecodeLeafBinding(bad); !errors.Is(err, ErrLeafBinding) {
			t.Errorf("decode %x: %v", bad, err)
		}
	}
}

func FuzzDecodeLeafBinding(f *testing.F) {
	dev, _ := GenerateKey[Device](testRand(3))
	b, _ := SignLeafBinding(dev, WorkspaceID{1}, DevicePrincipal(DeviceIDOf(dev.Public())), []byte{1, 2, 3})
	f.Add(b.Encode())
	f.Add([]byte{1, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeLeafBinding(data)
		if err != nil {
			return
		}
		if !bytes.Equal(got.Encode(), data) {
			t.Fatalf("re-encoding %x gives %x", data, got.Encode())
		}
	})
}
