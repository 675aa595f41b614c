package framing

import (
	"crypto/hmac"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/suite"
)

// PublicMessage is RFC 9420 §6.2:
//
//	struct {
//	    FramedContent content;
//	    FramedContentAuthData auth;
//	    select (PublicMessage.content.sender.sender_type) {
//	        case member: MAC membership_tag;
//	        case external: case new_member_commit: case new_member_proposal: struct{};
//	    };
//	} PublicMessage;
//
// Application data must not be sent as a PublicMessage (§6.2): decoding
// accepts it (so every encoding round-trips), [NewPublicMessage] refuses to
// build one, and [PublicMessage.CheckContentType] rejects it on receipt.
type PublicMessage struct {
	Content       FramedContent
	Auth          AuthData
	MembershipTag []byte
}

// Encode writes the PublicMessage.
func (p *PublicMessage) Encode(w *codec.Writer) {
	p.Content.Encode(w)
	p.Auth.encode(w, p.Content.ContentType)
	if p.Content.Sender.Type == SenderMember {
		w.Opaque(p.MembershipTag)
	}
}

func decodePublicMessage(r *codec.Reader) *PublicMessage {
	p := &PublicMessage{Content: decodeFramedContent(r)}
	p.Auth = decodeAuthData(r, p.Content.ContentType)
	if p.Content.Sender.Type == SenderMember {
		p.MembershipTag = r.OpaqueCopy()
	}
	return p
}

// AuthenticatedContent returns the message's content as an
// AuthenticatedContent with wire format mls_public_message.
func (p *PublicMessage) AuthenticatedContent() *AuthenticatedContent {
	return &AuthenticatedContent{WireFormat: WireFormatPublicMessage, Content: p.Content, Auth: p.Auth}
}

// membershipTag computes MAC(membership_key, AuthenticatedContentTBM) with
//
//	struct { FramedContentTBS content_tbs; FramedContentAuthData auth; } AuthenticatedContentTBM;
func membershipTag(s *suite.Suite, membershipKey []byte, c *FramedContent, a *AuthData, groupContext []byte) ([]byte, error) {
	w := codec.NewWriter(make([]byte, 0, 512))
	if err := tbs(w, WireFormatPublicMessage, c, groupContext); err != nil {
		return nil, err
	}
	a.encode(w, c.ContentType)
	return s.MAC(membershipKey, w.Bytes()), nil
}

// NewPublicMessage frames ac (whose wire format must be
// mls_public_message) as a PublicMessage, computing the membership tag
// with membershipKey when the sender is a member (RFC 9420 §6.2).
func NewPublicMessage(s *suite.Suite, ac *AuthenticatedContent, membershipKey, groupContext []byte) (*PublicMessage, error) {
	if ac.WireFormat != WireFormatPublicMessage {
		return nil, fmt.Errorf("%w: wire format %d is not public_message", ErrContentMismatch, ac.WireFormat)
	}
	if ac.Content.ContentType == ContentApplication {
		return nil, fmt.Errorf("%w: application data must be sent as a private message", ErrContentMismatch)
	}
	p := &PublicMessage{Content: ac.Content, Auth: ac.Auth}
	if ac.Content.Sender.Type == SenderMember {
		tag, err := membershipTag(s, membershipKey, &p.Content, &p.Auth, groupContext)
		if err != nil {
			return nil, err
		}
		p.MembershipTag = tag
	}
	return p, nil
}

// VerifyMembershipTag checks the membership tag of a message from a
// member (RFC 9420 §6.2). For other sender types there is no tag and it
// returns nil.
func (p *PublicMessage) VerifyMembershipTag(s *suite.Suite, membershipKey, groupContext []byte) error {
	if p.Content.Sender.Type != SenderMember {
		return nil
	}
	tag, err := membershipTag(s, membershipKey, &p.Content, &p.Auth, groupContext)
	if err != nil {
		return err
	}
	if !hmac.Equal(tag, p.MembershipTag) {
		return ErrMembershipTag
	}
	return nil
}

// CheckContentType rejects application content, which RFC 9420 §6.2 does
// not allow in a PublicMessage.
func (p *PublicMessage) CheckContentType() error {
	if p.Content.ContentType == ContentApplication {
		return fmt.Errorf("%w: application data in a public message", ErrContentMismatch)
	}
	return nil
}
