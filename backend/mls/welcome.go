package mls

import (
	"bytes"
	"crypto/hmac"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// makeWelcome builds the Welcome for the members a created commit adds
// (RFC 9420 §12.4.3.1), next being the group after the commit.
func (g *Group) makeWelcome(sc *StagedCommit, withTree bool) ([]byte, error) {
	next := sc.next
	var exts tree.Extensions
	if withTree {
		exts = tree.Extensions{{Type: tree.ExtRatchetTree, Data: next.tree.RatchetTreeBytes()}}
	}
	gi, err := next.groupInfo(exts)
	if err != nil {
		return nil, err
	}
	s := g.cs.s
	key, nonce := keyschedule.WelcomeKeyNonce(s, sc.es.WelcomeSecret)
	egi, err := s.Seal(nil, key, nonce, nil, gi.Bytes())
	if err != nil {
		return nil, err
	}
	wl := &Welcome{CipherSuite: g.ctx.CipherSuite, EncryptedGroupInfo: egi}
	for _, a := range sc.res.adds {
		gs := GroupSecrets{JoinerSecret: sc.es.JoinerSecret, PSKs: sc.res.pskIDs}
		if sc.pathSecrets != nil {
			if _, secret, ok := sc.pathSecrets.For(a.leaf); ok {
				gs.PathSecret = secret
			}
		}
		w := codec.NewWriter(nil)
		gs.Encode(w)
		kem, ct, err := g.cs.EncryptWithLabel(a.kp.InitKey, "Welcome", egi, w.Bytes())
		if err != nil {
			return nil, fmt.Errorf("welcome for leaf %d: %w", a.leaf, err)
		}
		wl.Secrets = append(wl.Secrets, EncryptedGroupSecrets{
			NewMember:             a.kp.Ref(g.cs),
			EncryptedGroupSecrets: tree.HPKECiphertext{KEMOutput: kem, Ciphertext: ct},
		})
	}
	return encodeMLSMessage(wireWelcome, wl.Bytes()), nil
}

// JoinWelcome joins a group from a Welcome MLSMessage (RFC 9420 §12.4.3.1)
// with whichever of the key package bundles it is addressed to; ratchetTree
// is the out-of-band ratchet_tree body, used when the GroupInfo carries no
// ratchet_tree extension. It returns the group and the index in bundles of
// the key package used (delete it unless it is last_resort).
func JoinWelcome(cfg *Config, msg []byte, bundles []*KeyPackageBundle, ratchetTree []byte) (*Group, int, error) {
	body, err := expectMLSMessage(msg, wireWelcome)
	if err != nil {
		return nil, -1, err
	}
	wl, err := DecodeWelcome(body)
	if err != nil {
		return nil, -1, err
	}
	cs, err := newCipher(wl.CipherSuite, cfg.rand())
	if err != nil {
		return nil, -1, err
	}
	used, egs := -1, (*EncryptedGroupSecrets)(nil)
	for i, b := range bundles {
		if b == nil || b.KeyPackage.CipherSuite != wl.CipherSuite {
			continue
		}
		ref := b.KeyPackage.Ref(cs)
		for j := range wl.Secrets {
			if bytes.Equal(wl.Secrets[j].NewMember, ref) {
				used, egs = i, &wl.Secrets[j]
				break
			}
		}
		if used >= 0 {
			break
		}
	}
	if used < 0 {
		return nil, -1, ErrNoKeyPackage
	}
	kp := bundles[used]
	pt, err := cs.DecryptWithLabel(kp.InitPriv, "Welcome", wl.EncryptedGroupInfo,
		egs.EncryptedGroupSecrets.KEMOutput, egs.EncryptedGroupSecrets.Ciphertext)
	if err != nil {
		return nil, -1, fmt.Errorf("%w: group secrets: %w", ErrWelcome, err)
	}
	gs, err := DecodeGroupSecrets(pt)
	if err != nil {
		return nil, -1, err
	}
	g, err := joinFromSecrets(cfg, cs, wl, gs, kp, ratchetTree)
	if err != nil {
		return nil, -1, err
	}
	return g, used, nil
}

// openWelcome decrypts the GroupInfo of a Welcome with the joiner secret
// and PSKs of gs (RFC 9420 §12.4.3.1), returning it with the psk_secret.
func openWelcome(cfg *Config, cs *cipher, wl *Welcome, gs *GroupSecrets) (*GroupInfo, []byte, error) {
	s := cs.s
	if len(gs.JoinerSecret) != s.Nh() {
		return nil, nil, fmt.Errorf("%w: joiner secret of %d bytes", ErrWelcome, len(gs.JoinerSecret))
	}
	psks := make([]keyschedule.PSK, 0, len(gs.PSKs))
	for i := range gs.PSKs {
		id := &gs.PSKs[i]
		if id.Type != proposal.PSKExternal || cfg == nil || cfg.PSKs == nil {
			return nil, nil, fmt.Errorf("%w: psk of type %d in a welcome", ErrPSK, id.Type)
		}
		secret, ok := cfg.PSKs(id.PSKID)
		if !ok {
			return nil, nil, fmt.Errorf("%w: external psk %x", ErrPSK, id.PSKID)
		}
		psks = append(psks, keyschedule.PSK{ID: *id, Secret: secret})
	}
	pskSecret, err := keyschedule.PSKSecret(s, psks)
	if err != nil {
		return nil, nil, err
	}
	ws, err := keyschedule.WelcomeSecret(s, gs.JoinerSecret, pskSecret)
	if err != nil {
		return nil, nil, err
	}
	key, nonce := keyschedule.WelcomeKeyNonce(s, ws)
	gib, err := s.Open(nil, key, nonce, nil, wl.EncryptedGroupInfo)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: group info does not decrypt", ErrWelcome)
	}
	gi, err := DecodeGroupInfo(gib)
	if err != nil {
		return nil, nil, err
	}
	return gi, pskSecret, nil
}

