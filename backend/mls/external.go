package mls

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/suite"
	"weald/backend/mls/tree"
)

// ExternalJoinOptions tune [ExternalJoin].
type ExternalJoinOptions struct {
	// Resync removes the joiner's old leaf: the leaf whose credential
	// equals the new one (RFC 9420 §12.4.3.2, "resync").
	Resync bool
	// PSKs are pre-shared keys to inject.
	PSKs []proposal.PreSharedKeyID
	// AuthenticatedData is carried in the commit's FramedContent.
	AuthenticatedData []byte
	// SignatureKey, if set, is the private signature key of the joiner's
	// new leaf (Ed25519 seed or ECDSA scalar of the GroupInfo's cipher
	// suite, exactly Nsk bytes; see [SignaturePublicKey]), so that the
	// joiner can sign data binding the leaf's key, e.g. into
	// AuthenticatedData, before the commit is built. Nil draws a fresh key
	// from the Config's Rand. A key invalid for the suite is
	// [ErrSignatureKey].
	SignatureKey []byte
	// LeafExtensions are carried in the joiner's leaf (see
	// [KeyPackageOptions.LeafExtensions]).
	LeafExtensions tree.Extensions
}

// GenerateSignatureKey draws a signature key pair of cipher suite suiteID
// from cfg.Rand (for [ExternalJoinOptions.SignatureKey]).
func GenerateSignatureKey(cfg *Config, suiteID uint16) (priv, pub []byte, err error) {
	cs, err := newCipher(suiteID, cfg.rand())
	if err != nil {
		return nil, nil, err
	}
	k, err := cs.s.GenerateSigningKey(cs.rand)
	if err != nil {
		return nil, nil, err
	}
	return k.Bytes(), k.Public(), nil
}

// SignaturePublicKey returns the public key of the signature private key
// priv of cipher suite suiteID, or ErrSignatureKey.
func SignaturePublicKey(suiteID uint16, priv []byte) ([]byte, error) {
	cs, err := newCipher(suiteID, nil)
	if err != nil {
		return nil, err
	}
	k, err := parseOwnSigningKey(cs, priv)
	if err != nil {
		return nil, err
	}
	return k.Public(), nil
}

// parseOwnSigningKey parses a caller-supplied signature private key
// strictly: exactly the suite's encoding (no left-padding of short ECDSA
// scalars, which the suite tolerates only for foreign test vectors).
func parseOwnSigningKey(cs *cipher, priv []byte) (*suite.SigningKey, error) {
	k, err := cs.s.ParseSigningKey(priv)
	if err != nil {
		return nil, fmt.Errorf("%w: %d bytes for suite %d: %w", ErrSignatureKey, len(priv), cs.ID(), err)
	}
	if !bytes.Equal(k.Bytes(), priv) {
		return nil, fmt.Errorf("%w: %d bytes for suite %d: %w", ErrSignatureKey, len(priv), cs.ID(), suite.ErrBadKey)
	}
	return k, nil
}

// ExternalJoin joins a group from its GroupInfo MLSMessage with an external
// commit (RFC 9420 §12.4.3.2): the GroupInfo's signature, tree and
// external_pub are checked, the joiner's fresh leaf is added at the leftmost
// blank leaf, and the commit (sender new_member_commit, a PublicMessage
// with exactly one ExternalInit, a path, and a Remove of the joiner's old
// leaf when resyncing) is returned with the joined group. ratchetTree is
// the out-of-band tree when the GroupInfo has no ratchet_tree extension.
func ExternalJoin(cfg *Config, groupInfo, ratchetTree []byte, cred tree.Credential, opts ExternalJoinOptions) (*Group, []byte, error) {
	return externalJoin(cfg, groupInfo, ratchetTree, cred, opts, nil)
}

