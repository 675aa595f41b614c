package roster

import (
	"slices"

	"weald/backend/identity"
	"weald/backend/internal/codec"
	"weald/backend/wire"
)

// OpRetentionDestroy proposes a one-off compact-now destruction of a
// group's history below one checkpoint (docs/protocol/retention.md
// "Compact-now with several admins"). Its number leaves room for operation
// types being added beside it.
const OpRetentionDestroy OpType = 26

// MaxDestroyWindow bounds how long a destruction proposal stays valid
// (not_after − not_before): the admins' approvals must arrive within it.
const MaxDestroyWindow = 7 * 24 * 3600

// RetentionDestroy proposes the relay-visible RetentionDestruction it
// names (without approvals) and carries the proposing device's approval
// of it. Further admins approve it with [RetentionApprove] naming this
// operation's head; each approval carries that device's signature of the
// same destruction, so once the admin threshold is met the drop_before can
// carry every signature the relay asks for.
type RetentionDestroy struct {
	Group      identity.GroupID
	Checkpoint wire.EnvelopeRef
	NotBefore  uint64 // Unix seconds
	NotAfter   uint64 // Unix seconds
	Relay      *wire.Approval
}

// Type implements Body.
func (*RetentionDestroy) Type() OpType { return OpRetentionDestroy }

// Destruction is the relay-visible authorization the proposal names,
// without approvals.
func (b *RetentionDestroy) Destruction() wire.RetentionDestruction {
	return wire.RetentionDestruction{Group: wire.ID(b.Group), Checkpoint: b.Checkpoint, NotBefore: b.NotBefore, NotAfter: b.NotAfter}
}

func (b *RetentionDestroy) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.Raw(b.Checkpoint.Author[:])
	w.U64(b.Checkpoint.Ctr)
	w.Raw(b.Checkpoint.Hash[:])
	w.U64(b.NotBefore)
	w.U64(b.NotAfter)
	encodeRelayApproval(w, b.Relay)
}

func decodeRetentionDestroy(r *codec.Reader) Body {
	b := &RetentionDestroy{Group: identity.GroupID(r.Array32())}
	b.Checkpoint = wire.EnvelopeRef{Author: wire.ID(r.Array32()), Ctr: r.U64(), Hash: wire.ID(r.Array32())}
	b.NotBefore, b.NotAfter = r.U64(), r.U64()
	b.Relay = readRelayApproval(r)
	return b
}

// ApprovedDestruction is a destruction proposal the admin threshold
// approved: the RetentionDestruction with every approval, ready for a
// drop_before.
type ApprovedDestruction struct {
	Proposal    Head
	Group       identity.GroupID
	Destruction wire.RetentionDestruction
}

// ApprovedDestructions lists the destructions the admin threshold
// approved, oldest proposal first (expired ones included: the caller
// knows the time).
func (s *State) ApprovedDestructions() []ApprovedDestruction {
	var out []ApprovedDestruction
	for h, p := range s.retention {
		if p.destroy == nil || !p.active {
			continue
		}
		if g, ok := s.groups[p.destroy.Group]; !ok || g.Deleted {
			continue
		}
		d := p.destroy.Destruction()
		d.Approvals = slices.Clone(p.relay)
		out = append(out, ApprovedDestruction{Proposal: h, Group: p.destroy.Group, Destruction: d})
	}
	slices.SortFunc(out, func(a, b ApprovedDestruction) int {
		return cmpU64(a.Destruction.NotBefore, b.Destruction.NotBefore)
	})
	return out
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *State) checkRetentionDestroy(op *Operation, a actor, b *RetentionDestroy) (func(), error) {
	if b.NotAfter <= b.NotBefore || b.NotAfter-b.NotBefore > MaxDestroyWindow {
		return nil, reject(ErrBadRetention, "a destruction is valid for up to 7 days")
	}
	p := &retentionProposal{destroy: b, proposer: a.user(), proposedAt: op.CreatedAt}
	return s.proposeRetention(op, a, p, b.Group, b.Relay)
}
