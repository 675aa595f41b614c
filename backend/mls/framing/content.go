package framing

import (
	"fmt"
	"io"

	"weald/backend/internal/codec"
	"weald/backend/mls/proposal"
	"weald/backend/mls/suite"
)

// ProtocolVersion mls10 (RFC 9420 §6).
const ProtocolVersion uint16 = 1

// WireFormat is RFC 9420 §6 WireFormat.
type WireFormat uint16

// Wire formats (RFC 9420 §17.2).
const (
	WireFormatPublicMessage  WireFormat = 1
	WireFormatPrivateMessage WireFormat = 2
	WireFormatWelcome        WireFormat = 3
	WireFormatGroupInfo      WireFormat = 4
	WireFormatKeyPackage     WireFormat = 5
)

// ContentType is RFC 9420 §6 ContentType.
type ContentType uint8

// Content types.
const (
	ContentApplication ContentType = 1
	ContentProposal    ContentType = 2
	ContentCommit      ContentType = 3
)

func (c ContentType) valid() bool { return c >= ContentApplication && c <= ContentCommit }

// SenderType is RFC 9420 §6 SenderType.
type SenderType uint8

// Sender types.
const (
	SenderMember            SenderType = 1
	SenderExternal          SenderType = 2
	SenderNewMemberProposal SenderType = 3
	SenderNewMemberCommit   SenderType = 4
)

// Sender is RFC 9420 §6 Sender. Index is the leaf_index of a member or
// the sender_index (into external_senders) of an external sender; it is
// zero for the new-member types.
type Sender struct {
	Type  SenderType
	Index uint32
}

// Member returns the Sender for the member at leaf.
func Member(leaf uint32) Sender { return Sender{Type: SenderMember, Index: leaf} }

// Encode writes the Sender.
func (s Sender) Encode(w *codec.Writer) {
	w.U8(uint8(s.Type))
	if s.Type == SenderMember || s.Type == SenderExternal {
		w.U32(s.Index)
	}
}

func decodeSender(r *codec.Reader) Sender {
	s := Sender{Type: SenderType(r.U8())}
	switch s.Type {
	case SenderMember, SenderExternal:
		s.Index = r.U32()
	case SenderNewMemberProposal, SenderNewMemberCommit:
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: sender type %d", ErrDecode, s.Type))
		}
	}
	return s
}

// needsContext reports whether FramedContentTBS includes the GroupContext
// for this sender (member and new_member_commit, RFC 9420 §6.1).
func (s Sender) needsContext() bool {
	return s.Type == SenderMember || s.Type == SenderNewMemberCommit
}

// FramedContent is RFC 9420 §6:
//
//	struct {
//	    opaque group_id<V>;
//	    uint64 epoch;
//	    Sender sender;
//	    opaque authenticated_data<V>;
//	    ContentType content_type;
//	    select (FramedContent.content_type) {
//	        case application: opaque application_data<V>;
//	        case proposal:    Proposal proposal;
//	        case commit:      Commit commit;
//	    };
//	} FramedContent;
//
// Exactly one of ApplicationData, Proposal, Commit is meaningful, the one
// ContentType names.
type FramedContent struct {
	GroupID           []byte
	Epoch             uint64
	Sender            Sender
	AuthenticatedData []byte
	ContentType       ContentType
	ApplicationData   []byte
	Proposal          *proposal.Proposal
	Commit            *proposal.Commit
}

// Encode writes the FramedContent.
func (c *FramedContent) Encode(w *codec.Writer) {
	w.Opaque(c.GroupID)
	w.U64(c.Epoch)
	c.Sender.Encode(w)
	w.Opaque(c.AuthenticatedData)
	w.U8(uint8(c.ContentType))
	c.encodeBody(w)
}

// encodeBody writes the content_type-selected body.
func (c *FramedContent) encodeBody(w *codec.Writer) {
	switch c.ContentType {
	case ContentApplication:
		w.Opaque(c.ApplicationData)
	case ContentProposal:
		if c.Proposal != nil {
			c.Proposal.Encode(w)
		}
	case ContentCommit:
		if c.Commit != nil {
			c.Commit.Encode(w)
		}
	}
}

func (c *FramedContent) decodeBody(r *codec.Reader) {
	switch c.ContentType {
	case ContentApplication:
		c.ApplicationData = r.OpaqueCopy()
		if c.ApplicationData == nil {
			c.ApplicationData = []byte{}
		}
	case ContentProposal:
		c.Proposal = new(proposal.Proposal)
		c.Proposal.Decode(r)
	case ContentCommit:
		c.Commit = new(proposal.Commit)
		c.Commit.Decode(r)
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: content type %d", ErrDecode, c.ContentType))
		}
	}
}

func decodeFramedContent(r *codec.Reader) FramedContent {
	var c FramedContent
	c.GroupID = r.OpaqueCopy()
	c.Epoch = r.U64()
	c.Sender = decodeSender(r)
	c.AuthenticatedData = r.OpaqueCopy()
	c.ContentType = ContentType(r.U8())
	c.decodeBody(r)
	return c
}

// AuthData is RFC 9420 §6.1 FramedContentAuthData:
//
//	struct {
//	    opaque signature<V>;
//	    select (FramedContent.content_type) {
//	        case commit: MAC confirmation_tag;   // opaque<V>
//	        case application: case proposal: struct{};
//	    };
//	} FramedContentAuthData;
type AuthData struct {
	Signature       []byte
	ConfirmationTag []byte
}

