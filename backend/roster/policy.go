package roster

import (
	"crypto/sha256"
	"fmt"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// GroupKind is a GroupPolicy's kind (spec/channels.md "Group policy").
type GroupKind uint8

// Admission is who is entitled to a group.
type Admission uint8

// History says whether joiners read the past.
type History uint8

// Wire values.
const (
	KindWorkspace GroupKind = 1 // "ws"
	KindChannel   GroupKind = 2 // "chan"
	KindDM        GroupKind = 3 // "dm"

	AdmissionEveryone Admission = 1
	AdmissionParent   Admission = 2
	AdmissionExplicit Admission = 3

	HistoryOpen   History = 1
	HistoryClosed History = 2
)

func (k GroupKind) String() string {
	switch k {
	case KindWorkspace:
		return "ws"
	case KindChannel:
		return "chan"
	case KindDM:
		return "dm"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

func (a Admission) String() string {
	switch a {
	case AdmissionEveryone:
		return "everyone"
	case AdmissionParent:
		return "parent"
	case AdmissionExplicit:
		return "explicit"
	}
	return fmt.Sprintf("admission(%d)", uint8(a))
}

func (h History) String() string {
	switch h {
	case HistoryOpen:
		return "open"
	case HistoryClosed:
		return "closed"
	}
	return fmt.Sprintf("history(%d)", uint8(h))
}

// GroupPolicy is the policy record of one group, set at creation and never
// changed in admission or history (spec/channels.md "Group policy").
//
//	struct {
//	  opaque group[32];
//	  uint8 kind; optional<opaque parent[32]>;
//	  uint8 admission; uint8 history; bool default;
//	  opaque created_by[32];   // device_id of the creator
//	  uint64 created_at;       // unix milliseconds
//	} GroupPolicy;
type GroupPolicy struct {
	Group     identity.GroupID
	Kind      GroupKind
	Parent    *identity.GroupID // the workspace root for a channel, nil otherwise
	Admission Admission
	History   History
	Default   bool
	CreatedBy identity.DeviceID
	CreatedAt time.Time
}

// legalCombination is the spec's table of the only combinations a client
// may create.
func legalCombination(k GroupKind, a Admission, h History) bool {
	switch k {
	case KindWorkspace:
		return a == AdmissionEveryone && h == HistoryOpen
	case KindChannel:
		return (a == AdmissionParent && h == HistoryOpen) || (a == AdmissionExplicit && h == HistoryClosed)
	case KindDM:
		return a == AdmissionExplicit && h == HistoryClosed
	}
	return false
}

// CheckLegal reports whether the policy is one of the spec's legal
// combinations, with the parent rule (a channel's parent is the workspace
// root; ws and dm have none).
func (p *GroupPolicy) CheckLegal() error {
	if !legalCombination(p.Kind, p.Admission, p.History) {
		return reject(ErrIllegalPolicy, "%s with admission %s and history %s", p.Kind, p.Admission, p.History)
	}
	if (p.Kind == KindChannel) != (p.Parent != nil) {
		return reject(ErrIllegalPolicy, "a channel has the workspace root as parent and only a channel has a parent")
	}
	return nil
}

// Encode appends the canonical encoding.
func (p *GroupPolicy) Encode(w *codec.Writer) {
	w.Raw(p.Group[:])
	w.U8(uint8(p.Kind))
	w.Bool(p.Parent != nil)
	if p.Parent != nil {
		w.Raw(p.Parent[:])
	}
	w.U8(uint8(p.Admission))
	w.U8(uint8(p.History))
	w.Bool(p.Default)
	w.Raw(p.CreatedBy[:])
	w.U64(identity.UnixMilli(p.CreatedAt))
}

func decodePolicy(r *codec.Reader) GroupPolicy {
	var p GroupPolicy
	p.Group = identity.GroupID(r.Array32())
	p.Kind = GroupKind(r.U8())
	if r.Bool() {
		g := identity.GroupID(r.Array32())
		p.Parent = &g
	}
	p.Admission = Admission(r.U8())
	p.History = History(r.U8())
	p.Default = r.Bool()
	p.CreatedBy = identity.DeviceID(r.Array32())
	p.CreatedAt = identity.ReadTime(r)
	return p
}

// Hash is the GroupPolicy hash a self-joiner embeds in its external
// commit's authenticated_data (spec/channels.md "The join", step 3):
// SHA-256 of struct { opaque label<V> = "weald 1 group-policy"; opaque content<V> = GroupPolicy; }.
func (p *GroupPolicy) Hash() [32]byte {
	var w codec.Writer
	p.Encode(&w)
	msg, _ := identity.SignedContent("group-policy", w.Bytes())
	return sha256.Sum256(msg)
}
