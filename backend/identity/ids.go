package identity

import (
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"weald/backend/errcode"
)

// IDKind names the kind of a 32-byte id.
type IDKind interface {
	idPrefix() string
}

// Marker types for id kinds that are not key kinds.
type (
	// User ids are random at account creation.
	User struct{}
	// Group ids are deterministic for the root, default channels and DMs
	// (backend/roster.RootGroupID and friends) and random otherwise.
	Group struct{}
	// Workspace ids are assigned at provisioning.
	Workspace struct{}
)

func (Device) idPrefix() string    { return "dev" }
func (Agent) idPrefix() string     { return "agent" }
func (Recovery) idPrefix() string  { return "rec" }
func (User) idPrefix() string      { return "user" }
func (Group) idPrefix() string     { return "grp" }
func (Workspace) idPrefix() string { return "ws" }

// ID is a 32-byte id of kind K. Ids are public and comparable (map keys).
type ID[K IDKind] [32]byte

// Id types.
type (
	DeviceID    = ID[Device]
	AgentID     = ID[Agent]
	RecoveryID  = ID[Recovery]
	UserID      = ID[User]
	GroupID     = ID[Group]
	WorkspaceID = ID[Workspace]
)

// ErrBadID: the text is not "<prefix>_<64 hex>".
var ErrBadID = errcode.New("identity/bad_id", "the id is not a prefixed 64-digit hex string")

func idPrefix[K IDKind]() string {
	var k K
	return k.idPrefix()
}

// NewRandomID reads 32 random bytes (user ids, random channel ids, invite ids).
func NewRandomID[K IDKind](rand io.Reader) (ID[K], error) {
	var id ID[K]
	if _, err := io.ReadFull(rand, id[:]); err != nil {
		return id, fmt.Errorf("new %s id: %w", idPrefix[K](), err)
	}
	return id, nil
}

// DeviceIDOf returns SHA-256 of the device public key (conventions.md).
func DeviceIDOf(p DevicePublic) DeviceID { return DeviceID(p.Hash()) }

// AgentIDOf returns SHA-256 of the agent public key.
func AgentIDOf(p AgentPublic) AgentID { return AgentID(p.Hash()) }

// RecoveryIDOf returns SHA-256 of the recovery public key.
func RecoveryIDOf(p RecoveryPublic) RecoveryID { return RecoveryID(p.Hash()) }

// IsZero reports whether all 32 bytes are zero.
func (id ID[K]) IsZero() bool { return id == ID[K]{} }

// String prints "<prefix>_<64 hex>".
func (id ID[K]) String() string { return idPrefix[K]() + "_" + hex.EncodeToString(id[:]) }

// ShortString prints "<prefix>_<8 hex>".
func (id ID[K]) ShortString() string { return idPrefix[K]() + "_" + hex.EncodeToString(id[:4]) }

// MarshalText encodes String.
func (id ID[K]) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses String's output.
func (id *ID[K]) UnmarshalText(b []byte) error {
	pre := idPrefix[K]() + "_"
	s := string(b)
	if !strings.HasPrefix(s, pre) {
		return fmt.Errorf("%w: want prefix %q", ErrBadID, pre)
	}
	raw, err := hex.DecodeString(s[len(pre):])
	if err != nil || len(raw) != 32 {
		return ErrBadID
	}
	copy(id[:], raw)
	return nil
}

// PrincipalKind is the kind of a principal; the values are its wire encoding.
type PrincipalKind uint8

// Principal kinds (gaps.md "Identity and the roster").
const (
	KindUser     PrincipalKind = 1
	KindDevice   PrincipalKind = 2
	KindAgent    PrincipalKind = 3
	KindRecovery PrincipalKind = 4
)

// Valid reports whether k is one of the four kinds.
func (k PrincipalKind) Valid() bool { return k >= KindUser && k <= KindRecovery }

func (k PrincipalKind) String() string {
	switch k {
	case KindUser:
		return "user"
	case KindDevice:
		return "device"
	case KindAgent:
		return "agent"
	case KindRecovery:
		return "recovery"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Principal names a user, device, agent or recovery principal. Comparable.
type Principal struct {
	Kind PrincipalKind
	ID   [32]byte
}

// UserPrincipal and friends build a Principal from a typed id.
func UserPrincipal(id UserID) Principal         { return Principal{KindUser, id} }
func DevicePrincipal(id DeviceID) Principal     { return Principal{KindDevice, id} }
func AgentPrincipal(id AgentID) Principal       { return Principal{KindAgent, id} }
func RecoveryPrincipal(id RecoveryID) Principal { return Principal{KindRecovery, id} }

// String prints the principal's id with its kind prefix.
func (p Principal) String() string {
	switch p.Kind {
	case KindUser:
		return UserID(p.ID).String()
	case KindDevice:
		return DeviceID(p.ID).String()
	case KindAgent:
		return AgentID(p.ID).String()
	case KindRecovery:
		return RecoveryID(p.ID).String()
	}
	return fmt.Sprintf("%s_%x", p.Kind, p.ID)
}

// ShortString prints the kind prefix and 8 hex digits.
func (p Principal) ShortString() string {
	s := p.String()
	if i := strings.IndexByte(s, '_'); i >= 0 && len(s) >= i+9 {
		return s[:i+9]
	}
	return s
}
