package framing

import (
	"weald/backend/errcode"
)

// Sentinel errors, matched with errors.Is; each starts with a stable code.
var (
	ErrDecode          = errcode.New("mls/framing/decode", "the message is malformed")
	ErrVersion         = errcode.New("mls/framing/version", "the message is not MLS 1.0")
	ErrMembershipTag   = errcode.New("mls/framing/membership_tag", "the membership tag does not verify")
	ErrSignature       = errcode.New("mls/framing/signature", "the content signature does not verify")
	ErrDecrypt         = errcode.New("mls/framing/decrypt", "the private message could not be decrypted")
	ErrSender          = errcode.New("mls/framing/sender", "the sender type is not allowed here")
	ErrPadding         = errcode.New("mls/framing/padding", "the private message padding is not all zero")
	ErrGroupContext    = errcode.New("mls/framing/group_context", "a group context is required for this sender")
	ErrContentMismatch = errcode.New("mls/framing/content_mismatch", "the message fields do not match its content")
)
