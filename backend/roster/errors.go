package roster

import (
	"fmt"

	"weald/backend/errcode"
)

// Sentinel errors, checked with errors.Is. Each message is a stable code
// ("roster/name") and one plain sentence.
var (
	ErrDecode            = errcode.New("roster/decode", "the operation is not a well-formed roster operation")
	ErrVersion           = errcode.New("roster/version", "the operation has an unknown version")
	ErrHeadMismatch      = errcode.New("roster/head_mismatch", "the operation does not extend the current roster head")
	ErrBadSignature      = errcode.New("roster/bad_signature", "the operation's signature does not verify for its actor")
	ErrUnknownActor      = errcode.New("roster/unknown_actor", "the signing principal is not in the roster")
	ErrActorRevoked      = errcode.New("roster/actor_revoked", "the signing principal has been revoked")
	ErrNotAuthorized     = errcode.New("roster/not_authorized", "the signing principal may not perform this operation")
	ErrGenesis           = errcode.New("roster/genesis", "genesis must be the first operation and only the first")
	ErrTimeOrder         = errcode.New("roster/time_order", "the operation is dated before the operation it extends")
	ErrFuture            = errcode.New("roster/future", "the operation is dated too far in the future")
	ErrStale             = errcode.New("roster/stale", "a recovery must be dated now; this one is dated too far in the past")
	ErrLastAdmin         = errcode.New("roster/last_admin", "this would leave the workspace without an admin; promote someone first")
	ErrUnknownPrincipal  = errcode.New("roster/unknown_principal", "the operation names a principal that is not in the roster")
	ErrAlreadyRevoked    = errcode.New("roster/already_revoked", "the principal has already been revoked")
	ErrDuplicate         = errcode.New("roster/duplicate", "the principal or record already exists")
	ErrIllegalPolicy     = errcode.New("roster/illegal_policy", "this combination of kind, admission and history is not allowed")
	ErrPolicyImmutable   = errcode.New("roster/policy_immutable", "a group's admission and history are fixed at creation; create a new group instead")
	ErrGroupExists       = errcode.New("roster/group_exists", "a group with this id already exists")
	ErrUnknownGroup      = errcode.New("roster/unknown_group", "the operation names a group that is not in the roster")
	ErrGroupDeleted      = errcode.New("roster/group_deleted", "the group has been deleted")
	ErrDefaultGroup      = errcode.New("roster/default_group", "a default channel cannot be deleted or archived while its workspace exists; it can be muted, renamed or reordered")
	ErrBadGroupID        = errcode.New("roster/bad_group_id", "the group id does not match the id derived for this group")
	ErrBadName           = errcode.New("roster/bad_name", "a name must be 1 to 80 bytes of printable UTF-8 without surrounding spaces")
	ErrInviteScope       = errcode.New("roster/invite_scope", "an invite must include the workspace root and only open groups")
	ErrInviteClosedScope = errcode.New("roster/invite_closed_scope", "a closed group can never be an invite scope")
	ErrInviteExpired     = errcode.New("roster/invite_expired", "the invite has expired")
	ErrInviteRevoked     = errcode.New("roster/invite_revoked", "the invite has been revoked")
	ErrInviteUsed        = errcode.New("roster/invite_used", "the invite has been used as many times as it allows")
	ErrInviteProof       = errcode.New("roster/invite_proof", "the redemption does not prove the invite secret")
	ErrUnknownInvite     = errcode.New("roster/unknown_invite", "the operation names an invite that is not in the roster")
	ErrDelegation        = errcode.New("roster/delegation", "the delegation certificate is not valid")
	ErrLimitGroups       = errcode.New("roster/limit_groups", "a workspace holds at most 512 groups")
	ErrLimitPending      = errcode.New("roster/limit_pending", "a group holds at most 64 pending adds")
	ErrNotPending        = errcode.New("roster/not_pending", "there is no such pending add")
	ErrBadRetention      = errcode.New("roster/bad_retention", "the retention policy or approval is not valid")
	ErrProbation         = errcode.New("roster/probation", "this device was recovered and may not admit, revoke or change roles until a pre-existing admin approves it")
	ErrBadKey            = errcode.New("roster/bad_key", "the admitted key is not a canonical Ed25519 key of the prime-order subgroup")
	ErrPossession        = errcode.New("roster/possession", "the admitted key did not prove that its holder asked for this admission")
	ErrBadOperation      = errcode.New("roster/bad_operation", "the operation's fields are inconsistent")
	ErrBadQuorum         = errcode.New("roster/bad_quorum", "a recovery quorum names 1 to 16 distinct members and a threshold from 1 to their number")
	ErrNotInQuorum       = errcode.New("roster/not_in_quorum", "only a member of the registered recovery quorum, other than the recovered person, vouches for a recovered device")
)

// Error is a rejected operation: its index in the chain (0-based; -1 from
// a bare Decode, which knows no position), the sentinel reason and a detail.
type Error struct {
	Index  int
	Err    error
	Detail string
}

func (e *Error) Error() string {
	s := e.Err.Error()
	if e.Index >= 0 {
		s += fmt.Sprintf(" (operation %d)", e.Index)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// Code returns the stable code, e.g. "roster/last_admin".
func (e *Error) Code() string { return string(e.ErrorCode()) }

// ErrorCode returns the sentinel's code (errcode.Of).
func (e *Error) ErrorCode() errcode.Code {
	c, _ := errcode.Of(e.Err)
	return c
}

// reject builds an *Error for the operation being applied; the index is
// filled in by Apply.
func reject(sentinel error, format string, args ...any) error {
	return &Error{Err: sentinel, Detail: fmt.Sprintf(format, args...)}
}
