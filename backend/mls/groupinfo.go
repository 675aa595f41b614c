package mls

import (
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// GroupInfo is RFC 9420 §12.4.3 GroupInfo.
type GroupInfo struct {
	GroupContext    keyschedule.GroupContext
	Extensions      tree.Extensions
	ConfirmationTag []byte
	Signer          uint32
	Signature       []byte
}

func (gi *GroupInfo) encodeTBS(w *codec.Writer) {
	gi.GroupContext.Encode(w)
	gi.Extensions.Encode(w)
	w.Opaque(gi.ConfirmationTag)
	w.U32(gi.Signer)
}

// Encode writes the GroupInfo.
func (gi *GroupInfo) Encode(w *codec.Writer) {
	gi.encodeTBS(w)
	w.Opaque(gi.Signature)
}

// Decode reads a GroupInfo (syntax only).
func (gi *GroupInfo) Decode(r *codec.Reader) {
	*gi = GroupInfo{}
	gi.GroupContext = keyschedule.DecodeGroupContext(r)
	gi.Extensions = tree.DecodeExtensions(r)
	gi.ConfirmationTag = r.OpaqueCopy()
	gi.Signer = r.U32()
	gi.Signature = r.OpaqueCopy()
}

// Bytes returns the encoding of the GroupInfo.
func (gi *GroupInfo) Bytes() []byte {
	w := codec.NewWriter(nil)
	gi.Encode(w)
	return w.Bytes()
}

// DecodeGroupInfo decodes exactly one GroupInfo (unverified).
func DecodeGroupInfo(b []byte) (*GroupInfo, error) {
	r := codec.NewReader(b)
	gi := new(GroupInfo)
	gi.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: group info: %w", ErrDecode, err)
	}
	return gi, nil
}

func (gi *GroupInfo) tbs() []byte {
	w := codec.NewWriter(nil)
	gi.encodeTBS(w)
	return w.Bytes()
}

func (gi *GroupInfo) sign(cs *cipher, priv []byte) error {
	sig, err := cs.SignWithLabel(priv, "GroupInfoTBS", gi.tbs())
	if err != nil {
		return err
	}
	gi.Signature = sig
	return nil
}

// verify checks the signature against the signer's leaf in t (RFC 9420
// §12.4.3.1 step "verify the signature on the GroupInfo").
func (gi *GroupInfo) verify(cs *cipher, t *tree.Tree) error {
	if gi.Signer >= t.NumLeaves() {
		return fmt.Errorf("%w: signer %d outside the tree", ErrGroupInfo, gi.Signer)
	}
	l := t.Leaf(tm.LeafIndex(gi.Signer))
	if l == nil {
		return fmt.Errorf("%w: signer %d is blank", ErrGroupInfo, gi.Signer)
	}
	if !cs.VerifyWithLabel(l.SignatureKey, "GroupInfoTBS", gi.tbs(), gi.Signature) {
		return fmt.Errorf("%w: group info", ErrSignature)
	}
	return nil
}

// GroupSecrets is RFC 9420 §12.4.3.1 GroupSecrets.
type GroupSecrets struct {
	JoinerSecret []byte
	PathSecret   []byte // nil when absent
	PSKs         []proposal.PreSharedKeyID
}

// Encode writes the GroupSecrets.
func (gs *GroupSecrets) Encode(w *codec.Writer) {
	w.Opaque(gs.JoinerSecret)
	w.Optional(gs.PathSecret != nil, func(w *codec.Writer) { w.Opaque(gs.PathSecret) })
	w.Vector(func(w *codec.Writer) {
		for i := range gs.PSKs {
			gs.PSKs[i].Encode(w)
		}
	})
}

// Decode reads a GroupSecrets.
func (gs *GroupSecrets) Decode(r *codec.Reader) {
	*gs = GroupSecrets{JoinerSecret: r.OpaqueCopy()}
	if r.Optional() {
		gs.PathSecret = r.OpaqueCopy()
		if gs.PathSecret == nil {
			gs.PathSecret = []byte{}
		}
	}
	r.Vector(func(r *codec.Reader) {
		gs.PSKs = append(gs.PSKs, keyschedule.DecodePreSharedKeyID(r))
	})
}

// DecodeGroupSecrets decodes exactly one GroupSecrets.
func DecodeGroupSecrets(b []byte) (*GroupSecrets, error) {
	r := codec.NewReader(b)
	gs := new(GroupSecrets)
	gs.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: group secrets: %w", ErrDecode, err)
	}
	return gs, nil
}

// groupInfo builds and signs the GroupInfo of the current epoch with the
// given extensions.
func (g *Group) groupInfo(exts tree.Extensions) (*GroupInfo, error) {
	gi := &GroupInfo{
		GroupContext:    g.ctx.Clone(),
		Extensions:      exts,
		ConfirmationTag: g.tag,
		Signer:          uint32(g.priv.Leaf),
	}
	if err := gi.sign(g.cs, g.priv.SignatureKey); err != nil {
		return nil, err
	}
	return gi, nil
}

// externalPub is the external_pub extension of this epoch (RFC 9420 §12.4.3.2).
func (g *Group) externalPub() (tree.Extension, error) {
	kp, err := keyschedule.ExternalKeyPair(g.cs.s, g.keys.external)
	if err != nil {
		return tree.Extension{}, err
	}
	w := codec.NewWriter(nil)
	w.Opaque(kp.Public)
	return tree.Extension{Type: tree.ExtExternalPub, Data: w.Bytes()}, nil
}

// GroupInfo returns a signed GroupInfo MLSMessage for external joiners,
// with the external_pub extension and, if withTree, the ratchet_tree
// extension (otherwise the joiner needs [Group.RatchetTree] out of band).
func (g *Group) GroupInfo(withTree bool) ([]byte, error) {
	if !g.active {
		return nil, ErrNotMember
	}
	ep, err := g.externalPub()
	if err != nil {
		return nil, err
	}
	exts := tree.Extensions{ep}
	if withTree {
		exts = append(exts, tree.Extension{Type: tree.ExtRatchetTree, Data: g.tree.RatchetTreeBytes()})
	}
	gi, err := g.groupInfo(exts)
	if err != nil {
		return nil, err
	}
	return encodeMLSMessage(wireGroupInfo, gi.Bytes()), nil
}
