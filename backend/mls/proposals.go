package mls

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// appliedProposal is one entry of a commit's proposal list once references
// are resolved (RFC 9420 §12.4).
type appliedProposal struct {
	p      *proposal.Proposal
	sender sender
	byRef  bool
}

// addedMember is a leaf placed by an Add proposal.
type addedMember struct {
	leaf tm.LeafIndex
	kp   *tree.KeyPackage
}

// proposalResult is the effect of a valid proposal list on the next epoch.
type proposalResult struct {
	adds         []addedMember
	psks         []keyschedule.PSK
	pskIDs       []proposal.PreSharedKeyID
	extensions   tree.Extensions // new GroupContext extensions (the old ones if unchanged)
	reinit       *proposal.ReInit
	externalInit *proposal.ExternalInit
	removed      []tm.LeafIndex
	selfRemoved  bool
	pathRequired bool
}

// resolveProposals turns a commit's ProposalOrRef list into proposals with
// their senders: references must name proposals cached in this epoch.
func (g *Group) resolveProposals(list []proposal.OrRef, committer sender) ([]appliedProposal, error) {
	out := make([]appliedProposal, 0, len(list))
	for i := range list {
		o := &list[i]
		switch o.Type {
		case proposal.OrRefProposal:
			if o.Proposal == nil {
				return nil, fmt.Errorf("%w: empty proposal", ErrDecode)
			}
			out = append(out, appliedProposal{p: o.Proposal, sender: committer})
		case proposal.OrRefReference:
			if committer.kind == senderNewMemberCommit {
				return nil, fmt.Errorf("%w: an external commit cannot include proposals by reference", ErrExternalCommit)
			}
			found := false
			for j := range g.pending {
				if bytes.Equal(g.pending[j].ref, o.Reference) {
					out = append(out, appliedProposal{p: g.pending[j].p, sender: g.pending[j].sender, byRef: true})
					found = true
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%w: %x", ErrUnknownProposal, o.Reference)
			}
		default:
			return nil, fmt.Errorf("%w: proposal-or-ref type %d", ErrDecode, o.Type)
		}
	}
	return out, nil
}

func pathRequired(t proposal.Type) bool {
	switch t {
	case proposal.TypeAdd, proposal.TypePreSharedKey, proposal.TypeReInit:
		return false
	}
	return true
}

// applyProposals validates the proposal list of a commit by committer
// (RFC 9420 §12.2, and §12.4.3.2 for external commits) and applies it to t,
// a clone of the current tree, in the order of §12.4.2: extensions,
// updates, removes, adds. joiner is the external joiner's new leaf node.
func (g *Group) applyProposals(t *tree.Tree, props []appliedProposal, committer sender, joiner *tree.LeafNode) (*proposalResult, error) {
	res := &proposalResult{extensions: g.ctx.Extensions, pathRequired: len(props) == 0}
	external := committer.kind == senderNewMemberCommit
	var gce *proposal.GroupContextExtensions
	var updates, removes, adds, psks []appliedProposal
	touched := map[tm.LeafIndex]bool{}
	for _, ap := range props {
		p := ap.p
		if pathRequired(p.Type) {
			res.pathRequired = true
		}
		if external {
			switch p.Type {
			case proposal.TypeExternalInit, proposal.TypeRemove, proposal.TypePreSharedKey:
			default:
				return nil, fmt.Errorf("%w: %v proposal", ErrExternalCommit, p.Type)
			}
		}
		switch p.Type {
		case proposal.TypeAdd:
			if p.Add == nil {
				return nil, fmt.Errorf("%w: empty add", ErrDecode)
			}
			adds = append(adds, ap)
		case proposal.TypeUpdate:
			if p.Update == nil {
				return nil, fmt.Errorf("%w: empty update", ErrDecode)
			}
			if ap.sender.kind != senderMember {
				return nil, fmt.Errorf("%w: update from a non-member", ErrInvalidProposal)
			}
			if committer.kind == senderMember && ap.sender.leaf == committer.leaf {
				return nil, fmt.Errorf("%w: the committer's own update", ErrInvalidProposal)
			}
			if touched[ap.sender.leaf] {
				return nil, fmt.Errorf("%w: two updates or removes of leaf %d", ErrInvalidProposal, ap.sender.leaf)
			}
			touched[ap.sender.leaf] = true
			updates = append(updates, ap)
		case proposal.TypeRemove:
			if p.Remove == nil {
				return nil, fmt.Errorf("%w: empty remove", ErrDecode)
			}
			li := tm.LeafIndex(p.Remove.Removed)
			if p.Remove.Removed >= t.NumLeaves() || t.Leaf(li) == nil {
				return nil, fmt.Errorf("%w: remove of blank leaf %d", ErrInvalidProposal, li)
			}
			if committer.kind == senderMember && li == committer.leaf {
				return nil, fmt.Errorf("%w: the committer removes itself", ErrInvalidProposal)
			}
			if touched[li] {
				return nil, fmt.Errorf("%w: two updates or removes of leaf %d", ErrInvalidProposal, li)
			}
			touched[li] = true
			removes = append(removes, ap)
		case proposal.TypePreSharedKey:
			if p.PreSharedKey == nil {
				return nil, fmt.Errorf("%w: empty psk", ErrDecode)
			}
			psks = append(psks, ap)
		case proposal.TypeReInit:
			if p.ReInit == nil {
				return nil, fmt.Errorf("%w: empty reinit", ErrDecode)
			}
			if len(props) != 1 {
				return nil, fmt.Errorf("%w: reinit must be the only proposal", ErrInvalidProposal)
			}
			if p.ReInit.Version < tree.ProtocolVersionMLS10 {
				return nil, fmt.Errorf("%w: reinit to an older version", ErrInvalidProposal)
			}
			res.reinit = p.ReInit
		case proposal.TypeExternalInit:
			if p.ExternalInit == nil {
				return nil, fmt.Errorf("%w: empty external init", ErrDecode)
			}
			if !external {
				return nil, fmt.Errorf("%w: external init in a member commit", ErrInvalidProposal)
			}
			if res.externalInit != nil {
				return nil, fmt.Errorf("%w: more than one external init", ErrExternalCommit)
			}
			res.externalInit = p.ExternalInit
		case proposal.TypeGroupContextExtensions:
			if p.GroupContextExtensions == nil {
				return nil, fmt.Errorf("%w: empty group context extensions", ErrDecode)
			}
			if gce != nil {
				return nil, fmt.Errorf("%w: more than one group context extensions proposal", ErrInvalidProposal)
			}
			gce = p.GroupContextExtensions
		default:
			return nil, fmt.Errorf("%w: proposal type %v", ErrUnsupported, p.Type)
		}
	}
	if external {
		if res.externalInit == nil {
			return nil, fmt.Errorf("%w: no external init", ErrExternalCommit)
		}
		if len(removes) > 1 {
			return nil, fmt.Errorf("%w: more than one remove", ErrExternalCommit)
		}
		for _, r := range removes {
			old := t.Leaf(tm.LeafIndex(r.p.Remove.Removed))
			if joiner == nil || !sameCredential(&old.Credential, &joiner.Credential) {
				return nil, fmt.Errorf("%w: the remove is not of the joiner's own identity", ErrExternalCommit)
			}
		}
	}

	now := g.cfg.now()
	newCtx := g.ctx
	if gce != nil {
		newCtx.Extensions = gce.Extensions
		if err := g.checkExtensionsSupported(t, gce.Extensions); err != nil {
			return nil, err
		}
		res.extensions = gce.Extensions
	}
	lc, err := g.leafContext(&newCtx, now)
	if err != nil {
		return nil, fmt.Errorf("%w: required_capabilities: %w", ErrInvalidProposal, err)
	}
	for _, u := range updates {
		c := *lc
		c.Leaf, c.Source, c.Now = u.sender.leaf, tree.SourceUpdate, 0
		if err := t.ValidateLeaf(&u.p.Update.LeafNode, u.sender.leaf, &c); err != nil {
			return nil, fmt.Errorf("%w: update of leaf %d: %w", ErrInvalidProposal, u.sender.leaf, err)
		}
		ln := u.p.Update.LeafNode
		if err := t.UpdateLeaf(u.sender.leaf, &ln); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidProposal, err)
		}
	}
	for _, r := range removes {
		li := tm.LeafIndex(r.p.Remove.Removed)
		if err := t.RemoveLeaf(li); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidProposal, err)
		}
		res.removed = append(res.removed, li)
		if committer.kind != senderNewMemberCommit && g.priv != nil && li == g.priv.Leaf {
			res.selfRemoved = true
		}
	}
	for _, a := range adds {
		kp := &a.p.Add.KeyPackage
		c := *lc
		if err := kp.Validate(&c); err != nil {
			return nil, fmt.Errorf("%w: add: %w", ErrInvalidProposal, err)
		}
		// The new leaf must be unique in the tree as it stands (after the
		// removes and earlier adds): check against a leaf index outside it.
		c.SkipSignature, c.Source = true, tree.SourceKeyPackage
		if err := t.ValidateLeaf(&kp.LeafNode, tm.LeafIndex(t.NumLeaves()), &c); err != nil {
			return nil, fmt.Errorf("%w: add: %w", ErrInvalidProposal, err)
		}
		ln := kp.LeafNode
		li := t.AddLeaf(&ln)
		res.adds = append(res.adds, addedMember{leaf: li, kp: kp})
	}
	if err := g.resolvePSKs(psks, committer, res); err != nil {
		return nil, err
	}
	return res, nil
}

