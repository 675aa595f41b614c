package roster

import (
	"slices"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
	"weald/backend/wire"
)

// OpRetentionResolve proposes the resolution of a group's frozen
// retention chain in a workspace with several admins
// (docs/protocol/retention.md "Resolving a frozen chain").
const OpRetentionResolve OpType = 29

// RetentionResolve proposes the relay-visible RetentionResolution naming
// Key (without approvals) and carries the proposing device's approval of
// it. Further admins approve it with [RetentionApprove] naming this
// operation's head, each with its device's signature of the same
// resolution, so once the admin threshold is met the resolution can carry
// every signature the relay and the members ask for. The roster cannot see
// the chain: whether the channel's chain is frozen and Key one of its
// contested tips is for each admin's client to check before it approves.
type RetentionResolve struct {
	Group identity.GroupID
	Key   []byte // 32-byte Ed25519 retention key
	Relay *wire.Approval
}

// Type implements Body.
func (*RetentionResolve) Type() OpType { return OpRetentionResolve }

// Resolution is the relay-visible resolution the proposal names, without
// approvals.
func (b *RetentionResolve) Resolution() wire.RetentionResolution {
	return wire.RetentionResolution{Group: wire.ID(b.Group), Key: slices.Clone(b.Key)}
}

func (b *RetentionResolve) encode(w *codec.Writer) {
	w.Raw(b.Group[:])
	w.Raw(pad32(b.Key))
	encodeRelayApproval(w, b.Relay)
}

func decodeRetentionResolve(r *codec.Reader) Body {
	b := &RetentionResolve{Group: identity.GroupID(r.Array32()), Key: slices.Clone(r.Raw(32))}
	b.Relay = readRelayApproval(r)
	return b
}

// ResolveWindow is how long a resolution proposal waits for the other
// admins' approvals, from its proposal (as a compact-now destruction's
// not_after, 24 hours): after it the proposal is no longer listed nor
// approved (the clients' rule, [PendingRetention.Expired]), and its
// proposer may propose again.
const ResolveWindow = 24 * time.Hour

func (s *State) checkRetentionResolve(op *Operation, a actor, b *RetentionResolve) (func(), error) {
	if len(b.Key) != 32 {
		return nil, reject(ErrBadRetention, "a resolution names a 32-byte retention key")
	}
	for _, p := range s.retention {
		expired := PendingRetention{Expires: p.proposedAt.Add(ResolveWindow)}.Expired(op.CreatedAt)
		if p.resolve != nil && !p.active && !expired && p.resolve.Group == b.Group && p.proposer == a.user() {
			return nil, reject(ErrDuplicate, "this admin already proposed a resolution of the group")
		}
	}
	p := &retentionProposal{resolve: b, proposer: a.user(), proposedAt: op.CreatedAt}
	return s.proposeRetention(op, a, p, b.Group, b.Relay)
}

// ApprovedResolution is a resolution proposal the admin threshold
// approved: the RetentionResolution with every approval, ready to publish.
type ApprovedResolution struct {
	Proposal   Head
	Group      identity.GroupID
	Resolution wire.RetentionResolution
}

// ApprovedResolutions lists the resolutions the admin threshold approved,
// oldest proposal first (ones already applied included: the caller knows
// its chain).
func (s *State) ApprovedResolutions() []ApprovedResolution {
	var out []ApprovedResolution
	for h, p := range s.retention {
		if p.resolve == nil || !p.active {
			continue
		}
		if g, ok := s.groups[p.resolve.Group]; !ok || g.Deleted {
			continue
		}
		x := p.resolve.Resolution()
		x.Approvals = slices.Clone(p.relay)
		out = append(out, ApprovedResolution{Proposal: h, Group: p.resolve.Group, Resolution: x})
	}
	slices.SortFunc(out, func(a, b ApprovedResolution) int {
		return s.retention[a.Proposal].proposedAt.Compare(s.retention[b.Proposal].proposedAt)
	})
	return out
}
