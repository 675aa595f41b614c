package groups

import (
	"fmt"

	"weald/backend/errcode"
)

// Errors, checked with errors.Is. Each is a stable code and one sentence.
var (
	ErrDecode        = errcode.New("groups/decode", "the bytes are not a valid encoding of this object")
	ErrVersion       = errcode.New("groups/version", "the object has an unknown format version")
	ErrOpen          = errcode.New("groups/open", "the sealed data does not open with this key")
	ErrWrongGroup    = errcode.New("groups/wrong_group", "the object belongs to another group")
	ErrNoKey         = errcode.New("groups/no_key", "this client holds no key for that content")
	ErrBadLink       = errcode.New("invite/bad_link", "the invite link is malformed")
	ErrBundle        = errcode.New("invite/bundle", "the invite bundle does not open with this link")
	ErrForgedJoin    = errcode.New("join/forged", "an external commit failed validation against the roster and group policy")
	ErrSelfJoinRate  = errcode.New("limit/self_join_rate", "at most 32 self-join commits into one group per hour; that join waits for the next hour")
	ErrGroupsLimit   = errcode.New("limit/groups", "a workspace holds at most 512 groups")
	ErrNotEntitled   = errcode.New("join/not_entitled", "this device is not entitled to join that group")
	ErrRootSelfJoin  = errcode.New("join/root", "the workspace root cannot be self-joined; it is entered with an invite")
	ErrMissingParent = errcode.New("join/no_parent", "this device is not in the workspace root yet")
	ErrUnboundLeaf   = errcode.New("leaf/unbound", "an MLS leaf is not bound to a live principal of the roster by its roster key")
	ErrStaleInfo     = errcode.New("groups/stale_bundle", "the channel's standing group info is behind its latest commit; a member's app republishes it when it next syncs, and the join is tried again")
)

// ErrJoinerNotInRoot refuses a parent channel's joiner that has no leaf in
// the workspace root as the receiver sees it. It wraps ErrForgedJoin; a
// receiver whose root may lag reads the root again before it acts on it.
var ErrJoinerNotInRoot = fmt.Errorf("%w: the joining device is not in the workspace root", ErrForgedJoin)

// Limits of spec/channels.md "Limits".
const (
	MaxSelfJoinsPerHour = 32
	MaxGroups           = 512
)
