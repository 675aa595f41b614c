package mls

import (
	"bytes"
	"fmt"
	"io"

	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// resumptionKeep is how many past epochs' resumption PSKs a group keeps
// (RFC 9420 §8.6), for PreSharedKey proposals of type resumption.
const resumptionKeep = 8

// Group is one member's view of an MLS group in one epoch (RFC 9420 §8,
// §12). All methods leave the group unchanged when they return an error.
// A Group is not safe for concurrent use.
type Group struct {
	cfg  *Config
	cs   *cipher
	ctx  keyschedule.GroupContext
	tree *tree.Tree
	priv *tree.PrivateState
	keys epochKeys
	st   *secrettree.Tree
	// interim is the interim transcript hash of this epoch; tag the
	// confirmation tag of the commit that started it.
	interim, tag []byte
	pending      []pendingProposal
	resumption   []resumptionPSK
	active       bool
	// pendingUpdateKey is the private key of our proposed Update leaf.
	pendingUpdateKey *updateKey
	// reinit is set once a commit with a ReInit proposal is merged: the
	// group then sends nothing more (RFC 9420 §11.2).
	reinit *proposal.ReInit
	// past keeps the previous epoch for late application messages.
	past *pastEpoch
}

// ReInit returns the ReInit proposal that ended this group, or nil.
func (g *Group) ReInit() *proposal.ReInit { return g.reinit }

// canSend refuses to send in a group that is not ours any more.
func (g *Group) canSend() error {
	if !g.active {
		return ErrNotMember
	}
	if g.reinit != nil {
		return ErrReInit
	}
	return nil
}

// epochKeys are the secrets of one epoch kept after it starts (RFC 9420
// §8): encryption_secret lives on only inside the secret tree.
type epochKeys struct {
	senderData, exporter, external, confirmation, membership, resumption, authenticator, init []byte
}

func keysFrom(e *keyschedule.EpochSecrets) epochKeys {
	return epochKeys{
		senderData: e.SenderDataSecret, exporter: e.ExporterSecret, external: e.ExternalSecret,
		confirmation: e.ConfirmationKey, membership: e.MembershipKey, resumption: e.ResumptionPSK,
		authenticator: e.EpochAuthenticator, init: e.InitSecret,
	}
}

// pendingProposal is a proposal received (or sent) in this epoch, cached by
// its ProposalRef until a commit covers it (RFC 9420 §12.1).
type pendingProposal struct {
	ref    []byte
	p      *proposal.Proposal
	sender sender
}

type resumptionPSK struct {
	epoch  uint64
	secret []byte
}

// senderKind is RFC 9420 §6 SenderType.
type senderKind uint8

const (
	senderMember            senderKind = 1
	senderExternal          senderKind = 2
	senderNewMemberProposal senderKind = 3
	senderNewMemberCommit   senderKind = 4
)

type sender struct {
	kind senderKind
	leaf tm.LeafIndex // member; external sender index for senderExternal
}

// Member is one leaf of the group.
type Member struct {
	Index      uint32
	Credential tree.Credential
	// SignatureKey is the member's signature public key.
	SignatureKey []byte
}

// NewGroup creates a one-member group (RFC 9420 §11) with group id groupID
// in cipher suite suiteID, the creator holding credential cred. Keys come
// from cfg.Rand.
func NewGroup(cfg *Config, suiteID uint16, groupID []byte, cred tree.Credential) (*Group, error) {
	kp, err := GenerateKeyPackage(cfg, suiteID, cred)
	if err != nil {
		return nil, err
	}
	return NewGroupFromKeyPackage(cfg, groupID, kp)
}

// NewGroupFromKeyPackage creates a one-member group whose first leaf is the
// leaf node of the creator's own key package bundle.
func NewGroupFromKeyPackage(cfg *Config, groupID []byte, kp *KeyPackageBundle) (*Group, error) {
	cs, err := newCipher(kp.KeyPackage.CipherSuite, cfg.rand())
	if err != nil {
		return nil, err
	}
	leaf := kp.KeyPackage.LeafNode
	t := tree.New(cs, &leaf)
	g := &Group{
		cfg:    cfg,
		cs:     cs,
		tree:   t,
		priv:   tree.NewPrivateState(0, kp.EncryptionKey, kp.SignatureKey),
		active: true,
		ctx: keyschedule.GroupContext{
			Version:                 tree.ProtocolVersionMLS10,
			CipherSuite:             kp.KeyPackage.CipherSuite,
			GroupID:                 append([]byte{}, groupID...),
			Epoch:                   0,
			TreeHash:                t.TreeHash(),
			ConfirmedTranscriptHash: []byte{},
			Extensions:              tree.Extensions{},
		},
	}
	initSecret := make([]byte, cs.s.Nh())
	if _, err := io.ReadFull(cs.rand, initSecret); err != nil {
		return nil, fmt.Errorf("mls: randomness: %w", err)
	}
	es, err := keyschedule.Derive(cs.s, initSecret, nil, nil, g.ctx.Bytes())
	if err != nil {
		return nil, err
	}
	if err := g.startEpoch(es); err != nil {
		return nil, err
	}
	// The creator's confirmation tag covers the empty confirmed transcript
	// hash (RFC 9420 §8.2, §11).
	g.tag = keyschedule.ConfirmationTag(cs.s, g.keys.confirmation, g.ctx.ConfirmedTranscriptHash)
	g.interim = keyschedule.InterimTranscriptHash(cs.s, g.ctx.ConfirmedTranscriptHash, g.tag)
	return g, nil
}

// startEpoch installs the secrets of a new epoch for g.ctx and g.tree.
func (g *Group) startEpoch(es *keyschedule.EpochSecrets) error {
	st, err := secrettree.New(g.cs.s, es.EncryptionSecret, g.tree.NumLeaves(), g.secretTreeConfig())
	if err != nil {
		return err
	}
	if g.keys.resumption != nil {
		g.resumption = append(g.resumption, resumptionPSK{epoch: g.ctx.Epoch - 1, secret: g.keys.resumption})
		if len(g.resumption) > resumptionKeep {
			g.resumption = g.resumption[len(g.resumption)-resumptionKeep:]
		}
	}
	g.keys = keysFrom(es)
	g.st = st
	g.pending = nil
	return nil
}

func (g *Group) secretTreeConfig() secrettree.Config {
	c := secrettree.Config{}
	if g.cfg != nil && g.cfg.MaxForwardRatchet != 0 {
		c.MaxForward = g.cfg.MaxForwardRatchet
	}
	return c
}

// CipherSuite returns the group's cipher suite.
func (g *Group) CipherSuite() uint16 { return g.ctx.CipherSuite }

// GroupID returns the group id.
func (g *Group) GroupID() []byte { return append([]byte{}, g.ctx.GroupID...) }

// Epoch returns the current epoch.
func (g *Group) Epoch() uint64 { return g.ctx.Epoch }

// OwnLeaf returns this member's leaf index.
func (g *Group) OwnLeaf() uint32 { return uint32(g.priv.Leaf) }

// Active reports whether this member is still in the group (false after a
// commit that removed it was merged).
func (g *Group) Active() bool { return g.active }

// GroupContext returns a copy of the current GroupContext.
func (g *Group) GroupContext() keyschedule.GroupContext { return g.ctx.Clone() }

// Members lists the non-blank leaves in leaf order.
func (g *Group) Members() []Member {
	var out []Member
	g.tree.Members(func(i tm.LeafIndex, l *tree.LeafNode) {
		out = append(out, Member{Index: uint32(i), Credential: l.Credential, SignatureKey: l.SignatureKey})
	})
	return out
}

// EpochAuthenticator returns the epoch_authenticator of the current epoch
// (RFC 9420 §8.7).
func (g *Group) EpochAuthenticator() []byte { return append([]byte{}, g.keys.authenticator...) }

// Export is MLS-Exporter(label, context, length) (RFC 9420 §8.5).
func (g *Group) Export(label string, context []byte, length int) ([]byte, error) {
	return keyschedule.Exporter(g.cs.s, g.keys.exporter, label, context, length)
}

// RatchetTree returns the ratchet_tree extension body for the current tree
// (RFC 9420 §12.4.3.3), for out-of-band distribution.
func (g *Group) RatchetTree() []byte { return g.tree.RatchetTreeBytes() }

// leafContext is how leaves entering the group are validated (RFC 9420 §7.3).
func (g *Group) leafContext(ctx *keyschedule.GroupContext, now uint64) (*tree.LeafContext, error) {
	lc := &tree.LeafContext{
		Suite:           g.cs,
		GroupID:         ctx.GroupID,
		Now:             now,
		GroupExtensions: ctx.Extensions,
		Credential:      g.cfg.credential(),
	}
	if b, ok := ctx.Extensions.Find(tree.ExtRequiredCapabilities); ok {
		rc, err := tree.DecodeRequiredCapabilities(b)
		if err != nil {
			return nil, err
		}
		lc.Required = rc
	}
	return lc, nil
}

// findResumption returns the resumption PSK of epoch e of this group.
func (g *Group) findResumption(e uint64) ([]byte, bool) {
	if e == g.ctx.Epoch {
		return g.keys.resumption, true
	}
	for _, r := range g.resumption {
		if r.epoch == e {
			return r.secret, true
		}
	}
	return nil, false
}

// memberLeaf returns the leaf node of member i or an error.
func (g *Group) memberLeaf(t *tree.Tree, i tm.LeafIndex) (*tree.LeafNode, error) {
	l := t.Leaf(i)
	if l == nil {
		return nil, fmt.Errorf("%w: leaf %d is blank", ErrSender, i)
	}
	return l, nil
}

func sameCredential(a, b *tree.Credential) bool {
	if a.Type != b.Type {
		return false
	}
	switch a.Type {
	case tree.CredentialBasic:
		return bytes.Equal(a.Identity, b.Identity)
	case tree.CredentialX509:
		if len(a.Certificates) == 0 || len(b.Certificates) == 0 {
			return false
		}
		return bytes.Equal(a.Certificates[0], b.Certificates[0])
	}
	return false
}
