package framing

import "errors"

// Sentinel errors, matched with errors.Is; each starts with a stable code.
var (
	ErrDecode          = errors.New("mls/framing/decode: the message is malformed")
	ErrVersion         = errors.New("mls/framing/version: the message is not MLS 1.0")
	ErrMembershipTag   = errors.New("mls/framing/membership_tag: the membership tag does not verify")
	ErrSignature       = errors.New("mls/framing/signature: the content signature does not verify")
	ErrDecrypt         = errors.New("mls/framing/decrypt: the private message could not be decrypted")
	ErrSender          = errors.New("mls/framing/sender: the sender type is not allowed here")
	ErrPadding         = errors.New("mls/framing/padding: the private message padding is not all zero")
	ErrGroupContext    = errors.New("mls/framing/group_context: a group context is required for this sender")
	ErrContentMismatch = errors.New("mls/framing/content_mismatch: the message fields do not match its content")
)
