package framing

import (
	"bytes"
	"testing"

	"weald/backend/mls/internal/mlstest"
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
