package roster

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"testing"
	"time"

	"weald/backend/identity"
)

// TestGenesisEncodingByHand assembles a genesis operation byte by byte from
// docs/protocol/roster.md and identity.md, independently of the encoder,
// and checks that Sign produces exactly those bytes and head.
func TestGenesisEncodingByHand(t *testing.T) {
	seed := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	dev, _ := identity.PrivateFromSeed[identity.Device](seed(1))
	gen, _ := identity.PrivateFromSeed[identity.Genesis](seed(2))
	var ws identity.WorkspaceID
	var user identity.UserID
	copy(ws[:], seed(3))
	copy(user[:], seed(4))
	at := time.UnixMilli(1764579600123).UTC()

	devPub := ed25519.NewKeyFromSeed(seed(1)).Public().(ed25519.PublicKey)
	genPub := ed25519.NewKeyFromSeed(seed(2)).Public().(ed25519.PublicKey)
	labelled := func(label string, content []byte) []byte {
		l := "weald 1 " + label
		out := []byte{byte(len(l))}
		out = append(out, l...)
		if len(content) < 64 {
			out = append(out, byte(len(content)))
		} else {
			out = append(out, 0x40|byte(len(content)>>8), byte(len(content)))
		}
		return append(out, content...)
	}
	genContent := append(append(append([]byte{}, ws[:]...), user[:]...), devPub...)
	genSig := ed25519.Sign(ed25519.NewKeyFromSeed(seed(2)), labelled("roster-genesis", genContent))

	body := append(append(append(append([]byte{}, ws[:]...), user[:]...), devPub...), genPub...)
	body = append(body, 0x40, 0x40) // varint 64
	body = append(body, genSig...)
	devID := sha256.Sum256(devPub)
	tbs := []byte{1}
	tbs = append(tbs, make([]byte, 32)...) // prev_head of the empty roster
	tbs = binary.BigEndian.AppendUint64(tbs, 1764579600123)
	tbs = append(tbs, 2) // actor kind device
	tbs = append(tbs, devID[:]...)
	tbs = append(tbs, 1) // type genesis
	tbs = append(tbs, 0x40|byte(len(body)>>8), byte(len(body)))
	tbs = append(tbs, body...)
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(seed(1)), labelled("roster-op", tbs))
	want := append(append(append([]byte{}, tbs...), 0x40, 0x40), sig...)

	gs, _ := gen.Sign(identity.LabelGenesis, GenesisContent(ws, user, dev.Public()))
	op, err := Sign(DeviceSigner(dev), Head{}, at, &Genesis{Workspace: ws, User: user, Device: dev.Public(), GenesisKey: gen.Public(), GenesisSig: gs})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(op.Bytes(), want) {
		t.Fatalf("encoding differs from the documented one:\n got %x\nwant %x", op.Bytes(), want)
	}
	if op.Head() != Head(sha256.Sum256(want)) {
		t.Fatal("head is not SHA-256 of the bytes")
	}
	st := New(Options{})
	if err := st.ApplyBytes(want); err != nil {
		t.Fatal(err)
	}
}
