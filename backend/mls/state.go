package mls

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/keyschedule"
	"weald/backend/mls/proposal"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// stateVersion tags the serialised group state layout.
const stateVersion uint16 = 1

// Encode serialises the group for persistence. The state holds
// private keys: store it encrypted at rest. Layout (TLS presentation):
//
//	struct {
//	  uint16 state_version = 1;
//	  GroupContext context;
//	  opaque ratchet_tree<V>;          // the ratchet_tree extension body
//	  PrivateState private;            // own leaf, leaf and path keys (package tree)
//	  opaque sender_data<V>, exporter<V>, external<V>, confirmation<V>,
//	         membership<V>, resumption<V>, authenticator<V>, init<V>;
//	  SecretTreeState secret_tree;     // package secrettree
//	  opaque interim_transcript_hash<V>; opaque confirmation_tag<V>;
//	  struct { opaque ref<V>; Proposal proposal; uint8 sender_type; uint32 sender_index; } pending<V>;
//	  struct { uint64 epoch; opaque psk<V>; } resumption_psks<V>;
//	  bool active;
//	  optional<struct { opaque pub<V>; opaque priv<V>; }> pending_update_key;
//	  optional<ReInit> reinit;         // set once a ReInit commit was merged
//	  optional<struct { uint64 epoch; opaque group_context<V>; opaque sender_data<V>;
//	           SecretTreeState secret_tree; struct { uint32 leaf; opaque signature_key<V>; } changed<V>;
//	  }> past_epoch;                   // for late application messages
//	} GroupState;
//
// Nothing derivable is stored: tree hashes are recomputed on load.
func (g *Group) Encode() ([]byte, error) {
	w := codec.NewWriter(make([]byte, 0, 1024))
	w.U16(stateVersion)
	g.ctx.Encode(w)
	w.Opaque(g.tree.RatchetTreeBytes())
	g.priv.Encode(w)
	k := &g.keys
	for _, b := range [][]byte{k.senderData, k.exporter, k.external, k.confirmation, k.membership, k.resumption, k.authenticator, k.init} {
		w.Opaque(b)
	}
	g.st.Encode(w)
	w.Opaque(g.interim)
	w.Opaque(g.tag)
	w.Vector(func(w *codec.Writer) {
		for _, p := range g.pending {
			w.Opaque(p.ref)
			p.p.Encode(w)
			w.U8(uint8(p.sender.kind))
			w.U32(uint32(p.sender.leaf))
		}
	})
	w.Vector(func(w *codec.Writer) {
		for _, r := range g.resumption {
			w.U64(r.epoch)
			w.Opaque(r.secret)
		}
	})
	w.Bool(g.active)
	w.Optional(g.pendingUpdateKey != nil, func(w *codec.Writer) {
		w.Opaque(g.pendingUpdateKey.pub)
		w.Opaque(g.pendingUpdateKey.priv)
	})
	w.Optional(g.reinit != nil, func(w *codec.Writer) { g.reinit.Encode(w) })
	w.Optional(g.past != nil, func(w *codec.Writer) { g.past.encode(w) })
	return w.Bytes(), w.Err()
}

// LoadGroup restores a group serialised by [Group.Encode]. The tree
// must hash to the stored GroupContext's tree_hash.
func LoadGroup(cfg *Config, data []byte) (*Group, error) {
	r := codec.NewReader(data)
	if v := r.U16(); r.Err() == nil && v != stateVersion {
		return nil, fmt.Errorf("%w: state version %d", ErrState, v)
	}
	ctx := keyschedule.DecodeGroupContext(r)
	treeBytes := r.Opaque()
	priv := tree.DecodePrivateState(r)
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	cs, err := newCipher(ctx.CipherSuite, cfg.rand())
	if err != nil {
		return nil, err
	}
	g := &Group{cfg: cfg, cs: cs, ctx: ctx, priv: priv}
	k := &g.keys
	for _, p := range []*[]byte{&k.senderData, &k.exporter, &k.external, &k.confirmation, &k.membership, &k.resumption, &k.authenticator, &k.init} {
		*p = r.OpaqueCopy()
	}
	if r.Err() == nil {
		if g.st, err = secrettree.Decode(r); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrState, err)
		}
	}
	g.interim = r.OpaqueCopy()
	g.tag = r.OpaqueCopy()
	r.Vector(func(r *codec.Reader) {
		var p pendingProposal
		p.ref = r.OpaqueCopy()
		p.p = new(proposal.Proposal)
		p.p.Decode(r)
		p.sender = sender{kind: senderKind(r.U8()), leaf: tm.LeafIndex(r.U32())}
		g.pending = append(g.pending, p)
	})
	r.Vector(func(r *codec.Reader) {
		g.resumption = append(g.resumption, resumptionPSK{epoch: r.U64(), secret: r.OpaqueCopy()})
	})
	g.active = r.Bool()
	if r.Optional() {
		g.pendingUpdateKey = &updateKey{pub: r.OpaqueCopy(), priv: r.OpaqueCopy()}
	}
	if r.Optional() {
		g.reinit = new(proposal.ReInit)
		g.reinit.Decode(r)
	}
	if r.Optional() && r.Err() == nil {
		if g.past, err = decodePastEpoch(r); err != nil {
			return nil, fmt.Errorf("%w: past epoch: %w", ErrState, err)
		}
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	nh := cs.s.Nh()
	for _, b := range [][]byte{k.senderData, k.exporter, k.external, k.confirmation, k.membership, k.resumption, k.authenticator, k.init} {
		if len(b) != nh {
			return nil, fmt.Errorf("%w: epoch secret of %d bytes", ErrState, len(b))
		}
	}
	if g.tree, err = tree.DecodeRatchetTree(cs, treeBytes); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrState, err)
	}
	if !bytes.Equal(g.tree.TreeHash(), ctx.TreeHash) {
		return nil, fmt.Errorf("%w: the tree does not match the group context", ErrState)
	}
	if g.past != nil && g.past.epoch+1 != ctx.Epoch {
		return nil, fmt.Errorf("%w: past epoch %d in epoch %d", ErrState, g.past.epoch, ctx.Epoch)
	}
	if g.st.LeafCount() != g.tree.NumLeaves() {
		return nil, fmt.Errorf("%w: secret tree of %d leaves for a tree of %d", ErrState, g.st.LeafCount(), g.tree.NumLeaves())
	}
	if g.active && (uint32(priv.Leaf) >= g.tree.NumLeaves() || g.tree.Leaf(priv.Leaf) == nil) {
		return nil, fmt.Errorf("%w: own leaf %d is not in the tree", ErrState, priv.Leaf)
	}
	return g, nil
}