func (a *AuthData) encode(w *codec.Writer, ct ContentType) {
	w.Opaque(a.Signature)
	if ct == ContentCommit {
		w.Opaque(a.ConfirmationTag)
	}
}

func decodeAuthData(r *codec.Reader, ct ContentType) AuthData {
	var a AuthData
	a.Signature = r.OpaqueCopy()
	if ct == ContentCommit {
		a.ConfirmationTag = r.OpaqueCopy()
	}
	return a
}

// AuthenticatedContent is RFC 9420 §6.1:
//
//	struct {
//	    WireFormat wire_format;
//	    FramedContent content;
//	    FramedContentAuthData auth;
//	} AuthenticatedContent;
type AuthenticatedContent struct {
	WireFormat WireFormat
	Content    FramedContent
	Auth       AuthData
}

// Encode writes the AuthenticatedContent.
func (a *AuthenticatedContent) Encode(w *codec.Writer) {
	w.U16(uint16(a.WireFormat))
	a.Content.Encode(w)
	a.Auth.encode(w, a.Content.ContentType)
}

// Bytes returns the encoding (the input of MakeProposalRef, RFC 9420 §5.2).
func (a *AuthenticatedContent) Bytes() []byte {
	w := codec.NewWriter(make([]byte, 0, 256))
	a.Encode(w)
	return w.Bytes()
}

// DecodeAuthenticatedContent decodes exactly one AuthenticatedContent.
func DecodeAuthenticatedContent(b []byte) (*AuthenticatedContent, error) {
	r := codec.NewReader(b)
	a := &AuthenticatedContent{WireFormat: WireFormat(r.U16())}
	a.Content = decodeFramedContent(r)
	a.Auth = decodeAuthData(r, a.Content.ContentType)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: authenticated content: %w", ErrDecode, err)
	}
	return a, nil
}

// ConfirmedTranscriptHashInput returns the encoding of RFC 9420 §8.2
//
//	struct { WireFormat wire_format; FramedContent content; opaque signature<V>; } ConfirmedTranscriptHashInput;
func (a *AuthenticatedContent) ConfirmedTranscriptHashInput() []byte {
	w := codec.NewWriter(make([]byte, 0, 256))
	w.U16(uint16(a.WireFormat))
	a.Content.Encode(w)
	w.Opaque(a.Auth.Signature)
	return w.Bytes()
}

// tbs returns the encoding of FramedContentTBS (RFC 9420 §6.1):
//
//	struct {
//	    ProtocolVersion version = mls10;
//	    WireFormat wire_format;
//	    FramedContent content;
//	    select (FramedContentTBS.content.sender.sender_type) {
//	        case member: case new_member_commit: GroupContext context;
//	        case external: case new_member_proposal: struct{};
//	    };
//	} FramedContentTBS;
//
// groupContext is the encoded GroupContext of the current epoch.
func tbs(w *codec.Writer, wf WireFormat, c *FramedContent, groupContext []byte) error {
	w.U16(ProtocolVersion)
	w.U16(uint16(wf))
	c.Encode(w)
	if c.Sender.needsContext() {
		if groupContext == nil {
			return ErrGroupContext
		}
		w.Raw(groupContext)
	}
	return w.Err()
}

const tbsLabel = "FramedContentTBS"

// Sign builds the AuthenticatedContent of content for wire format wf,
// signing FramedContentTBS with key (RFC 9420 §6.1). For a commit the
// caller sets Auth.ConfirmationTag afterwards (it depends on the
// signature through the confirmed transcript hash).
func Sign(s *suite.Suite, rand io.Reader, key *suite.SigningKey, wf WireFormat, content FramedContent, groupContext []byte) (*AuthenticatedContent, error) {
	if !content.ContentType.valid() {
		return nil, fmt.Errorf("%w: content type %d", ErrDecode, content.ContentType)
	}
	if wf == WireFormatPrivateMessage && content.Sender.Type != SenderMember {
		return nil, ErrSender
	}
	if wf != WireFormatPublicMessage && wf != WireFormatPrivateMessage {
		return nil, fmt.Errorf("%w: wire format %d", ErrDecode, wf)
	}
	w := codec.NewWriter(make([]byte, 0, 512))
	if err := tbs(w, wf, &content, groupContext); err != nil {
		return nil, err
	}
	sig, err := s.SignWithLabel(rand, key, tbsLabel, w.Bytes())
	if err != nil {
		return nil, err
	}
	return &AuthenticatedContent{WireFormat: wf, Content: content, Auth: AuthData{Signature: sig}}, nil
}

// VerifySignature checks the content signature under the sender's
// signature public key pub (RFC 9420 §6.1). groupContext is the encoded
// GroupContext of the epoch (required for member and new_member_commit
// senders).
func (a *AuthenticatedContent) VerifySignature(s *suite.Suite, pub, groupContext []byte) error {
	w := codec.NewWriter(make([]byte, 0, 512))
	if err := tbs(w, a.WireFormat, &a.Content, groupContext); err != nil {
		return err
	}
	if err := s.VerifyWithLabel(pub, tbsLabel, w.Bytes(), a.Auth.Signature); err != nil {
		return fmt.Errorf("%w: %w", ErrSignature, err)
	}
	return nil
}
