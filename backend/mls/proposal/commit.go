package proposal

import (
	"fmt"

	"weald/backend/internal/codec"
	"weald/backend/mls/tree"
)

// OrRefType is RFC 9420 §12.4 ProposalOrRefType.
type OrRefType uint8

// ProposalOrRef types.
const (
	OrRefProposal  OrRefType = 1
	OrRefReference OrRefType = 2
)

// OrRef is RFC 9420 §12.4 ProposalOrRef: a proposal by value, or a
// ProposalRef (RefHash of the AuthenticatedContent that carried it).
type OrRef struct {
	Type      OrRefType
	Proposal  *Proposal
	Reference []byte
}

// Encode writes the ProposalOrRef.
func (o *OrRef) Encode(w *codec.Writer) {
	w.U8(uint8(o.Type))
	switch o.Type {
	case OrRefProposal:
		if o.Proposal != nil {
			o.Proposal.Encode(w)
		}
	case OrRefReference:
		w.Opaque(o.Reference)
	}
}

// Decode reads a ProposalOrRef.
func (o *OrRef) Decode(r *codec.Reader) {
	*o = OrRef{Type: OrRefType(r.U8())}
	switch o.Type {
	case OrRefProposal:
		o.Proposal = new(Proposal)
		o.Proposal.Decode(r)
	case OrRefReference:
		o.Reference = r.OpaqueCopy()
	default:
		if r.Err() == nil {
			r.Fail(fmt.Errorf("%w: proposal-or-ref type %d", ErrDecode, o.Type))
		}
	}
}

// Commit is RFC 9420 §12.4 Commit.
type Commit struct {
	Proposals []OrRef
	Path      *tree.UpdatePath // nil when absent
}

// Encode writes the commit.
func (c *Commit) Encode(w *codec.Writer) {
	w.Vector(func(w *codec.Writer) {
		for i := range c.Proposals {
			c.Proposals[i].Encode(w)
		}
	})
	w.Optional(c.Path != nil, func(w *codec.Writer) { c.Path.Encode(w) })
}

// Decode reads a commit.
func (c *Commit) Decode(r *codec.Reader) {
	*c = Commit{}
	r.Vector(func(r *codec.Reader) {
		var o OrRef
		o.Decode(r)
		c.Proposals = append(c.Proposals, o)
	})
	if r.Optional() {
		c.Path = new(tree.UpdatePath)
		c.Path.Decode(r)
	}
}

// Bytes returns the encoding of the commit.
func (c *Commit) Bytes() []byte {
	w := codec.NewWriter(nil)
	c.Encode(w)
	return w.Bytes()
}

// DecodeCommit decodes exactly one Commit from b.
func DecodeCommit(b []byte) (*Commit, error) {
	r := codec.NewReader(b)
	c := new(Commit)
	c.Decode(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("%w: commit: %w", ErrDecode, err)
	}
	return c, nil
}
