package groups

import (
	"fmt"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
)

// ErrDMThirdParty is a commit adding to a DM a device of neither of its two
// people (docs/protocol/dm.md): every receiver refuses it, never merged.
var ErrDMThirdParty = errcode.New("dm/third_party", "a direct message admits only the devices of its two people")

// CheckDMAdds checks the leaves (principal ids) a commit adds to DM group:
// each must be a device of one of the DM's two users. The device's user
// never changes, so every receiver judges alike.
func CheckDMAdds(st *roster.State, group identity.GroupID, added [][]byte) error {
	gi, ok := st.Group(group)
	if !ok || gi.Policy.Kind != roster.KindDM {
		return nil
	}
	for _, id := range added {
		if len(id) != 32 {
			continue // AuthenticateLeaf refuses it
		}
		d, ok := st.Device(identity.DeviceID(id))
		if !ok || (d.User != gi.DMUsers[0] && d.User != gi.DMUsers[1]) {
			return fmt.Errorf("%w (device %x…)", ErrDMThirdParty, id[:4])
		}
	}
	return nil
}
