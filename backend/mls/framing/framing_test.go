package framing

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/proposal"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/suite"
)

type messagesCase struct {
	PublicApplication hexb `json:"public_message_application"`
	PublicProposal    hexb `json:"public_message_proposal"`
	PublicCommit      hexb `json:"public_message_commit"`
	Private           hexb `json:"private_message"`
	Welcome           hexb `json:"mls_welcome"`
	GroupInfo         hexb `json:"mls_group_info"`
	KeyPackage        hexb `json:"mls_key_package"`
}

// TestMessagesVectorsFraming decodes and re-encodes the framing-level
// MLSMessages of messages.json (public messages of every content type,
// private messages, and the envelopes of Welcome/GroupInfo/KeyPackage).
func TestMessagesVectorsFraming(t *testing.T) {
	var cases []messagesCase
	mlstest.Load(t, "messages.json", &cases)
	n := 0
	for i, c := range cases {
		t.Run(mlstest.Case(i), func(t *testing.T) {
			for name, b := range map[string][]byte{"public_message_application": c.PublicApplication,
				"public_message_proposal": c.PublicProposal, "public_message_commit": c.PublicCommit,
				"private_message": c.Private, "mls_welcome": c.Welcome, "mls_group_info": c.GroupInfo,
				"mls_key_package": c.KeyPackage} {
				m, err := DecodeMLSMessage(b)
				if err != nil {
					t.Fatalf("case %d %s: %v", i, name, err)
				}
				if !bytes.Equal(m.Bytes(), b) {
					t.Fatalf("case %d %s: re-encoding differs", i, name)
				}
				n++
			}
		})
	}
	t.Logf("messages.json (framing part): %d cases, %d messages decoded and re-encoded", len(cases), n)
}

type fixture struct {
	s     *suite.Suite
	key   *suite.SigningKey
	gc    []byte
	mk    []byte
	sds   []byte
	enc   []byte
	fc    FramedContent
	nLeaf uint32
}

func newFixture(t testing.TB) *fixture {
	s, _ := suite.ByID(1)
	key, err := s.GenerateSigningKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, key: key, gc: []byte("group context bytes"), mk: bytes.Repeat([]byte{1}, 32),
		sds: bytes.Repeat([]byte{2}, 32), enc: bytes.Repeat([]byte{3}, 32), nLeaf: 4,
		fc: FramedContent{GroupID: []byte("g"), Epoch: 9, Sender: Member(2), AuthenticatedData: []byte("ad"),
			ContentType: ContentApplication, ApplicationData: []byte("hello")}}
}

