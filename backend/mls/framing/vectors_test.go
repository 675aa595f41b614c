package framing

import (
	"bytes"
	"crypto/rand"
	"testing"

	"weald/backend/internal/codec"
	"weald/backend/mls/internal/mlstest"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/suite"
)

type hexb = mlstest.HexBytes

type protectionCase struct {
	CipherSuite             uint16 `json:"cipher_suite"`
	GroupID                 hexb   `json:"group_id"`
	Epoch                   uint64 `json:"epoch"`
	TreeHash                hexb   `json:"tree_hash"`
	ConfirmedTranscriptHash hexb   `json:"confirmed_transcript_hash"`
	SignaturePriv           hexb   `json:"signature_priv"`
	SignaturePub            hexb   `json:"signature_pub"`
	EncryptionSecret        hexb   `json:"encryption_secret"`
	SenderDataSecret        hexb   `json:"sender_data_secret"`
	MembershipKey           hexb   `json:"membership_key"`
	Proposal                hexb   `json:"proposal"`
	ProposalPriv            hexb   `json:"proposal_priv"`
	ProposalPub             hexb   `json:"proposal_pub"`
	Commit                  hexb   `json:"commit"`
	CommitPriv              hexb   `json:"commit_priv"`
	CommitPub               hexb   `json:"commit_pub"`
	Application             hexb   `json:"application"`
	ApplicationPriv         hexb   `json:"application_priv"`
}

// The message-protection vectors use a group of two members; the sender
// is leaf 1 (RFC 9420 test-vectors, "Message Protection").
const (
	mpLeaves = 2
	mpSender = 1
)

func TestMessageProtectionVectors(t *testing.T) {
	var cases []protectionCase
	mlstest.Load(t, "message-protection.json", &cases)
	var c mlstest.Counter
	for _, tc := range cases {
		if !c.Suite(tc.CipherSuite) {
			continue
		}
		s, err := suite.ByID(suite.ID(tc.CipherSuite))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.String(), func(t *testing.T) { runProtection(t, s, &tc) })
	}
	c.Report(t, "message-protection.json")
}

