package roster

import (
	"strings"

	"weald/backend/identity"
	"weald/backend/internal/codec"
)

// SetName sets a user's display name (docs/protocol/roster.md, operation
// 21 set-name; issue 17 item 3). Names are what people see in place of user
// ids; they need not be unique, so a lookup by name may be ambiguous.
type SetName struct {
	User identity.UserID
	Name string
}

// Type implements Body.
func (*SetName) Type() OpType { return OpSetName }

func (b *SetName) encode(w *codec.Writer) {
	w.Raw(b.User[:])
	w.String(b.Name)
}

func decodeSetName(r *codec.Reader) *SetName {
	return &SetName{User: identity.UserID(r.Array32()), Name: r.StringMax(MaxNameLen)}
}

// checkSetName: a live device of the named user (probation included: a
// recovered device may still say who it is) or an admin; the user is
// unrevoked; the name is valid and differs from the current one.
func (s *State) checkSetName(a actor, b *SetName) (func(), error) {
	u, ok := s.users[b.User]
	if !ok {
		return nil, reject(ErrUnknownPrincipal, "user %s", b.User.ShortString())
	}
	if a.device.User != b.User && !s.IsAdmin(a.device.ID) {
		return nil, reject(ErrNotAuthorized, "only the user's own devices or an admin may set a user's name")
	}
	if u.RevokedAt != nil {
		return nil, reject(ErrAlreadyRevoked, "user %s", b.User.ShortString())
	}
	if !validName(b.Name) {
		return nil, reject(ErrBadName, "%q", b.Name)
	}
	if u.Name == b.Name {
		return nil, reject(ErrBadOperation, "user %s is already called %q", b.User.ShortString(), b.Name)
	}
	return func() { u.Name = b.Name }, nil
}

// UsersNamed returns the unrevoked users whose display name equals name,
// ignoring case and surrounding spaces, in order of admission.
func (s *State) UsersNamed(name string) []UserInfo {
	name = strings.TrimSpace(name)
	var out []UserInfo
	for _, u := range s.Users() {
		if u.RevokedAt == nil && u.Name != "" && strings.EqualFold(u.Name, name) {
			out = append(out, u)
		}
	}
	return out
}

// CheckName refuses a name the roster refuses (roster/bad_name): 1 to 80
// bytes of printable UTF-8 without surrounding spaces.
func CheckName(name string) error {
	if !validName(name) {
		return ErrBadName
	}
	return nil
}