func (f *fixture) tree(t testing.TB) *secrettree.Tree {
	st, err := secrettree.New(f.s, f.enc, f.nLeaf, secrettree.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestPrivateRejections(t *testing.T) {
	f := newFixture(t)
	ac, err := Sign(f.s, rand.Reader, f.key, WireFormatPrivateMessage, f.fc, f.gc)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := Encrypt(f.s, rand.Reader, f.tree(t), f.sds, ac, 64)
	if err != nil {
		t.Fatal(err)
	}
	recv := f.tree(t)
	var before codec.Writer
	recv.Encode(&before)
	tamper := func(mut func(p *PrivateMessage)) error {
		p := *pm
		p.Ciphertext = append([]byte(nil), pm.Ciphertext...)
		p.EncryptedSenderData = append([]byte(nil), pm.EncryptedSenderData...)
		mut(&p)
		_, err := Decrypt(f.s, recv, f.sds, &p)
		return err
	}
	for name, mut := range map[string]func(p *PrivateMessage){
		"ciphertext":  func(p *PrivateMessage) { p.Ciphertext[len(p.Ciphertext)-1] ^= 1 },
		"sender data": func(p *PrivateMessage) { p.EncryptedSenderData[0] ^= 1 },
		"aad":         func(p *PrivateMessage) { p.AuthenticatedData = []byte("other") },
		"epoch":       func(p *PrivateMessage) { p.Epoch++ },
		"type":        func(p *PrivateMessage) { p.ContentType = ContentProposal },
	} {
		if err := tamper(mut); !errors.Is(err, ErrDecrypt) {
			t.Errorf("%s tampered: %v", name, err)
		}
	}
	var after codec.Writer
	recv.Encode(&after)
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Fatal("rejected messages changed the secret tree")
	}
	d, err := Decrypt(f.s, recv, f.sds, pm)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Content.VerifySignature(f.s, f.key.Public(), f.gc); err != nil {
		t.Fatal(err)
	}
	if err := d.Content.VerifySignature(f.s, f.key.Public(), []byte("other context")); !errors.Is(err, ErrSignature) {
		t.Fatalf("wrong context verified: %v", err)
	}
	if string(d.Content.Content.ApplicationData) != "hello" || string(d.Content.Content.AuthenticatedData) != "ad" {
		t.Fatal("content")
	}
}

func TestNonZeroPaddingRejected(t *testing.T) {
	f := newFixture(t)
	ac, _ := Sign(f.s, rand.Reader, f.key, WireFormatPrivateMessage, f.fc, f.gc)
	// Build the plaintext by hand with a non-zero padding byte.
	send := f.tree(t)
	kn, _ := send.Next(2, secrettree.Application)
	var w codec.Writer
	ac.Content.encodeBody(&w)
	ac.Auth.encode(&w, ContentApplication)
	w.Raw([]byte{0, 0, 7})
	guard := [4]byte{1, 2, 3, 4}
	ct, _ := f.s.Seal(nil, kn.Key, applyReuseGuard(kn.Nonce, guard), contentAAD(f.fc.GroupID, f.fc.Epoch, ContentApplication, f.fc.AuthenticatedData), w.Bytes())
	var sd codec.Writer
	sd.U32(2)
	sd.U32(0)
	sd.Raw(guard[:])
	k, n := secrettree.SenderDataKeyNonce(f.s, f.sds, ct)
	esd, _ := f.s.Seal(nil, k, n, senderDataAAD(f.fc.GroupID, f.fc.Epoch, ContentApplication), sd.Bytes())
	pm := &PrivateMessage{GroupID: f.fc.GroupID, Epoch: f.fc.Epoch, ContentType: ContentApplication,
		AuthenticatedData: f.fc.AuthenticatedData, EncryptedSenderData: esd, Ciphertext: ct}
	if _, err := Decrypt(f.s, f.tree(t), f.sds, pm); !errors.Is(err, ErrPadding) {
		t.Fatalf("non-zero padding: %v", err)
	}
}

func TestPublicRejections(t *testing.T) {
	f := newFixture(t)
	if _, err := Sign(f.s, rand.Reader, f.key, WireFormatPublicMessage, f.fc, f.gc); err != nil {
		t.Fatal(err)
	}
	ac, _ := Sign(f.s, rand.Reader, f.key, WireFormatPublicMessage, f.fc, f.gc)
	if _, err := NewPublicMessage(f.s, ac, f.mk, f.gc); !errors.Is(err, ErrContentMismatch) {
		t.Fatalf("public application message built: %v", err)
	}
	fc := f.fc
	fc.ContentType, fc.ApplicationData = ContentProposal, nil
	fc.Proposal = mustProposal(t)
	ac, err := Sign(f.s, rand.Reader, f.key, WireFormatPublicMessage, fc, f.gc)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := NewPublicMessage(f.s, ac, f.mk, f.gc)
	if err != nil {
		t.Fatal(err)
	}
	if err := pm.VerifyMembershipTag(f.s, bytes.Repeat([]byte{9}, 32), f.gc); !errors.Is(err, ErrMembershipTag) {
		t.Fatalf("wrong membership key: %v", err)
	}
	pm.MembershipTag[0] ^= 1
	if err := pm.VerifyMembershipTag(f.s, f.mk, f.gc); !errors.Is(err, ErrMembershipTag) {
		t.Fatalf("tampered tag: %v", err)
	}
	// External senders sign without a group context and carry no tag.
	fc.Sender = Sender{Type: SenderExternal, Index: 0}
	ac, _ = Sign(f.s, rand.Reader, f.key, WireFormatPublicMessage, fc, nil)
	pm, _ = NewPublicMessage(f.s, ac, nil, nil)
	b := (&MLSMessage{WireFormat: WireFormatPublicMessage, Public: pm}).Bytes()
	m, err := DecodeMLSMessage(b)
	if err != nil || m.Public.MembershipTag != nil {
		t.Fatalf("external: %v", err)
	}
	if err := m.Public.AuthenticatedContent().VerifySignature(f.s, f.key.Public(), nil); err != nil {
		t.Fatal(err)
	}
	// A private message from a non-member is refused.
	if _, err := Sign(f.s, rand.Reader, f.key, WireFormatPrivateMessage, fc, nil); !errors.Is(err, ErrSender) {
		t.Fatalf("external private: %v", err)
	}
}

func mustProposal(t testing.TB) *proposal.Proposal {
	return &proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: 3}}
}

func TestDecodeRejections(t *testing.T) {
	for name, in := range map[string][]byte{
		"empty":       {},
		"version":     {0, 2, 0, 1},
		"wire format": {0, 1, 0, 9},
		"truncated":   {0, 1, 0, 2, 1},
		"trailing":    append((&MLSMessage{WireFormat: WireFormatPrivateMessage, Private: &PrivateMessage{ContentType: ContentApplication}}).Bytes(), 0),
		"bad ctype":   (&MLSMessage{WireFormat: WireFormatPrivateMessage, Private: &PrivateMessage{ContentType: 4}}).Bytes(),
	} {
		if _, err := DecodeMLSMessage(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func BenchmarkProtect1KiB(b *testing.B) {
	f := newFixture(b)
	f.fc.ApplicationData = make([]byte, 1024)
	st := f.tree(b)
	b.ReportAllocs()
	for b.Loop() {
		ac, err := Sign(f.s, rand.Reader, f.key, WireFormatPrivateMessage, f.fc, f.gc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encrypt(f.s, rand.Reader, st, f.sds, ac, 32); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnprotect1KiB(b *testing.B) {
	f := newFixture(b)
	f.fc.ApplicationData = make([]byte, 1024)
	ac, _ := Sign(f.s, rand.Reader, f.key, WireFormatPrivateMessage, f.fc, f.gc)
	pm, _ := Encrypt(f.s, rand.Reader, f.tree(b), f.sds, ac, 32)
	raw := (&MLSMessage{WireFormat: WireFormatPrivateMessage, Private: pm}).Bytes()
	st := f.tree(b)
	b.ReportAllocs()
	for b.Loop() {
		m, err := DecodeMLSMessage(raw)
		if err != nil {
			b.Fatal(err)
		}
		d, err := Decrypt(f.s, st, f.sds, m.Private)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Content.VerifySignature(f.s, f.key.Public(), f.gc); err != nil {
			b.Fatal(err)
		}
	}
}
