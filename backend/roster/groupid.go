package roster

import (
	"bytes"
	"crypto/sha256"

	"weald/backend/identity"
)

// Deterministic group ids (gaps.md "Identifiers and encoding"). H is SHA-256
// and ‖ is byte concatenation. Other channels take random ids.

// RootGroupID is H("weald/ws" ‖ workspace_id).
func RootGroupID(ws identity.WorkspaceID) identity.GroupID {
	return hashID("weald/ws", ws[:])
}

// Default channel names.
const (
	GeneralName  = "general"
	ActivityName = "activity"
)

// DefaultChannelID is H("weald/chan" ‖ workspace_id ‖ name) for name
// "general" or "activity".
func DefaultChannelID(ws identity.WorkspaceID, name string) identity.GroupID {
	return hashID("weald/chan", ws[:], []byte(name))
}

// GeneralGroupID is the id of chan:ws/general.
func GeneralGroupID(ws identity.WorkspaceID) identity.GroupID {
	return DefaultChannelID(ws, GeneralName)
}

// ActivityGroupID is the id of chan:ws/activity.
func ActivityGroupID(ws identity.WorkspaceID) identity.GroupID {
	return DefaultChannelID(ws, ActivityName)
}

// DMGroupID is H("weald/dm" ‖ workspace_id ‖ min(u1,u2) ‖ max(u1,u2)), so
// both sides derive the same id, and it differs between workspaces (the
// relay keys groups by workspace and group, but an id of one workspace must
// not be predictable from another's users alone).
func DMGroupID(ws identity.WorkspaceID, u1, u2 identity.UserID) identity.GroupID {
	if bytes.Compare(u1[:], u2[:]) > 0 {
		u1, u2 = u2, u1
	}
	return hashID("weald/dm", ws[:], u1[:], u2[:])
}

func hashID(prefix string, parts ...[]byte) identity.GroupID {
	h := sha256.New()
	h.Write([]byte(prefix))
	for _, p := range parts {
		h.Write(p)
	}
	var id identity.GroupID
	h.Sum(id[:0])
	return id
}