// externalJoin is ExternalJoin; tamper, if set, may change the commit
// just before it is signed (tests of the receiver's §12.4.3.2 checks).
func externalJoin(cfg *Config, groupInfo, ratchetTree []byte, cred tree.Credential, opts ExternalJoinOptions, tamper func(*proposal.Commit)) (*Group, []byte, error) {
	body, err := expectMLSMessage(groupInfo, wireGroupInfo)
	if err != nil {
		return nil, nil, err
	}
	gi, err := DecodeGroupInfo(body)
	if err != nil {
		return nil, nil, err
	}
	cs, err := newCipher(gi.GroupContext.CipherSuite, cfg.rand())
	if err != nil {
		return nil, nil, err
	}
	s := cs.s
	epb, ok := gi.Extensions.Find(tree.ExtExternalPub)
	if !ok {
		return nil, nil, fmt.Errorf("%w: no external_pub extension", ErrGroupInfo)
	}
	r := codec.NewReader(epb)
	externalPub := r.OpaqueCopy()
	if err := r.Done(); err != nil {
		return nil, nil, fmt.Errorf("%w: external_pub: %w", ErrDecode, err)
	}
	// The old group as the joiner sees it: the GroupInfo's epoch.
	old := &Group{cfg: cfg, cs: cs, ctx: gi.GroupContext, active: true}
	t, err := old.importTree(gi, ratchetTree)
	if err != nil {
		return nil, nil, err
	}
	if err := gi.verify(cs, t); err != nil {
		return nil, nil, err
	}
	old.tree = t
	// The interim transcript hash follows from the GroupInfo (RFC 9420 §8.2).
	old.interim = keyschedule.InterimTranscriptHash(s, gi.GroupContext.ConfirmedTranscriptHash, gi.ConfirmationTag)

	kemOutput, initSecret, err := keyschedule.ExternalInitSend(s, cs.rand, externalPub)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: external_pub: %w", ErrGroupInfo, err)
	}
	list := []proposal.OrRef{{Type: proposal.OrRefProposal, Proposal: &proposal.Proposal{
		Type: proposal.TypeExternalInit, ExternalInit: &proposal.ExternalInit{KEMOutput: kemOutput}}}}
	if opts.Resync {
		oldLeaf, found := t.FindLeaf(func(l *tree.LeafNode) bool { return sameCredential(&l.Credential, &cred) })
		if !found {
			return nil, nil, fmt.Errorf("%w: no leaf of ours to resync", ErrExternalCommit)
		}
		list = append(list, proposal.OrRef{Type: proposal.OrRefProposal, Proposal: &proposal.Proposal{
			Type: proposal.TypeRemove, Remove: &proposal.Remove{Removed: uint32(oldLeaf)}}})
	}
	for i := range opts.PSKs {
		list = append(list, proposal.OrRef{Type: proposal.OrRefProposal, Proposal: &proposal.Proposal{
			Type: proposal.TypePreSharedKey, PreSharedKey: &proposal.PreSharedKey{PSK: opts.PSKs[i]}}})
	}

	// Fresh keys for the joiner's leaf.
	kp, err := GenerateKeyPackageWith(cfg, gi.GroupContext.CipherSuite, cred,
		KeyPackageOptions{SignatureKey: opts.SignatureKey, LeafExtensions: opts.LeafExtensions})
	if err != nil {
		return nil, nil, err
	}
	leaf := kp.KeyPackage.LeafNode
	leaf.Source = tree.SourceCommit
	leaf.Lifetime = tree.Lifetime{}
	if err := old.meetsNeeds(&leaf); err != nil {
		return nil, nil, err
	}
	me := sender{kind: senderNewMemberCommit}
	props, err := old.resolveProposals(list, me)
	if err != nil {
		return nil, nil, err
	}
	nt := t.Clone()
	res, err := old.applyProposals(nt, props, me, &leaf)
	if err != nil {
		return nil, nil, err
	}
	placeholder := leaf
	me.leaf = nt.AddLeaf(&placeholder)
	priv := tree.NewPrivateState(me.leaf, kp.EncryptionKey, kp.SignatureKey)
	up, ps, err := nt.CreateUpdatePath(&tree.PathOptions{
		Rand:         cs.rand,
		GroupID:      gi.GroupContext.GroupID,
		Leaf:         &leaf,
		SignatureKey: kp.SignatureKey,
		GroupContext: func(treeHash []byte) ([]byte, error) {
			c := old.provisionalContext(res.extensions, treeHash)
			return c.Bytes(), nil
		},
		PrivateBefore: priv,
		Parallel:      cfg.parallel(),
	})
	if err != nil {
		return nil, nil, err
	}
	content := framing.FramedContent{
		GroupID:           gi.GroupContext.GroupID,
		Epoch:             gi.GroupContext.Epoch,
		Sender:            framing.Sender{Type: framing.SenderNewMemberCommit},
		AuthenticatedData: orEmpty(opts.AuthenticatedData),
		ContentType:       framing.ContentCommit,
		Commit:            &proposal.Commit{Proposals: list, Path: up},
	}
	if tamper != nil {
		tamper(content.Commit)
	}
	sk, err := s.ParseSigningKey(kp.SignatureKey)
	if err != nil {
		return nil, nil, err
	}
	ac, err := framing.Sign(s, cs.rand, sk, framing.WireFormatPublicMessage, content, gi.GroupContext.Bytes())
	if err != nil {
		return nil, nil, err
	}
	next, _, tag, err := old.nextEpoch(&epochInput{
		committer: me, tree: nt, priv: priv, res: res,
		commitSecret: ps.CommitSecret, confirmedInput: ac.ConfirmedTranscriptHashInput(), initSecret: initSecret,
	})
	if err != nil {
		return nil, nil, err
	}
	next.resumption = nil
	ac.Auth.ConfirmationTag = tag
	pm, err := framing.NewPublicMessage(s, ac, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	msg := (&framing.MLSMessage{WireFormat: framing.WireFormatPublicMessage, Public: pm}).Bytes()
	return next, msg, nil
}

// meetsNeeds refuses to join a group whose required_capabilities or
// GroupContext extensions the joiner's leaf does not support (RFC 9420
// §7.3, §11.1): every member would reject the commit.
func (g *Group) meetsNeeds(leaf *tree.LeafNode) error {
	lc, err := g.leafContext(&g.ctx, 0)
	if err != nil {
		return fmt.Errorf("%w: required_capabilities: %w", ErrGroupInfo, err)
	}
	lc.Credential, lc.SkipSignature = nil, true
	if err := leaf.Validate(lc); err != nil {
		return fmt.Errorf("%w: %w", ErrGroupNeeds, err)
	}
	return nil
}