func runProtection(t *testing.T, s *suite.Suite, tc *protectionCase) {
	gc := (&keyschedule.GroupContext{Version: 1, CipherSuite: tc.CipherSuite, GroupID: tc.GroupID, Epoch: tc.Epoch,
		TreeHash: tc.TreeHash, ConfirmedTranscriptHash: tc.ConfirmedTranscriptHash}).Bytes()
	key, err := s.ParseSigningKey(tc.SignaturePriv)
	if err != nil {
		t.Fatal(err)
	}
	newTree := func() *secrettree.Tree {
		st, err := secrettree.New(s, tc.EncryptionSecret, mpLeaves, secrettree.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// body returns the encoding of the content body of fc.
	body := func(fc *FramedContent) []byte {
		if fc.ContentType == ContentApplication {
			return fc.ApplicationData
		}
		var w codec.Writer
		fc.encodeBody(&w)
		return w.Bytes()
	}
	checkPublic := func(name string, msg []byte, want []byte) {
		t.Helper()
		m, err := DecodeMLSMessage(msg)
		if err != nil || m.Public == nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if !bytes.Equal(m.Bytes(), msg) {
			t.Errorf("%s: re-encoding differs", name)
		}
		if err := m.Public.VerifyMembershipTag(s, tc.MembershipKey, gc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := m.Public.AuthenticatedContent().VerifySignature(s, tc.SignaturePub, gc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got := body(&m.Public.Content); !bytes.Equal(got, want) {
			t.Errorf("%s: content %x want %x", name, got, want)
		}
	}
	checkPrivate := func(name string, st *secrettree.Tree, msg []byte, want []byte) {
		t.Helper()
		m, err := DecodeMLSMessage(msg)
		if err != nil || m.Private == nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if !bytes.Equal(m.Bytes(), msg) {
			t.Errorf("%s: re-encoding differs", name)
		}
		d, err := Decrypt(s, st, tc.SenderDataSecret, m.Private)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Leaf != mpSender {
			t.Errorf("%s: sender leaf %d", name, d.Leaf)
		}
		if err := d.Content.VerifySignature(s, tc.SignaturePub, gc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got := body(&d.Content.Content); !bytes.Equal(got, want) {
			t.Errorf("%s: content %x want %x", name, got, want)
		}
		if err := d.Consume(st); err != nil {
			t.Errorf("%s: consume: %v", name, err)
		}
		if _, err := Decrypt(s, st, tc.SenderDataSecret, m.Private); err == nil {
			t.Errorf("%s: replay decrypted", name)
		}
	}

	// The vectors' own messages.
	checkPublic("proposal_pub", tc.ProposalPub, tc.Proposal)
	checkPublic("commit_pub", tc.CommitPub, tc.Commit)
	checkPrivate("proposal_priv", newTree(), tc.ProposalPriv, tc.Proposal)
	checkPrivate("commit_priv", newTree(), tc.CommitPriv, tc.Commit)
	checkPrivate("application_priv", newTree(), tc.ApplicationPriv, tc.Application)

	// Protect the same contents ourselves, then unprotect.
	contents := map[string]FramedContent{}
	base := FramedContent{GroupID: tc.GroupID, Epoch: tc.Epoch, Sender: Member(mpSender)}
	for name, raw := range map[string][]byte{"proposal": tc.Proposal, "commit": tc.Commit, "application": tc.Application} {
		fc := base
		r := codec.NewReader(raw)
		switch name {
		case "proposal":
			fc.ContentType = ContentProposal
		case "commit":
			fc.ContentType = ContentCommit
		default:
			fc.ContentType = ContentApplication
		}
		if name == "application" {
			fc.ApplicationData = raw
		} else {
			fc.decodeBody(r)
			if err := r.Done(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		contents[name] = fc
	}
	sender := newTree()
	for _, name := range []string{"proposal", "commit", "application"} {
		fc := contents[name]
		want := tc.Proposal
		switch name {
		case "commit":
			want = tc.Commit
		case "application":
			want = tc.Application
		}
		if name != "application" {
			ac, err := Sign(s, rand.Reader, key, WireFormatPublicMessage, fc, gc)
			if err != nil {
				t.Fatal(err)
			}
			if fc.ContentType == ContentCommit {
				ac.Auth.ConfirmationTag = s.MAC(make([]byte, s.Nh()), []byte("tag"))
			}
			pm, err := NewPublicMessage(s, ac, tc.MembershipKey, gc)
			if err != nil {
				t.Fatal(err)
			}
			checkPublic(name+" (own public)", (&MLSMessage{WireFormat: WireFormatPublicMessage, Public: pm}).Bytes(), want)
		}
		ac, err := Sign(s, rand.Reader, key, WireFormatPrivateMessage, fc, gc)
		if err != nil {
			t.Fatal(err)
		}
		if fc.ContentType == ContentCommit {
			ac.Auth.ConfirmationTag = s.MAC(make([]byte, s.Nh()), []byte("tag"))
		}
		priv, err := Encrypt(s, rand.Reader, sender, tc.SenderDataSecret, ac, 32)
		if err != nil {
			t.Fatal(err)
		}
		checkPrivate(name+" (own private)", newTree(), (&MLSMessage{WireFormat: WireFormatPrivateMessage, Private: priv}).Bytes(), want)
	}
}

func TestTranscriptHashVectors(t *testing.T) {
	var cases []struct {
		CipherSuite                  uint16 `json:"cipher_suite"`
		ConfirmationKey              hexb   `json:"confirmation_key"`
		AuthenticatedContent         hexb   `json:"authenticated_content"`
		InterimTranscriptHashBefore  hexb   `json:"interim_transcript_hash_before"`
		ConfirmedTranscriptHashAfter hexb   `json:"confirmed_transcript_hash_after"`
		InterimTranscriptHashAfter   hexb   `json:"interim_transcript_hash_after"`
	}
	mlstest.Load(t, "transcript-hashes.json", &cases)
	var c mlstest.Counter
	for i, tc := range cases {
		if !c.Suite(tc.CipherSuite) {
			continue
		}
		t.Run(mlstest.SuiteCase(i, tc.CipherSuite), func(t *testing.T) {
			s, err := suite.ByID(suite.ID(tc.CipherSuite))
			if err != nil {
				t.Fatal(err)
			}
			ac, err := DecodeAuthenticatedContent(tc.AuthenticatedContent)
			if err != nil {
				t.Fatalf("suite %d: %v", tc.CipherSuite, err)
			}
			if !bytes.Equal(ac.Bytes(), tc.AuthenticatedContent) {
				t.Errorf("suite %d: re-encoding differs", tc.CipherSuite)
			}
			if ac.Content.ContentType != ContentCommit {
				t.Fatalf("suite %d: content type %d", tc.CipherSuite, ac.Content.ContentType)
			}
			confirmed := keyschedule.ConfirmedTranscriptHash(s, tc.InterimTranscriptHashBefore, ac.ConfirmedTranscriptHashInput())
			if !bytes.Equal(confirmed, tc.ConfirmedTranscriptHashAfter) {
				t.Errorf("suite %d: confirmed transcript hash %x want %x", tc.CipherSuite, confirmed, tc.ConfirmedTranscriptHashAfter)
			}
			if tag := keyschedule.ConfirmationTag(s, tc.ConfirmationKey, confirmed); !bytes.Equal(tag, ac.Auth.ConfirmationTag) {
				t.Errorf("suite %d: confirmation tag %x want %x", tc.CipherSuite, tag, ac.Auth.ConfirmationTag)
			}
			interim := keyschedule.InterimTranscriptHash(s, confirmed, ac.Auth.ConfirmationTag)
			if !bytes.Equal(interim, tc.InterimTranscriptHashAfter) {
				t.Errorf("suite %d: interim transcript hash %x want %x", tc.CipherSuite, interim, tc.InterimTranscriptHashAfter)
			}
		})
	}
	c.Report(t, "transcript-hashes.json")
}
