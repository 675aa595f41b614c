package roster

import (
	"slices"

	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// OpRemovalReceipt is the removal receipt (spec/lifecycle.md "Removing a
// person", step 6): written to the membership transparency log once a
// removal operation has rotated every group and, for a whole-workspace
// removal, the new access set was accepted. Its number leaves room for
// operation types being added beside it.
const OpRemovalReceipt OpType = 24

// MaxReceiptGroups bounds a receipt's rotated groups (a workspace holds at
// most 512 groups).
const MaxReceiptGroups = 512

// RotatedGroup is one group a removal rotated: the epoch its Remove commit
// created. Epoch 0 means the group held no leaf of the removed person, so
// nothing needed to be committed.
type RotatedGroup struct {
	Group identity.GroupID
	Epoch uint64
}

// RemovalReceipt records one completed removal: the operation's id (unique
// in the roster, so one operation has one receipt), the user, the channel
// for a partial removal (zero for the whole workspace), the principals its
// roster.revoke revoked, the groups rotated and the access-set version that
// left the person out (0 for a partial removal).
type RemovalReceipt struct {
	Operation     [32]byte
	User          identity.UserID
	Channel       identity.GroupID
	Revoked       []identity.Principal
	Groups        []RotatedGroup
	AccessVersion uint64
}

// Type implements Body.
func (*RemovalReceipt) Type() OpType { return OpRemovalReceipt }

// Partial reports whether the receipt is for removal from one channel.
func (b *RemovalReceipt) Partial() bool { return b.Channel != identity.GroupID{} }

func (b *RemovalReceipt) encode(w *codec.Writer) {
	w.Raw(b.Operation[:])
	w.Raw(b.User[:])
	w.Raw(b.Channel[:])
	w.Vector(func(w *codec.Writer) {
		for _, p := range b.Revoked {
			w.U8(uint8(p.Kind))
			w.Raw(p.ID[:])
		}
	})
	w.Vector(func(w *codec.Writer) {
		for _, g := range b.Groups {
			w.Raw(g.Group[:])
			w.U64(g.Epoch)
		}
	})
	w.U64(b.AccessVersion)
}

func decodeRemovalReceipt(r *codec.Reader) Body {
	b := &RemovalReceipt{Operation: r.Array32(), User: identity.UserID(r.Array32()), Channel: identity.GroupID(r.Array32())}
	r.VectorMax(MaxRevokeBatch, func(r *codec.Reader) {
		b.Revoked = append(b.Revoked, identity.Principal{Kind: identity.PrincipalKind(r.U8()), ID: r.Array32()})
	})
	r.VectorMax(MaxReceiptGroups, func(r *codec.Reader) {
		b.Groups = append(b.Groups, RotatedGroup{Group: identity.GroupID(r.Array32()), Epoch: r.U64()})
	})
	b.AccessVersion = r.U64()
	return b
}

// ReceiptInfo is a removal receipt's entry.
type ReceiptInfo struct {
	Receipt RemovalReceipt
	By      identity.DeviceID
	Created Ref
	At      int64 // unix seconds of the operation's created_at
}

// checkRemovalReceipt: an admin signs it; the operation id is new; the user
// is known; a whole-workspace receipt names a revoked user and only
// revoked principals; a partial one names an explicit group.
func (s *State) checkRemovalReceipt(op *Operation, a actor, b *RemovalReceipt) (func(), error) {
	if !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only an admin may record a removal")
	}
	if _, dup := s.receipts[b.Operation]; dup {
		return nil, reject(ErrDuplicate, "removal %x… already has its receipt", b.Operation[:4])
	}
	u, ok := s.users[b.User]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "user %s", b.User.ShortString())
	}
	if b.Partial() {
		g, ok := s.groups[b.Channel]
		if !ok {
			return nil, reject(ErrUnknownGroup, "")
		}
		if g.Policy.Admission != AdmissionExplicit {
			return nil, reject(ErrBadOperation, "a partial removal needs an explicit channel")
		}
		if len(b.Revoked) > 0 || b.AccessVersion != 0 {
			return nil, reject(ErrBadOperation, "a partial removal revokes nothing and leaves the access set")
		}
	} else if u.RevokedAt == nil {
		return nil, reject(ErrBadOperation, "the receipt of a removal follows the revocation of user %s", b.User.ShortString())
	}
	for _, p := range b.Revoked {
		if _, at, ok := s.ownerOf(p); !ok || at == nil {
			return nil, reject(ErrBadOperation, "the receipt names %s, which is not revoked", p.ShortString())
		}
	}
	seen := map[identity.GroupID]bool{}
	for _, g := range b.Groups {
		if _, ok := s.groups[g.Group]; !ok || seen[g.Group] {
			return nil, reject(ErrUnknownGroup, "group %s in the receipt", g.Group.ShortString())
		}
		seen[g.Group] = true
	}
	info := ReceiptInfo{Receipt: *b, By: a.device.ID, Created: Ref{Index: s.length, Head: op.Head()}, At: op.CreatedAt.Unix()}
	info.Receipt.Revoked = slices.Clone(b.Revoked)
	info.Receipt.Groups = slices.Clone(b.Groups)
	return func() {
		if s.receipts == nil {
			s.receipts = map[[32]byte]*ReceiptInfo{}
		}
		s.receipts[b.Operation] = &info
	}, nil
}

// Receipt returns the receipt of removal operation id, if recorded.
func (s *State) Receipt(id [32]byte) (ReceiptInfo, bool) {
	r, ok := s.receipts[id]
	if !ok {
		return ReceiptInfo{}, false
	}
	return *r, true
}

// Receipts returns every removal receipt in log order.
func (s *State) Receipts() []ReceiptInfo {
	out := make([]ReceiptInfo, 0, len(s.receipts))
	for _, r := range s.receipts {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b ReceiptInfo) int { return a.Created.Index - b.Created.Index })
	return out
}