// checkExtensionsSupported checks that every member supports every
// non-default extension of a GroupContextExtensions proposal, and meets its
// required_capabilities (RFC 9420 §12.1.7, §11.1).
func (g *Group) checkExtensionsSupported(t *tree.Tree, exts tree.Extensions) error {
	var rc *tree.RequiredCapabilities
	if b, ok := exts.Find(tree.ExtRequiredCapabilities); ok {
		var err error
		if rc, err = tree.DecodeRequiredCapabilities(b); err != nil {
			return fmt.Errorf("%w: required_capabilities: %w", ErrInvalidProposal, err)
		}
	}
	var err error
	t.Members(func(i tm.LeafIndex, l *tree.LeafNode) {
		if err != nil {
			return
		}
		for _, e := range exts {
			if !tree.IsDefaultExtension(e.Type) && !l.Capabilities.SupportsExtension(e.Type) {
				err = fmt.Errorf("%w: leaf %d does not support extension %d", ErrInvalidProposal, i, e.Type)
				return
			}
		}
		if rc == nil {
			return
		}
		for _, x := range rc.Extensions {
			if !l.Capabilities.SupportsExtension(x) {
				err = fmt.Errorf("%w: leaf %d lacks required extension %d", ErrInvalidProposal, i, x)
				return
			}
		}
		for _, x := range rc.Proposals {
			if !l.Capabilities.SupportsProposal(x) {
				err = fmt.Errorf("%w: leaf %d lacks required proposal %d", ErrInvalidProposal, i, x)
				return
			}
		}
		for _, x := range rc.Credentials {
			if !l.Capabilities.SupportsCredential(x) {
				err = fmt.Errorf("%w: leaf %d lacks required credential %d", ErrInvalidProposal, i, x)
				return
			}
		}
	})
	return err
}

