package mls

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// ContentType is RFC 9420 §6 ContentType.
type ContentType = framing.ContentType

// Content types.
const (
	ContentApplication = framing.ContentApplication
	ContentProposal    = framing.ContentProposal
	ContentCommit      = framing.ContentCommit
)

// Received is an authenticated message of the current epoch.
type Received struct {
	Type ContentType
	// SenderType and Sender: the sender's RFC 9420 §6 type and its leaf
	// (members) or external_senders index (external senders).
	SenderType        framing.SenderType
	Sender            uint32
	AuthenticatedData []byte
	// Application is the application data (Type application).
	Application []byte
	// Proposal is the proposal, now cached for the next commit (Type proposal).
	Proposal *proposal.Proposal
	// Commit is the validated commit, to be applied with [Group.Merge]
	// (Type commit).
	Commit *StagedCommit
	// PastEpoch marks an application message of the previous epoch,
	// delivered after the commit that ended it.
	PastEpoch bool
}

// Process authenticates and interprets an MLSMessage holding a
// PublicMessage or PrivateMessage of the current epoch (RFC 9420 §6,
// §12). A proposal is cached; a commit is validated and staged, and takes
// effect only when the caller merges it. On error the group is unchanged.
func (g *Group) Process(msg []byte) (*Received, error) {
	if !g.active {
		return nil, ErrNotMember
	}
	m, err := framing.DecodeMLSMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	var ac *framing.AuthenticatedContent
	var dec *framing.Decrypted
	switch m.WireFormat {
	case framing.WireFormatPublicMessage:
		pm := m.Public
		if err := g.checkGroupEpoch(pm.Content.GroupID, pm.Content.Epoch); err != nil {
			return nil, err
		}
		if err := pm.CheckContentType(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrWireFormat, err)
		}
		if pm.Content.Sender.Type == framing.SenderMember {
			if err := pm.VerifyMembershipTag(g.cs.s, g.keys.membership, g.ctx.Bytes()); err != nil {
				return nil, err
			}
		}
		ac = pm.AuthenticatedContent()
	case framing.WireFormatPrivateMessage:
		pm := m.Private
		if g.past != nil && bytes.Equal(pm.GroupID, g.ctx.GroupID) && pm.Epoch == g.past.epoch && pm.Epoch+1 == g.ctx.Epoch {
			return g.processPast(pm)
		}
		if err := g.checkGroupEpoch(pm.GroupID, pm.Epoch); err != nil {
			return nil, err
		}
		if dec, err = framing.Decrypt(g.cs.s, g.st, g.keys.senderData, pm); err != nil {
			return nil, err
		}
		ac = dec.Content
		if ac.Content.Sender.Type != framing.SenderMember || ac.Content.Sender.Index != uint32(dec.Leaf) {
			return nil, fmt.Errorf("%w: sender data and content disagree", ErrSender)
		}
	default:
		return nil, fmt.Errorf("%w: wire format %d is not a public or private message", ErrWireFormat, m.WireFormat)
	}
	c := &ac.Content
	pub, err := g.senderKey(c)
	if err != nil {
		return nil, err
	}
	if err := ac.VerifySignature(g.cs.s, pub, g.ctx.Bytes()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	rcv := &Received{Type: c.ContentType, SenderType: c.Sender.Type, Sender: c.Sender.Index, AuthenticatedData: c.AuthenticatedData}
	var pendingAdd *pendingProposal
	switch c.ContentType {
	case framing.ContentApplication:
		if m.WireFormat != framing.WireFormatPrivateMessage {
			return nil, fmt.Errorf("%w: application data in a public message", ErrWireFormat)
		}
		rcv.Application = c.ApplicationData
	case framing.ContentProposal:
		if c.Proposal == nil {
			return nil, fmt.Errorf("%w: empty proposal", ErrDecode)
		}
		if err := g.checkProposalSender(c); err != nil {
			return nil, err
		}
		rcv.Proposal = c.Proposal
		pendingAdd = &pendingProposal{ref: g.cs.s.MakeProposalRef(ac.Bytes()), p: c.Proposal, sender: senderOf(c.Sender)}
	case framing.ContentCommit:
		if c.Commit == nil {
			return nil, fmt.Errorf("%w: empty commit", ErrDecode)
		}
		if c.Sender.Type == framing.SenderNewMemberCommit && m.WireFormat != framing.WireFormatPublicMessage {
			return nil, fmt.Errorf("%w: an external commit must be a public message", ErrExternalCommit)
		}
		sc, err := g.stageCommit(&receivedCommit{
			committer:       senderOf(c.Sender),
			commit:          c.Commit,
			confirmedInput:  ac.ConfirmedTranscriptHashInput(),
			confirmationTag: ac.Auth.ConfirmationTag,
		})
		if err != nil {
			return nil, err
		}
		rcv.Commit = sc
	default:
		return nil, fmt.Errorf("%w: content type %d", ErrDecode, c.ContentType)
	}
	// Accepted: only now change state (RFC 9420 §9.2 key deletion).
	if dec != nil {
		if err := dec.Consume(g.st); err != nil {
			return nil, err
		}
	}
	if pendingAdd != nil {
		g.pending = append(g.pending, *pendingAdd)
	}
	return rcv, nil
}

