package mls

import (
	"crypto/hmac"
	"fmt"

	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// StagedCommit is a validated commit whose effects are computed but not yet
// applied (RFC 9420 §12.4.2): Merge makes it the group's new epoch;
// dropping it leaves the group exactly as it was.
type StagedCommit struct {
	base *Group // the group the commit was staged on
	next *Group // the group after the commit
	// baseEpoch guards against merging after the group moved on.
	baseEpoch uint64
	// Message is the commit as an MLSMessage (for commits created here).
	Message []byte
	// Welcome is the Welcome MLSMessage for the members added, or nil.
	Welcome []byte
	// Added are the leaf indices of the members the commit adds.
	Added []uint32
	// Removed are the leaf indices of the members the commit removes.
	Removed []uint32
	// SelfRemoved reports that the commit removes this member.
	SelfRemoved bool
	// ReInit is set when the commit carries a ReInit proposal: the group
	// is then to be continued in a new one.
	ReInit *proposal.ReInit

	// joiner is the new member of an external commit (sender
	// new_member_commit), nil otherwise.
	joiner *Member

	// Kept for building the Welcome and GroupInfo of created commits.
	res         *proposalResult
	pathSecrets *tree.PathSecrets
	es          *keyschedule.EpochSecrets
}

// Joiner returns the member an external commit (sender new_member_commit,
// RFC 9420 §12.4.3.2) adds: its leaf index in the new epoch, credential and
// signature public key, known before Merge. ok is false for a commit by a
// member.
func (sc *StagedCommit) Joiner() (m Member, ok bool) {
	if sc == nil || sc.joiner == nil {
		return Member{}, false
	}
	j := sc.joiner
	return Member{Index: j.Index, Credential: cloneCredential(j.Credential), SignatureKey: append([]byte(nil), j.SignatureKey...)}, true
}

// AddedMembers returns the members the commit adds (by Add proposals):
// their leaf index in the new epoch, credential and signature key, known
// before Merge.
func (sc *StagedCommit) AddedMembers() []Member {
	var out []Member
	for _, i := range sc.Added {
		if l := sc.next.tree.Leaf(tm.LeafIndex(i)); l != nil {
			out = append(out, Member{Index: i, Credential: cloneCredential(l.Credential), SignatureKey: append([]byte(nil), l.SignatureKey...)})
		}
	}
	return out
}

// EncodeNext serialises the group as it is after the commit (as
// [Group.Encode]): a client persists it before sending the commit, so that
// after a crash it can take the state of the commit the log accepted
// without having merged it ([LoadGroup]).
func (sc *StagedCommit) EncodeNext() ([]byte, error) { return sc.next.Encode() }

// Epoch returns the epoch the commit leads to.
func (sc *StagedCommit) Epoch() uint64 { return sc.next.ctx.Epoch }

// Merge applies a staged commit to the group it was staged on.
func (g *Group) Merge(sc *StagedCommit) error {
	if sc == nil || sc.base != g || g.ctx.Epoch != sc.baseEpoch {
		return ErrStaleCommit
	}
	*g = *sc.next
	return nil
}

// epochInput is what the next epoch is computed from once the proposals are
// applied (shared by creating and processing a commit).
type epochInput struct {
	committer sender
	tree      *tree.Tree // proposals (and the path) applied
	priv      *tree.PrivateState
	res       *proposalResult
	// commitSecret is nil when the commit has no path.
	commitSecret []byte
	// confirmedInput is ConfirmedTranscriptHashInput (RFC 9420 §8.2):
	// wire_format, FramedContent and signature.
	confirmedInput []byte
	// initSecret overrides the previous epoch's init_secret (external
	// commits, §8.3).
	initSecret []byte
}

// provisionalContext is the GroupContext for encrypting and decrypting path
// secrets (RFC 9420 §12.4.2): next epoch, new extensions and tree hash, the
// old confirmed transcript hash.
func (g *Group) provisionalContext(exts tree.Extensions, treeHash []byte) keyschedule.GroupContext {
	c := g.ctx
	c.Epoch++
	c.Extensions = exts
	c.TreeHash = treeHash
	return c
}

// nextEpoch computes the group after a commit (RFC 9420 §8, §12.4.2): the
// new GroupContext, the confirmed transcript hash, the epoch secrets; it
// returns the new group and the confirmation tag it expects.
func (g *Group) nextEpoch(in *epochInput) (*Group, *keyschedule.EpochSecrets, []byte, error) {
	s := g.cs.s
	ctx := g.provisionalContext(in.res.extensions, in.tree.TreeHash())
	ctx.ConfirmedTranscriptHash = keyschedule.ConfirmedTranscriptHash(s, g.interim, in.confirmedInput)
	pskSecret, err := keyschedule.PSKSecret(s, in.res.psks)
	if err != nil {
		return nil, nil, nil, err
	}
	initSecret := g.keys.init
	if in.initSecret != nil {
		initSecret = in.initSecret
	}
	es, err := keyschedule.Derive(s, initSecret, in.commitSecret, pskSecret, ctx.Bytes())
	if err != nil {
		return nil, nil, nil, err
	}
	next := &Group{
		cfg:        g.cfg,
		cs:         g.cs,
		ctx:        ctx,
		tree:       in.tree,
		priv:       in.priv,
		keys:       g.keys,
		resumption: append([]resumptionPSK(nil), g.resumption...),
		active:     !in.res.selfRemoved,
		reinit:     in.res.reinit,
	}
	if err := next.startEpoch(es); err != nil {
		return nil, nil, nil, err
	}
	tag := keyschedule.ConfirmationTag(s, es.ConfirmationKey, ctx.ConfirmedTranscriptHash)
	next.tag = tag
	next.interim = keyschedule.InterimTranscriptHash(s, ctx.ConfirmedTranscriptHash, tag)
	next.priv.Prune(next.tree)
	g.retainEpoch(next)
	return next, es, tag, nil
}

// receivedCommit is a commit taken from an authenticated message.
type receivedCommit struct {
	committer       sender
	commit          *proposal.Commit
	confirmedInput  []byte
	confirmationTag []byte
	// signatureKey of an external committer is its path leaf's (checked
	// by the caller once the leaf is known); unused for members.
}

// stageCommit validates a commit received from another member or an
// external joiner and computes its effects (RFC 9420 §12.4.2, §12.4.3.2).
func (g *Group) stageCommit(rc *receivedCommit) (*StagedCommit, error) {
	if !g.active {
		return nil, ErrNotMember
	}
	committer := rc.committer
	if committer.kind == senderMember && committer.leaf == g.priv.Leaf {
		return nil, fmt.Errorf("%w: a commit from ourselves must be merged from its staged form", ErrInvalidCommit)
	}
	if committer.kind != senderMember && committer.kind != senderNewMemberCommit {
		return nil, fmt.Errorf("%w: commit from sender type %d", ErrSender, committer.kind)
	}
	props, err := g.resolveProposals(rc.commit.Proposals, committer)
	if err != nil {
		return nil, err
	}
	path := rc.commit.Path
	var joiner *tree.LeafNode
	if committer.kind == senderNewMemberCommit {
		if path == nil {
			return nil, fmt.Errorf("%w: no path", ErrExternalCommit)
		}
		joiner = &path.LeafNode
	}
	t := g.tree.Clone()
	res, err := g.applyProposals(t, props, committer, joiner)
	if err != nil {
		return nil, err
	}
	if res.pathRequired && path == nil {
		return nil, fmt.Errorf("%w: the proposals require a path", ErrInvalidCommit)
	}
	priv := g.priv.Clone()
	g.adoptUpdateKey(t, priv)
	in := &epochInput{committer: committer, tree: t, priv: priv, res: res, confirmedInput: rc.confirmedInput}
	if committer.kind == senderNewMemberCommit {
		committer.leaf = t.AddLeaf(&path.LeafNode)
		in.committer = committer
		secret, err := keyschedule.ExternalInitReceive(g.cs.s, g.keys.external, res.externalInit.KEMOutput)
		if err != nil {
			return nil, fmt.Errorf("%w: external init: %w", ErrExternalCommit, err)
		}
		in.initSecret = secret
	}
	if path != nil {
		lc, err := g.leafContext(&keyschedule.GroupContext{GroupID: g.ctx.GroupID, Extensions: res.extensions}, 0)
		if err != nil {
			return nil, err
		}
		excluded := make([]tm.LeafIndex, 0, len(res.adds))
		for _, a := range res.adds {
			excluded = append(excluded, a.leaf)
		}
		var gcErr error
		ar, err := t.ApplyUpdatePath(path, &tree.ApplyOptions{
			Sender:   committer.leaf,
			Leaf:     lc,
			Excluded: excluded,
			GroupContext: func(treeHash []byte) ([]byte, error) {
				c := g.provisionalContext(res.extensions, treeHash)
				return c.Bytes(), gcErr
			},
			Private: privOrNil(priv, res.selfRemoved),
		})
		if err != nil {
			return nil, fmt.Errorf("%w: path: %w", ErrInvalidCommit, err)
		}
		if res.selfRemoved {
			in.commitSecret = make([]byte, g.cs.s.Nh())
		} else {
			in.commitSecret = ar.CommitSecret
		}
	}
	next, es, tag, err := g.nextEpoch(in)
	if err != nil {
		return nil, err
	}
	if !res.selfRemoved && !hmac.Equal(tag, rc.confirmationTag) {
		return nil, ErrConfirmation
	}
	sc := g.staged(next, es, res, nil)
	if committer.kind == senderNewMemberCommit {
		l := &path.LeafNode
		sc.joiner = &Member{Index: uint32(committer.leaf), Credential: cloneCredential(l.Credential), SignatureKey: append([]byte(nil), l.SignatureKey...)}
	}
	return sc, nil
}

func privOrNil(p *tree.PrivateState, removed bool) *tree.PrivateState {
	if removed {
		return nil
	}
	return p
}

func (g *Group) staged(next *Group, es *keyschedule.EpochSecrets, res *proposalResult, ps *tree.PathSecrets) *StagedCommit {
	sc := &StagedCommit{base: g, next: next, baseEpoch: g.ctx.Epoch, SelfRemoved: res.selfRemoved, ReInit: res.reinit, res: res, es: es, pathSecrets: ps}
	for _, a := range res.adds {
		sc.Added = append(sc.Added, uint32(a.leaf))
	}
	for _, r := range res.removed {
		sc.Removed = append(sc.Removed, uint32(r))
	}
	return sc
}

// cloneCredential deep-copies a credential handed out to the caller.
func cloneCredential(c tree.Credential) tree.Credential {
	out := tree.Credential{Type: c.Type}
	if c.Identity != nil {
		out.Identity = append([]byte(nil), c.Identity...)
	}
	for _, cert := range c.Certificates {
		out.Certificates = append(out.Certificates, append([]byte(nil), cert...))
	}
	return out
}