// welcomeEpoch derives the epoch secrets a joiner gets and checks the
// GroupInfo's confirmation tag against them.
func welcomeEpoch(cs *cipher, gs *GroupSecrets, pskSecret []byte, gi *GroupInfo) (*keyschedule.EpochSecrets, error) {
	es, err := keyschedule.FromJoiner(cs.s, gs.JoinerSecret, pskSecret, gi.GroupContext.Bytes())
	if err != nil {
		return nil, err
	}
	tag := keyschedule.ConfirmationTag(cs.s, es.ConfirmationKey, gi.GroupContext.ConfirmedTranscriptHash)
	if !hmac.Equal(tag, gi.ConfirmationTag) {
		return nil, ErrConfirmation
	}
	return es, nil
}

func joinFromSecrets(cfg *Config, cs *cipher, wl *Welcome, gs *GroupSecrets, kp *KeyPackageBundle, ratchetTree []byte) (*Group, error) {
	s := cs.s
	gi, pskSecret, err := openWelcome(cfg, cs, wl, gs)
	if err != nil {
		return nil, err
	}
	ctx := gi.GroupContext
	if ctx.CipherSuite != wl.CipherSuite || ctx.Version != tree.ProtocolVersionMLS10 {
		return nil, fmt.Errorf("%w: group context suite %d, welcome suite %d", ErrWelcome, ctx.CipherSuite, wl.CipherSuite)
	}
	g := &Group{cfg: cfg, cs: cs, ctx: ctx, active: true}
	t, err := g.importTree(gi, ratchetTree)
	if err != nil {
		return nil, err
	}
	if err := gi.verify(cs, t); err != nil {
		return nil, err
	}
	own, ok := t.FindLeaf(func(l *tree.LeafNode) bool {
		return bytes.Equal(l.EncryptionKey, kp.KeyPackage.LeafNode.EncryptionKey) &&
			bytes.Equal(l.SignatureKey, kp.KeyPackage.LeafNode.SignatureKey)
	})
	if !ok {
		return nil, fmt.Errorf("%w: our leaf is not in the tree", ErrWelcome)
	}
	priv := tree.NewPrivateState(own, kp.EncryptionKey, kp.SignatureKey)
	if gs.PathSecret != nil {
		x, ok := pathNodeFor(t, tm.LeafIndex(gi.Signer), own)
		if !ok {
			return nil, fmt.Errorf("%w: a path secret but no common path node", ErrWelcome)
		}
		if err := priv.ImportPathSecret(t, x, gs.PathSecret); err != nil {
			return nil, fmt.Errorf("%w: path secret: %w", ErrWelcome, err)
		}
	}
	es, err := welcomeEpoch(cs, gs, pskSecret, gi)
	if err != nil {
		return nil, err
	}
	tag := gi.ConfirmationTag
	g.tree, g.priv = t, priv
	if err := g.startEpoch(es); err != nil {
		return nil, err
	}
	g.tag = tag
	g.interim = keyschedule.InterimTranscriptHash(s, ctx.ConfirmedTranscriptHash, tag)
	return g, nil
}

// pathNodeFor is the lowest node of the committer's filtered direct path
// that is an ancestor of leaf: where a joiner's path secret belongs.
func pathNodeFor(t *tree.Tree, committer, leaf tm.LeafIndex) (tm.NodeIndex, bool) {
	for _, x := range t.FilteredDirectPath(nil, committer) {
		if tm.IsInSubtree(x, leaf.Node()) {
			return x, true
		}
	}
	return 0, false
}

// importTree takes the ratchet tree from the GroupInfo's ratchet_tree
// extension or, failing that, from the out-of-band copy, and validates it
// against the GroupContext (RFC 9420 §12.4.3.1, §12.4.3.3).
func (g *Group) importTree(gi *GroupInfo, oob []byte) (*tree.Tree, error) {
	b, ok := gi.Extensions.Find(tree.ExtRatchetTree)
	if !ok {
		if oob == nil {
			return nil, fmt.Errorf("%w: no ratchet tree in the group info and none given", ErrGroupInfo)
		}
		b = oob
	}
	o := &tree.ImportOptions{
		GroupID:         gi.GroupContext.GroupID,
		TreeHash:        gi.GroupContext.TreeHash,
		GroupExtensions: gi.GroupContext.Extensions,
		Credential:      g.cfg.credential(),
	}
	if rb, ok := gi.GroupContext.Extensions.Find(tree.ExtRequiredCapabilities); ok {
		rc, err := tree.DecodeRequiredCapabilities(rb)
		if err != nil {
			return nil, fmt.Errorf("%w: required_capabilities: %w", ErrGroupInfo, err)
		}
		o.Required = rc
	}
	t, err := tree.Import(g.cs, b, o)
	if err != nil {
		return nil, fmt.Errorf("%w: ratchet tree: %w", ErrGroupInfo, err)
	}
	return t, nil
}
