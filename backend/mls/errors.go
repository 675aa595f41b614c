package mls

import (
	"errors"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/mls/suite"
)

// Sentinel errors of the group layer, checked with errors.Is. Each message
// starts with a stable code "mls/<name>" followed by one plain sentence;
// wrapped errors add what was being checked. Errors of the lower layers
// (tree, framing, …) are wrapped, so their codes stay visible.
var (
	ErrUnsupported     = errcode.New("mls/unsupported", "the cipher suite, version or feature is not supported")
	ErrDecode          = errcode.New("mls/decode", "the message is malformed")
	ErrWrongGroup      = errcode.New("mls/wrong_group", "the message is for another group")
	ErrWrongEpoch      = errcode.New("mls/wrong_epoch", "the message is for another epoch")
	ErrWireFormat      = errcode.New("mls/wire_format", "the message has an unexpected wire format")
	ErrSender          = errcode.New("mls/sender", "the sender is not allowed to send this message")
	ErrInvalidProposal = errcode.New("mls/invalid_proposal", "the proposals of the commit are not a valid set")
	ErrInvalidCommit   = errcode.New("mls/invalid_commit", "the commit is invalid")
	ErrConfirmation    = errcode.New("mls/confirmation_tag", "the confirmation tag does not verify")
	ErrSignature       = errcode.New("mls/bad_signature", "a signature does not verify")
	ErrNoKeyPackage    = errcode.New("mls/no_key_package", "the welcome is for none of our key packages")
	ErrWelcome         = errcode.New("mls/invalid_welcome", "the welcome is invalid")
	ErrGroupInfo       = errcode.New("mls/invalid_group_info", "the group info is invalid")
	ErrExternalCommit  = errcode.New("mls/invalid_external_commit", "the external commit breaks the rules of RFC 9420 §12.4.3.2")
	ErrNotMember       = errcode.New("mls/not_member", "we are no longer a member of this group")
	ErrState           = errcode.New("mls/state", "the stored group state is invalid")
	ErrUnknownProposal = errcode.New("mls/unknown_proposal", "a proposal reference names no cached proposal")
	ErrPSK             = errcode.New("mls/psk", "a pre-shared key is unknown")
	ErrStaleCommit     = errcode.New("mls/stale_commit", "the staged commit no longer applies to this group")
	ErrSignatureKey    = errcode.New("mls/bad_signature_key", "the signature key is not a valid private key of the group's cipher suite")
	ErrGroupNeeds      = errcode.New("mls/group_needs", "this client does not meet the group's required capabilities or extensions, so it does not join")
	ErrReInit          = errcode.New("mls/reinit_pending", "the group was reinitialised and takes no more messages; continue in the new group")
)

// unsupported wraps a lower layer's "unsupported suite" error so callers can
// test for ErrUnsupported alone.
func unsupported(err error) error {
	if errors.Is(err, suite.ErrUnsupportedSuite) {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return err
}
