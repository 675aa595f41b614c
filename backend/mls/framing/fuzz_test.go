package framing

import (
	"bytes"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/secrettree"
)

// FuzzDecodeMLSMessage: decoding never panics, what decodes re-encodes to
// the same bytes, and decrypting a decoded PrivateMessage never panics.
// Seeds come from messages.json and message-protection.json.
func FuzzDecodeMLSMessage(f *testing.F) {
	var msgs []messagesCase
	mlstest.Load(f, "messages.json", &msgs)
	for i, c := range msgs {
		if i >= 10 {
			break
		}
		for _, b := range [][]byte{c.PublicApplication, c.PublicProposal, c.PublicCommit, c.Private} {
			f.Add([]byte(b))
		}
	}
	var prot []protectionCase
	mlstest.Load(f, "message-protection.json", &prot)
	for _, c := range prot {
		for _, b := range [][]byte{c.ProposalPub, c.CommitPub, c.ProposalPriv, c.CommitPriv, c.ApplicationPriv} {
			f.Add([]byte(b))
		}
	}
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := DecodeMLSMessage(in)
		if err != nil {
			return
		}
		if !bytes.Equal(m.Bytes(), in) {
			t.Fatalf("re-encoding differs")
		}
		if m.Private != nil {
			_, _ = Decrypt(fx.s, fx.tree(t), fx.sds, m.Private)
		}
		if m.Public != nil {
			_ = m.Public.VerifyMembershipTag(fx.s, fx.mk, fx.gc)
			_ = m.Public.AuthenticatedContent().VerifySignature(fx.s, fx.key.Public(), fx.gc)
		}
	})
}

// FuzzDecodeAuthenticatedContent: decoding never panics and round-trips.
func FuzzDecodeAuthenticatedContent(f *testing.F) {
	var cases []struct {
		AC hexb `json:"authenticated_content"`
	}
	mlstest.Load(f, "transcript-hashes.json", &cases)
	for _, c := range cases {
		f.Add([]byte(c.AC))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := DecodeAuthenticatedContent(in)
		if err != nil {
			return
		}
		if !bytes.Equal(a.Bytes(), in) {
			t.Fatalf("re-encoding differs")
		}
	})
}

// FuzzPrivateMessageContent encrypts arbitrary plaintext correctly (valid
// sender data and content keys) so that the PrivateMessageContent decoder
// (body, auth, padding) sees fuzzed input behind the AEAD. Decrypt must
// never panic; when it succeeds, the decoded content re-encodes to a prefix
// of the plaintext followed only by zero bytes.
func FuzzPrivateMessageContent(f *testing.F) {
	f.Add(uint8(1), []byte{5, 'h', 'e', 'l', 'l', 'o', 1, 0, 0, 0})
	f.Add(uint8(2), []byte{0, 3, 0, 0, 0, 2, 0})
	f.Add(uint8(3), []byte{0, 0, 0, 0})
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, ct uint8, pt []byte) {
		typ := ContentType(ct%3 + 1)
		send := fx.tree(t)
		kn, err := send.Next(1, ratchetFor(typ))
		if err != nil {
			t.Fatal(err)
		}
		guard := [4]byte{9, 9, 9, 9}
		c, err := fx.s.Seal(nil, kn.Key, applyReuseGuard(kn.Nonce, guard), contentAAD([]byte("g"), 1, typ, nil), pt)
		if err != nil {
			t.Fatal(err)
		}
		var sd codec.Writer
		sd.U32(1)
		sd.U32(kn.Generation)
		sd.Raw(guard[:])
		k, n := secrettree.SenderDataKeyNonce(fx.s, fx.sds, c)
		esd, _ := fx.s.Seal(nil, k, n, senderDataAAD([]byte("g"), 1, typ), sd.Bytes())
		pm := &PrivateMessage{GroupID: []byte("g"), Epoch: 1, ContentType: typ, EncryptedSenderData: esd, Ciphertext: c}
		d, err := Decrypt(fx.s, fx.tree(t), fx.sds, pm)
		if err != nil {
			return
		}
		var w codec.Writer
		d.Content.Content.encodeBody(&w)
		d.Content.Auth.encode(&w, typ)
		got := w.Bytes()
		if len(got) > len(pt) || !bytes.Equal(got, pt[:len(got)]) {
			t.Fatalf("decoded content does not re-encode to the plaintext prefix")
		}
		for _, b := range pt[len(got):] {
			if b != 0 {
				t.Fatalf("non-zero padding accepted")
			}
		}
	})
}
