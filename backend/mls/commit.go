package mls

import (
	"bytes"
	"fmt"

	"weald/backend/mls/framing"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// CommitOptions say what a commit created by [Group.Commit] contains. Every
// proposal cached in this epoch (received, or sent with [Group.Propose]) is
// included by reference, except this member's own Updates (its path
// replaces them); the fields below add proposals by value.
type CommitOptions struct {
	// Add are KeyPackage MLSMessages (or bare KeyPackages) to add.
	Add [][]byte
	// Remove are leaf indices to remove.
	Remove []uint32
	// PSKs are pre-shared keys to inject (RFC 9420 §8.4).
	PSKs []proposal.PreSharedKeyID
	// Extensions, if non-nil, replace the GroupContext extensions
	// (a GroupContextExtensions proposal).
	Extensions tree.Extensions
	// Proposals are further proposals by value (for instance a ReInit).
	Proposals []*proposal.Proposal
	// ForcePath includes a path even when the proposals do not require
	// one (a self-update commit: fresh leaf and path keys).
	ForcePath bool
	// SignatureKey, if set, replaces this member's leaf signature key in
	// the commit's path leaf (a path is then included), with
	// LeafExtensions, if non-nil, replacing the leaf's extensions (the
	// binding of the new key). The commit itself is signed with the old key.
	SignatureKey   []byte
	LeafExtensions tree.Extensions
	// Private sends the commit as a PrivateMessage instead of a
	// PublicMessage.
	Private bool
	// RatchetTreeInWelcome puts the ratchet_tree extension in the
	// Welcome's GroupInfo; otherwise joiners need [Group.RatchetTree].
	RatchetTreeInWelcome bool
	// AuthenticatedData is carried, authenticated, in the FramedContent.
	AuthenticatedData []byte
}

// decodeKeyPackage accepts a KeyPackage MLSMessage or a bare KeyPackage.
func decodeKeyPackage(b []byte) (*tree.KeyPackage, error) {
	if body, err := expectMLSMessage(b, wireKeyPackage); err == nil {
		b = body
	}
	kp, err := tree.DecodeKeyPackage(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return kp, nil
}

// KeyPackageIdentity returns the credential identity of a KeyPackage (an
// MLSMessage or bare), without validating it.
func KeyPackageIdentity(b []byte) ([]byte, error) {
	kp, err := decodeKeyPackage(b)
	if err != nil {
		return nil, err
	}
	return kp.LeafNode.Credential.Identity, nil
}

// ValidateKeyPackage decodes a KeyPackage (an MLSMessage or bare) and
// validates it for an Add to this group as a commit would (RFC 9420 §10.1:
// version, suite, signatures, lifetime, capabilities and the
// authentication hook), so an adder can refuse it before committing.
func (g *Group) ValidateKeyPackage(b []byte) (*tree.KeyPackage, error) {
	kp, err := decodeKeyPackage(b)
	if err != nil {
		return nil, err
	}
	lc, err := g.leafContext(&g.ctx, g.cfg.now())
	if err != nil {
		return nil, err
	}
	if err := kp.Validate(lc); err != nil {
		return nil, fmt.Errorf("%w: add: %w", ErrInvalidProposal, err)
	}
	return kp, nil
}

// Commit creates a commit (RFC 9420 §12.4) from the cached proposals and
// opts, and stages it: the group is unchanged until [Group.Merge]. The
// staged commit's Message is to be sent to the group and its Welcome (if
// members were added) to the new members.
func (g *Group) Commit(opts CommitOptions) (*StagedCommit, error) {
	if err := g.canSend(); err != nil {
		return nil, err
	}
	me := sender{kind: senderMember, leaf: g.priv.Leaf}
	var refs, list []proposal.OrRef
	for _, p := range g.pending {
		if p.sender.kind == senderMember && p.sender.leaf == me.leaf && p.p.Type == proposal.TypeUpdate {
			continue
		}
		refs = append(refs, proposal.OrRef{Type: proposal.OrRefReference, Reference: p.ref})
	}
	byValue := func(p *proposal.Proposal) {
		list = append(list, proposal.OrRef{Type: proposal.OrRefProposal, Proposal: p})
	}
	if opts.Extensions != nil {
		byValue(&proposal.Proposal{Type: proposal.TypeGroupContextExtensions, GroupContextExtensions: &proposal.GroupContextExtensions{Extensions: opts.Extensions}})
	}
	for _, r := range opts.Remove {
		byValue(&proposal.Proposal{Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: r}})
	}
	for _, b := range opts.Add {
		kp, err := decodeKeyPackage(b)
		if err != nil {
			return nil, err
		}
		byValue(&proposal.Proposal{Type: proposal.TypeAdd, Add: &proposal.Add{KeyPackage: *kp}})
	}
	for i := range opts.PSKs {
		byValue(&proposal.Proposal{Type: proposal.TypePreSharedKey, PreSharedKey: &proposal.PreSharedKey{PSK: opts.PSKs[i]}})
	}
	for _, p := range opts.Proposals {
		byValue(p)
	}
	list, t, res, err := g.chooseProposals(refs, list, me)
	if err != nil {
		return nil, err
	}
	priv := g.priv.Clone()
	in := &epochInput{committer: me, tree: t, priv: priv, res: res}
	commit := &proposal.Commit{Proposals: list}
	var ps *tree.PathSecrets
	if res.pathRequired || opts.ForcePath || opts.SignatureKey != nil {
		own := *t.Leaf(me.leaf)
		if opts.SignatureKey != nil {
			sk, err := parseOwnSigningKey(g.cs, opts.SignatureKey)
			if err != nil {
				return nil, err
			}
			own.SignatureKey = sk.Public()
			priv.SignatureKey = append([]byte(nil), opts.SignatureKey...)
			if opts.LeafExtensions != nil {
				own.Extensions = append(tree.Extensions{}, opts.LeafExtensions...)
			}
		}
		excluded := make([]tm.LeafIndex, 0, len(res.adds))
		for _, a := range res.adds {
			excluded = append(excluded, a.leaf)
		}
		var up *tree.UpdatePath
		up, ps, err = t.CreateUpdatePath(&tree.PathOptions{
			Rand:         g.cs.rand,
			GroupID:      g.ctx.GroupID,
			Leaf:         &own,
			SignatureKey: priv.SignatureKey,
			Excluded:     excluded,
			GroupContext: func(treeHash []byte) ([]byte, error) {
				c := g.provisionalContext(res.extensions, treeHash)
				return c.Bytes(), nil
			},
			PrivateBefore: priv,
			Parallel:      g.cfg.parallel(),
		})
		if err != nil {
			return nil, err
		}
		commit.Path = up
		in.commitSecret = ps.CommitSecret
	}
	content := framing.FramedContent{
		GroupID:           g.ctx.GroupID,
		Epoch:             g.ctx.Epoch,
		Sender:            framing.Member(uint32(me.leaf)),
		AuthenticatedData: orEmpty(opts.AuthenticatedData),
		ContentType:       framing.ContentCommit,
		Commit:            commit,
	}
	ac, err := g.sign(content, opts.Private)
	if err != nil {
		return nil, err
	}
	in.confirmedInput = ac.ConfirmedTranscriptHashInput()
	next, es, tag, err := g.nextEpoch(in)
	if err != nil {
		return nil, err
	}
	ac.Auth.ConfirmationTag = tag
	msg, err := g.frame(ac)
	if err != nil {
		return nil, err
	}
	sc := g.staged(next, es, res, ps)
	sc.Message = msg
	if len(res.adds) > 0 {
		if sc.Welcome, err = g.makeWelcome(sc, opts.RatchetTreeInWelcome); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// chooseProposals applies the cached proposals (refs) and the ones given
// by value. If together they are not a valid list, the committer leaves out
// the cached proposals that make it invalid (RFC 9420 §12.2: invalid
// proposals are not committed), keeping each one that still fits; the
// by-value proposals must be valid on their own.
func (g *Group) chooseProposals(refs, byValue []proposal.OrRef, me sender) ([]proposal.OrRef, *tree.Tree, *proposalResult, error) {
	try := func(list []proposal.OrRef) (*tree.Tree, *proposalResult, error) {
		props, err := g.resolveProposals(list, me)
		if err != nil {
			return nil, nil, err
		}
		t := g.tree.Clone()
		res, err := g.applyProposals(t, props, me, nil)
		return t, res, err
	}
	all := append(append([]proposal.OrRef{}, refs...), byValue...)
	t, res, err := try(all)
	if err == nil || len(refs) == 0 {
		return all, t, res, err
	}
	kept := []proposal.OrRef{}
	for _, r := range refs {
		cand := append(append(append([]proposal.OrRef{}, kept...), r), byValue...)
		if _, _, err := try(cand); err == nil {
			kept = append(kept, r)
		}
	}
	all = append(kept, byValue...)
	t, res, err = try(all)
	return all, t, res, err
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// sign signs content as this member for a PublicMessage or PrivateMessage.
func (g *Group) sign(content framing.FramedContent, private bool) (*framing.AuthenticatedContent, error) {
	key, err := g.cs.s.ParseSigningKey(g.priv.SignatureKey)
	if err != nil {
		return nil, fmt.Errorf("%w: own signature key: %w", ErrState, err)
	}
	wf := framing.WireFormatPublicMessage
	if private {
		wf = framing.WireFormatPrivateMessage
	}
	return framing.Sign(g.cs.s, g.cs.rand, key, wf, content, g.ctx.Bytes())
}

// frame wraps signed content as an MLSMessage: a PublicMessage with a
// membership tag, or a PrivateMessage encrypted under this epoch's secret
// tree (RFC 9420 §6.2, §6.3).
func (g *Group) frame(ac *framing.AuthenticatedContent) ([]byte, error) {
	m := &framing.MLSMessage{WireFormat: ac.WireFormat}
	var err error
	switch ac.WireFormat {
	case framing.WireFormatPublicMessage:
		m.Public, err = framing.NewPublicMessage(g.cs.s, ac, g.keys.membership, g.ctx.Bytes())
	case framing.WireFormatPrivateMessage:
		pad := 0
		if g.cfg != nil {
			pad = g.cfg.Padding
		}
		m.Private, err = framing.Encrypt(g.cs.s, g.cs.rand, g.st, g.keys.senderData, ac, pad)
	}
	if err != nil {
		return nil, err
	}
	return m.Bytes(), nil
}

// Protect encrypts application data as a PrivateMessage (RFC 9420 §6.3)
// with authenticatedData carried in the clear but authenticated.
func (g *Group) Protect(data, authenticatedData []byte) ([]byte, error) {
	if err := g.canSend(); err != nil {
		return nil, err
	}
	content := framing.FramedContent{
		GroupID:           g.ctx.GroupID,
		Epoch:             g.ctx.Epoch,
		Sender:            framing.Member(uint32(g.priv.Leaf)),
		AuthenticatedData: orEmpty(authenticatedData),
		ContentType:       framing.ContentApplication,
		ApplicationData:   orEmpty(data),
	}
	ac, err := g.sign(content, true)
	if err != nil {
		return nil, err
	}
	return g.frame(ac)
}

// Propose sends a proposal (RFC 9420 §12.1) and caches it, so that this
// member's next commit includes it by reference.
func (g *Group) Propose(p *proposal.Proposal, private bool) ([]byte, error) {
	if err := g.canSend(); err != nil {
		return nil, err
	}
	content := framing.FramedContent{
		GroupID:           g.ctx.GroupID,
		Epoch:             g.ctx.Epoch,
		Sender:            framing.Member(uint32(g.priv.Leaf)),
		AuthenticatedData: []byte{},
		ContentType:       framing.ContentProposal,
		Proposal:          p,
	}
	ac, err := g.sign(content, private)
	if err != nil {
		return nil, err
	}
	msg, err := g.frame(ac)
	if err != nil {
		return nil, err
	}
	g.pending = append(g.pending, pendingProposal{
		ref:    g.cs.s.MakeProposalRef(ac.Bytes()),
		p:      p,
		sender: sender{kind: senderMember, leaf: g.priv.Leaf},
	})
	return msg, nil
}

// ProposeUpdate proposes a fresh leaf for this member (an Update proposal,
// RFC 9420 §12.1.2). The new encryption key is remembered so the leaf can
// be used once another member commits the proposal.
func (g *Group) ProposeUpdate(private bool) ([]byte, error) {
	if !g.active {
		return nil, ErrNotMember
	}
	kp, err := g.cs.s.GenerateKeyPair(g.cs.rand)
	if err != nil {
		return nil, err
	}
	ln := *g.tree.Leaf(g.priv.Leaf)
	ln.EncryptionKey = kp.Public
	ln.Source = tree.SourceUpdate
	ln.Lifetime, ln.ParentHash = tree.Lifetime{}, nil
	if err := ln.Sign(g.cs, g.priv.SignatureKey, g.ctx.GroupID, g.priv.Leaf); err != nil {
		return nil, err
	}
	msg, err := g.Propose(&proposal.Proposal{Type: proposal.TypeUpdate, Update: &proposal.Update{LeafNode: ln}}, private)
	if err != nil {
		return nil, err
	}
	g.pendingUpdateKey = &updateKey{pub: kp.Public, priv: kp.Private}
	return msg, nil
}

// updateKey is the private key of this member's proposed Update leaf.
type updateKey struct{ pub, priv []byte }

// adoptUpdateKey switches priv to the private key of our own Update once a
// commit applied it to t (before the commit's path is decrypted).
func (g *Group) adoptUpdateKey(t *tree.Tree, priv *tree.PrivateState) {
	if g.pendingUpdateKey == nil {
		return
	}
	if l := t.Leaf(priv.Leaf); l != nil && bytes.Equal(l.EncryptionKey, g.pendingUpdateKey.pub) {
		priv.EncryptionKey = g.pendingUpdateKey.priv
	}
}