func senderOf(s framing.Sender) sender {
	return sender{kind: senderKind(s.Type), leaf: tm.LeafIndex(s.Index)}
}

func (g *Group) checkGroupEpoch(groupID []byte, epoch uint64) error {
	if !bytes.Equal(groupID, g.ctx.GroupID) {
		return ErrWrongGroup
	}
	if epoch != g.ctx.Epoch {
		return fmt.Errorf("%w: message of epoch %d, group at %d", ErrWrongEpoch, epoch, g.ctx.Epoch)
	}
	return nil
}

// senderKey returns the signature public key that must have signed c
// (RFC 9420 §6.1): the member's leaf, the external sender's key, the
// key package of a new_member_proposal Add, or the path leaf of an
// external commit.
func (g *Group) senderKey(c *framing.FramedContent) ([]byte, error) {
	switch c.Sender.Type {
	case framing.SenderMember:
		if c.Sender.Index >= g.tree.NumLeaves() {
			return nil, fmt.Errorf("%w: leaf %d outside the tree", ErrSender, c.Sender.Index)
		}
		l, err := g.memberLeaf(g.tree, tm.LeafIndex(c.Sender.Index))
		if err != nil {
			return nil, err
		}
		return l.SignatureKey, nil
	case framing.SenderExternal:
		senders, err := g.externalSenders()
		if err != nil {
			return nil, err
		}
		if int(c.Sender.Index) >= len(senders) {
			return nil, fmt.Errorf("%w: no external sender %d", ErrSender, c.Sender.Index)
		}
		return senders[c.Sender.Index].SignatureKey, nil
	case framing.SenderNewMemberProposal:
		if c.ContentType != framing.ContentProposal || c.Proposal == nil || c.Proposal.Type != proposal.TypeAdd || c.Proposal.Add == nil {
			return nil, fmt.Errorf("%w: a new member may only propose its own Add", ErrSender)
		}
		return c.Proposal.Add.KeyPackage.LeafNode.SignatureKey, nil
	case framing.SenderNewMemberCommit:
		if c.ContentType != framing.ContentCommit || c.Commit == nil || c.Commit.Path == nil {
			return nil, fmt.Errorf("%w: an external commit needs a path", ErrExternalCommit)
		}
		return c.Commit.Path.LeafNode.SignatureKey, nil
	}
	return nil, fmt.Errorf("%w: sender type %d", ErrSender, c.Sender.Type)
}

// checkProposalSender applies RFC 9420 §12.1.8 and §12.1: external senders
// may propose Add, Remove, PreSharedKey, ReInit and GroupContextExtensions;
// new members only their own Add; ExternalInit is never sent as a proposal.
func (g *Group) checkProposalSender(c *framing.FramedContent) error {
	t := c.Proposal.Type
	if t == proposal.TypeExternalInit {
		return fmt.Errorf("%w: external init sent as a proposal", ErrInvalidProposal)
	}
	switch c.Sender.Type {
	case framing.SenderExternal:
		if t == proposal.TypeUpdate {
			return fmt.Errorf("%w: update from an external sender", ErrSender)
		}
	case framing.SenderNewMemberProposal:
		if t != proposal.TypeAdd {
			return fmt.Errorf("%w: new member proposal of type %v", ErrSender, t)
		}
	}
	if t == proposal.TypeUpdate && c.Proposal.Update != nil {
		lc, err := g.leafContext(&g.ctx, 0)
		if err != nil {
			return err
		}
		lc.Leaf, lc.Source = tm.LeafIndex(c.Sender.Index), tree.SourceUpdate
		if err := g.tree.ValidateLeaf(&c.Proposal.Update.LeafNode, lc.Leaf, lc); err != nil {
			return fmt.Errorf("%w: update: %w", ErrInvalidProposal, err)
		}
	}
	return nil
}

// ExternalSender is RFC 9420 §12.1.8.1 ExternalSender.
type ExternalSender struct {
	SignatureKey []byte
	Credential   tree.Credential
}

// externalSenders parses the group's external_senders extension.
func (g *Group) externalSenders() ([]ExternalSender, error) {
	b, ok := g.ctx.Extensions.Find(tree.ExtExternalSenders)
	if !ok {
		return nil, fmt.Errorf("%w: the group has no external senders", ErrSender)
	}
	r := codec.NewReader(b)
	var out []ExternalSender
	r.Vector(func(r *codec.Reader) {
		var es ExternalSender
		es.SignatureKey = r.OpaqueCopy()
		es.Credential.Decode(r)
		out = append(out, es)
	})
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: external_senders: %w", ErrDecode, err)
	}
	return out, nil
}
