package mls

import (
	"bytes"
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/framing"
	"weald/backend/mls/secrettree"
	"weald/backend/mls/tree"
	tm "weald/backend/mls/treemath"
)

// pastEpoch is what a member keeps of the previous epoch so that an
// application message sent just before a commit, and delivered after it,
// can still be read (RFC 9420 §15.2 leaves the retention to the
// application; here: one epoch, application messages only). Its secret
// tree deletes each key on use as in the current epoch.
type pastEpoch struct {
	epoch      uint64
	ctx        []byte // encoded GroupContext of that epoch (signatures cover it)
	senderData []byte
	st         *secrettree.Tree
	// sigKeys are the signature keys of that epoch's leaves that differ
	// in (or are gone from) the current tree; the others are the same.
	sigKeys map[tm.LeafIndex][]byte
}

// retainEpoch records g's epoch as the past epoch of next.
func (g *Group) retainEpoch(next *Group) {
	if g.st == nil || g.tree == nil {
		return
	}
	p := &pastEpoch{epoch: g.ctx.Epoch, ctx: g.ctx.Bytes(), senderData: g.keys.senderData, st: g.st, sigKeys: map[tm.LeafIndex][]byte{}}
	g.tree.Members(func(i tm.LeafIndex, l *tree.LeafNode) {
		if n := next.tree.Leaf(i); n == nil || !bytes.Equal(n.SignatureKey, l.SignatureKey) {
			p.sigKeys[i] = l.SignatureKey
		}
	})
	next.past = p
}

// sigKey returns the signature key leaf i had in the past epoch.
func (p *pastEpoch) sigKey(current *tree.Tree, i tm.LeafIndex) ([]byte, bool) {
	if k, ok := p.sigKeys[i]; ok {
		return k, true
	}
	if l := current.Leaf(i); l != nil {
		return l.SignatureKey, true
	}
	return nil, false
}

// processPast handles a PrivateMessage of the previous epoch: only
// application data is accepted (handshake messages of a finished epoch
// have no effect).
func (g *Group) processPast(pm *framing.PrivateMessage) (*Received, error) {
	p := g.past
	if pm.ContentType != framing.ContentApplication {
		return nil, fmt.Errorf("%w: a handshake message of the previous epoch", ErrWrongEpoch)
	}
	dec, err := framing.Decrypt(g.cs.s, p.st, p.senderData, pm)
	if err != nil {
		return nil, err
	}
	c := &dec.Content.Content
	if c.Sender.Type != framing.SenderMember || c.Sender.Index != uint32(dec.Leaf) || c.ContentType != framing.ContentApplication {
		return nil, fmt.Errorf("%w: sender data and content disagree", ErrSender)
	}
	key, ok := p.sigKey(g.tree, dec.Leaf)
	if !ok {
		return nil, fmt.Errorf("%w: leaf %d was not a member", ErrSender, dec.Leaf)
	}
	if err := dec.Content.VerifySignature(g.cs.s, key, p.ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	if err := dec.Consume(p.st); err != nil {
		return nil, err
	}
	return &Received{Type: c.ContentType, SenderType: c.Sender.Type, Sender: c.Sender.Index,
		AuthenticatedData: c.AuthenticatedData, Application: c.ApplicationData, PastEpoch: true}, nil
}

func (p *pastEpoch) encode(w *codec.Writer) {
	w.U64(p.epoch)
	w.Opaque(p.ctx)
	w.Opaque(p.senderData)
	p.st.Encode(w)
	leaves := make([]tm.LeafIndex, 0, len(p.sigKeys))
	for i := range p.sigKeys {
		leaves = append(leaves, i)
	}
	for a := 1; a < len(leaves); a++ { // insertion sort: deterministic order
		for b := a; b > 0 && leaves[b] < leaves[b-1]; b-- {
			leaves[b], leaves[b-1] = leaves[b-1], leaves[b]
		}
	}
	w.Vector(func(w *codec.Writer) {
		for _, i := range leaves {
			w.U32(uint32(i))
			w.Opaque(p.sigKeys[i])
		}
	})
}

func decodePastEpoch(r *codec.Reader) (*pastEpoch, error) {
	p := &pastEpoch{epoch: r.U64(), ctx: r.OpaqueCopy(), senderData: r.OpaqueCopy(), sigKeys: map[tm.LeafIndex][]byte{}}
	if err := r.Err(); err != nil {
		return nil, err
	}
	st, err := secrettree.Decode(r)
	if err != nil {
		return nil, err
	}
	p.st = st
	r.Vector(func(r *codec.Reader) {
		i := tm.LeafIndex(r.U32())
		p.sigKeys[i] = r.OpaqueCopy()
	})
	return p, r.Err()
}
