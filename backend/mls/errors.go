package mls

import (
	"errors"
	"fmt"

	"weald/backend/mls/suite"
)

// Sentinel errors of the group layer, checked with errors.Is. Each message
// starts with a stable code "mls/<name>" followed by one plain sentence;
// wrapped errors add what was being checked. Errors of the lower layers
// (tree, framing, …) are wrapped, so their codes stay visible.
var (
	ErrUnsupported     = errors.New("mls/unsupported: the cipher suite, version or feature is not supported")
	ErrDecode          = errors.New("mls/decode: the message is malformed")
	ErrWrongGroup      = errors.New("mls/wrong_group: the message is for another group")
	ErrWrongEpoch      = errors.New("mls/wrong_epoch: the message is for another epoch")
	ErrWireFormat      = errors.New("mls/wire_format: the message has an unexpected wire format")
	ErrSender          = errors.New("mls/sender: the sender is not allowed to send this message")
	ErrInvalidProposal = errors.New("mls/invalid_proposal: the proposals of the commit are not a valid set")
	ErrInvalidCommit   = errors.New("mls/invalid_commit: the commit is invalid")
	ErrConfirmation    = errors.New("mls/confirmation_tag: the confirmation tag does not verify")
	ErrSignature       = errors.New("mls/bad_signature: a signature does not verify")
	ErrNoKeyPackage    = errors.New("mls/no_key_package: the welcome is for none of our key packages")
	ErrWelcome         = errors.New("mls/invalid_welcome: the welcome is invalid")
	ErrGroupInfo       = errors.New("mls/invalid_group_info: the group info is invalid")
	ErrExternalCommit  = errors.New("mls/invalid_external_commit: the external commit breaks the rules of RFC 9420 §12.4.3.2")
	ErrNotMember       = errors.New("mls/not_member: we are no longer a member of this group")
	ErrState           = errors.New("mls/state: the stored group state is invalid")
	ErrUnknownProposal = errors.New("mls/unknown_proposal: a proposal reference names no cached proposal")
	ErrPSK             = errors.New("mls/psk: a pre-shared key is unknown")
	ErrStaleCommit     = errors.New("mls/stale_commit: the staged commit no longer applies to this group")
	ErrSignatureKey    = errors.New("mls/bad_signature_key: the signature key is not a valid private key of the group's cipher suite")
	ErrGroupNeeds      = errors.New("mls/group_needs: this client does not meet the group's required capabilities or extensions, so it does not join")
	ErrReInit          = errors.New("mls/reinit_pending: the group was reinitialised and takes no more messages; continue in the new group")
)

// unsupported wraps a lower layer's "unsupported suite" error so callers can
// test for ErrUnsupported alone.
func unsupported(err error) error {
	if errors.Is(err, suite.ErrUnsupportedSuite) {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return err
}
