package lifecycle

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
)

// ID is a 32-byte id, hex in JSON.
type ID [32]byte

// Hex returns the id in hex.
func (id ID) Hex() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is all zeros.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.Hex()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := hex.DecodeString(string(b))
	if err != nil || len(v) != 32 {
		return fmt.Errorf("lifecycle: %q is not a 64-hex-digit id", b)
	}
	copy(id[:], v)
	return nil
}

// State is where an operation stands.
type State string

// The states of an operation.
const (
	// StateRunning: steps remain; Run resumes it.
	StateRunning State = "running"
	// StateNeedsReapproval: the authorization head moved before the first
	// MLS commit; the admin must approve again (Reapprove) after reading
	// Intervening.
	StateNeedsReapproval State = "needs_reapproval"
	// StateDone: the receipt is in the transparency log.
	StateDone State = "done"
)

// Step names one step of the operation, in the spec's order.
type Step string

// The steps, in order (spec/lifecycle.md "Removing a person").
const (
	StepRevoke  Step = "revoke"  // one roster.revoke for every target
	StepRotate  Step = "rotate"  // one Remove commit per group
	StepWraps   Step = "wraps"   // recovery wraps sealed to their recovery key
	StepInvites Step = "invites" // invite records naming them
	StepAccess  Step = "access"  // a new access set without them
	StepReceipt Step = "receipt" // the receipt in the transparency log
	StepDone    Step = "done"
)

// Principal is one target principal: kind (user, device, agent, recovery)
// and id.
type Principal struct {
	Kind string `json:"kind"`
	ID   ID     `json:"id"`
}

// FromIdentity converts an identity.Principal.
func FromIdentity(p identity.Principal) Principal {
	return Principal{Kind: p.Kind.String(), ID: ID(p.ID)}
}

// GroupSlot is the receipt slot of one group: rotated by a Remove commit
// (Epoch is the epoch it created), or found without a leaf of the targets
// (NoLeaf), and its recovery wraps deleted.
type GroupSlot struct {
	Group   ID     `json:"group"`
	Name    string `json:"name"`
	Rotated bool   `json:"rotated"`
	Epoch   uint64 `json:"epoch,omitempty"`
	NoLeaf  bool   `json:"no_leaf,omitempty"`
	// NotMember: the removing device holds no state of the group (an
	// explicit or closed group it is not in), so it cannot commit there;
	// the receipt leaves the group out of the groups rotated.
	NotMember bool `json:"not_member,omitempty"`
	// Tags are the blinded recovery-wrap tags of the epoch before the
	// Remove commit, computed before it for the wrap deletion.
	Tags  []ID `json:"tags,omitempty"`
	Wraps bool `json:"wraps_deleted"`
	// WrapsDeleted counts the wraps the relay deleted.
	WrapsDeleted int `json:"wraps_count,omitempty"`
}

// AccessSlot is the receipt slot of the access-set update.
type AccessSlot struct {
	Done    bool   `json:"done"`
	Version uint64 `json:"version,omitempty"`
}

// RemovalOperation is one removal, persisted before its first step and
// after each (spec/lifecycle.md "Removing a person", step 6).
type RemovalOperation struct {
	ID      ID     `json:"id"`
	User    ID     `json:"user"`
	Name    string `json:"name,omitempty"` // the user as shown when it started
	Channel ID     `json:"channel,omitempty"`
	// BasedOn is the authorization head the operation was approved on.
	BasedOn ID    `json:"based_on"`
	State   State `json:"state"`
	Step    Step  `json:"step"`
	// Targets: every device of the user, every agent certificate they
	// issued (sub-delegations included), their recovery principal and the
	// user itself; empty for a partial removal.
	Targets []Principal `json:"targets"`
	// Devices are the leaves to remove: the targets' devices and agents
	// (for a partial removal, the user's devices and agents).
	Leaves  []ID        `json:"leaves"`
	Invites []ID        `json:"invites,omitempty"`
	Groups  []GroupSlot `json:"groups"`
	Access  AccessSlot  `json:"access"`
	// Intervening lists the authorization changes since BasedOn while the
	// operation waits for reapproval.
	Intervening []string  `json:"intervening,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	Receipt     *Receipt  `json:"receipt,omitempty"`
}

// Partial reports whether the operation removes the person from one
// channel only.
func (op *RemovalOperation) Partial() bool { return !op.Channel.IsZero() }

// NewID draws a fresh operation id.
func NewID(r io.Reader) (ID, error) {
	var id ID
	_, err := io.ReadFull(r, id[:])
	return id, err
}

// Encode returns the stored form.
func (op *RemovalOperation) Encode() ([]byte, error) { return json.Marshal(op) }

// Decode parses a stored operation.
func Decode(b []byte) (*RemovalOperation, error) {
	var op RemovalOperation
	if err := json.Unmarshal(b, &op); err != nil {
		return nil, fmt.Errorf("lifecycle: stored removal: %w", err)
	}
	if op.ID.IsZero() || op.State == "" || op.Step == "" {
		return nil, fmt.Errorf("lifecycle: stored removal without id, state or step")
	}
	return &op, nil
}

// Errors of removal, each a stable code and one sentence.
var (
	ErrLastAdmin     = errcode.New("removal/last_admin", "this person is the last admin; promote someone first, then remove them")
	ErrSelf          = errcode.New("removal/self", "you cannot remove yourself; another admin can")
	ErrNotAdmin      = errcode.New("removal/not_admin", "only an admin can remove people")
	ErrParentChannel = errcode.New("removal/parent_channel", "this channel takes its members from the workspace, so a person removed from it would rejoin; remove them from the workspace instead")
	ErrNotInChannel  = errcode.New("removal/not_in_channel", "that person is not in this channel")
	ErrPaused        = errcode.New("removal/needs_reapproval", "the workspace's membership changed since this removal was approved; review the changes and approve it again")
	ErrUnknown       = errcode.New("removal/unknown", "there is no removal operation with that id")
)

// Identity converts back to an identity.Principal.
func (p Principal) Identity() identity.Principal {
	for k := identity.KindUser; k <= identity.KindRecovery; k++ {
		if k.String() == p.Kind {
			return identity.Principal{Kind: k, ID: p.ID}
		}
	}
	return identity.Principal{ID: p.ID}
}