// resolvePSKs checks the PreSharedKey proposals (RFC 9420 §8.4, §12.2: no
// duplicates, nonce of length Nh, resumption only of usage application) and
// looks up each secret.
func (g *Group) resolvePSKs(psks []appliedProposal, committer sender, res *proposalResult) error {
	seen := map[string]bool{}
	for _, ap := range psks {
		id := ap.p.PreSharedKey.PSK
		w := codec.NewWriter(nil)
		id.Encode(w)
		key := string(w.Bytes())
		if seen[key] {
			return fmt.Errorf("%w: the same psk twice", ErrInvalidProposal)
		}
		seen[key] = true
		if len(id.Nonce) != g.cs.s.Nh() {
			return fmt.Errorf("%w: psk nonce of %d bytes", ErrInvalidProposal, len(id.Nonce))
		}
		secret, err := g.lookupPSK(&id)
		if err != nil {
			return err
		}
		res.pskIDs = append(res.pskIDs, id)
		res.psks = append(res.psks, keyschedule.PSK{ID: id, Secret: secret})
	}
	return nil
}

func (g *Group) lookupPSK(id *proposal.PreSharedKeyID) ([]byte, error) {
	switch id.Type {
	case proposal.PSKExternal:
		if g.cfg != nil && g.cfg.PSKs != nil {
			if s, ok := g.cfg.PSKs(id.PSKID); ok {
				return s, nil
			}
		}
		return nil, fmt.Errorf("%w: external psk %x", ErrPSK, id.PSKID)
	case proposal.PSKResumption:
		if id.Usage != proposal.UsageApplication {
			return nil, fmt.Errorf("%w: resumption psk of usage %d in a commit", ErrInvalidProposal, id.Usage)
		}
		if !bytes.Equal(id.PSKGroupID, g.ctx.GroupID) {
			return nil, fmt.Errorf("%w: resumption psk of another group", ErrPSK)
		}
		if s, ok := g.findResumption(id.PSKEpoch); ok {
			return s, nil
		}
		return nil, fmt.Errorf("%w: resumption psk of epoch %d", ErrPSK, id.PSKEpoch)
	}
	return nil, fmt.Errorf("%w: psk type %d", ErrInvalidProposal, id.Type)
}
