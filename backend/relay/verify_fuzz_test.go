package relay

import (
	"crypto/ed25519"
	"testing"

	"weald/backend/wire"
)

// FuzzAcceptMatchesClientVerify is the differential target between the
// relay's signature check (verifyEnvelopes: alone, in a request of one
// author, in a request of several, over one or two workers) and the
// clients' (wire.VerifyEnvelope, crypto/ed25519). For any request the
// relay's first refused index is the first envelope a client refuses, and
// every envelope alone is judged alike. Inputs: the request size, which
// envelope carries a torsion signature and which small-order point, byte
// flips in signatures, and one raw signature.
func FuzzAcceptMatchesClientVerify(f *testing.F) {
	f.Add(uint8(1), uint8(0), uint8(0), []byte{}, []byte{})
	f.Add(uint8(40), uint8(0x83), uint8(5), []byte{3, 7}, []byte{})
	f.Add(uint8(40), uint8(0x95), uint8(0), []byte{}, []byte{}) // envelope 21 of 41, torsion 2·T8, one author
	f.Add(uint8(40), uint8(0x95), uint8(5), []byte{}, []byte{}) // the same over three authors
	f.Add(uint8(8), uint8(0x80), uint8(1), []byte{}, make([]byte, 64))
	f.Add(uint8(33), uint8(0x9f), uint8(4), []byte{1, 0x80, 2, 0x01}, []byte{})
	authors := []ed25519.PrivateKey{key("fuzz a"), key("fuzz b"), key("fuzz c")}
	keys := map[wire.ID][]byte{}
	for _, k := range authors {
		keys[wire.KeyID(pub(k))] = pub(k)
	}
	svc := New(Config{})
	f.Fuzz(func(t *testing.T, n, torsion, spread uint8, flips, raw []byte) {
		count := 1 + int(n)%48
		envs := make([]wire.Envelope, count)
		signers := make([]ed25519.PrivateKey, count)
		for i := range envs {
			k := authors[0]
			if spread%4 != 0 {
				k = authors[(i*int(spread))%len(authors)]
			}
			signers[i] = k
			envs[i] = wire.Envelope{Group: id("fuzz group"), Kind: wire.KindContent, Ctr: uint64(i + 1), CT: []byte{byte(i), n}}
			wire.SignEnvelope(&envs[i], k)
		}
		if torsion&0x80 != 0 {
			i := int(torsion&0x3f) % count
			envs[i] = torsioned(envs[i], signers[i], int(torsion>>3))
		}
		for j := 0; j+1 < len(flips); j += 2 {
			e := &envs[int(flips[j])%count]
			e.Signature = append([]byte(nil), e.Signature...)
			e.Signature[int(flips[j])%len(e.Signature)] ^= flips[j+1]
		}
		if len(raw) >= 64 {
			envs[count-1].Signature = append([]byte(nil), raw[:64]...)
		}
		want := -1
		for i := range envs {
			ok := wire.VerifyEnvelope(&envs[i], keys[envs[i].Author]) == nil
			if !ok && want < 0 {
				want = i
			}
			alone := svc.verifyEnvelopes(keys, envs[i:i+1], 1)
			if (alone == -1) != ok {
				t.Fatalf("envelope %d alone: relay %d, client ok %v", i, alone, ok)
			}
		}
		for _, workers := range []int{1, 2} {
			if got := svc.verifyEnvelopes(keys, envs, workers); got != want {
				t.Fatalf("request of %d over %d workers: relay refuses index %d, clients first refuse %d", count, workers, got, want)
			}
		}
	})
}
