package identity

import "weald/backend/identity/canon"

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

// LabelPrefix is prepended to every Label inside the signed structure.
const LabelPrefix = "weald 1 "

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

// SignedContent returns the bytes an Ed25519 Weald signature covers:
//
//	struct { opaque label<V> = "weald 1 " + label; opaque content<V>; }
func SignedContent(label Label, content []byte) ([]byte, error) {
	if !label.valid() {
		return nil, ErrBadLabel
	}
	var w canon.Writer
	w.String(LabelPrefix + string(label))
	w.Opaque(content)
	if err := w.Err(); err != nil {
		return nil, err
	}
	return w.Bytes(), nil
}
