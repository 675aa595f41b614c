package identity

import "weald/backend/internal/codec"

// Label is the short ASCII name of a signed object kind (conventions.md).
type Label string

// Labels used by this package and backend/roster. Other packages define
// their own ("envelope", "access-set", ...) with the same mechanism.
const (
	LabelRosterOp     Label = "roster-op"
	LabelGenesis      Label = "roster-genesis"
	LabelDelegation   Label = "delegation"
	LabelInviteRedeem Label = "invite-redeem"
	LabelPossession   Label = "key-possession"
)

func (l Label) valid() bool {
	if len(l) == 0 || len(l) > 64 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if l[i] < 0x21 || l[i] > 0x7e {
			return false
		}
	}
	return true
}

// SignedContent returns the bytes an Ed25519 Weald signature covers
// ([codec.SignedContent]):
//
//	struct { opaque label<V> = "weald 1 " + label; opaque content<V>; }
func SignedContent(label Label, content []byte) ([]byte, error) {
	if !label.valid() {
		return nil, ErrBadLabel
	}
	msg := codec.SignedContent(string(label), content)
	if msg == nil {
		return nil, codec.ErrTooLong
	}
	return msg, nil
}
