package groups

import "errors"

// Errors, checked with errors.Is. Each is a stable code and one sentence.
var (
	ErrDecode        = errors.New("groups/decode: the bytes are not a valid encoding of this object")
	ErrVersion       = errors.New("groups/version: the object has an unknown format version")
	ErrOpen          = errors.New("groups/open: the sealed data does not open with this key")
	ErrWrongGroup    = errors.New("groups/wrong_group: the object belongs to another group")
	ErrNoKey         = errors.New("groups/no_key: this client holds no key for that content")
	ErrBadLink       = errors.New("invite/bad_link: the invite link is malformed")
	ErrBundle        = errors.New("invite/bundle: the invite bundle does not open with this link")
	ErrForgedJoin    = errors.New("join/forged: an external commit failed validation against the roster and group policy")
	ErrSelfJoinRate  = errors.New("limit/self_join_rate: at most 32 self-join commits into one group per hour; that join waits for the next hour")
	ErrGroupsLimit   = errors.New("limit/groups: a workspace holds at most 512 groups")
	ErrNotEntitled   = errors.New("join/not_entitled: this device is not entitled to join that group")
	ErrRootSelfJoin  = errors.New("join/root: the workspace root cannot be self-joined; it is entered with an invite")
	ErrMissingParent = errors.New("join/no_parent: this device is not in the workspace root yet")
	ErrUnboundLeaf   = errors.New("leaf/unbound: an MLS leaf is not bound to a live principal of the roster by its roster key")
)

// Limits of spec/channels.md "Limits".
const (
	MaxSelfJoinsPerHour = 32
	MaxGroups           = 512
)
