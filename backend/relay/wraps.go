package relay

import (
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// DeleteWraps executes a signed WrapsDelete (spec/lifecycle.md "Removing a
// person", step 4): the second deletion path beside drop_before, and like
// it only on a member's instruction — the relay deletes nothing on its own.
// In one transaction it checks the instruction names this workspace and a
// group of it, that its signature verifies, and that its key is an admin
// device of the current access set; then it deletes the group's
// recovery.wrap envelopes whose blinded tag the instruction names (only
// members of an epoch can compute its tags) and nothing else.
func (s *Service) DeleteWraps(ctx context.Context, ws wire.ID, _ wire.AuthOK, d wire.WrapsDelete) (*wire.WrapsDeleted, error) {
	if d.Workspace != ws {
		return nil, wire.Errorf(wire.CodeWrongWorkspace, "The wrap deletion names another workspace.")
	}
	if d.VerifySignature() != nil {
		return nil, wire.Errorf(wire.CodeAuthBadSignature, "The wrap deletion's signature does not verify.")
	}
	var out *wire.WrapsDeleted
	err := s.st.Update(ctx, func(tx store.Tx) error {
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		set, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		if dev, ok := set.set.Device(d.DeviceKey); !ok || !dev.Admin {
			return wire.Errorf(wire.CodeWrapsNotAdmin, "Only an admin device of the current access set may delete recovery wraps.")
		}
		if _, err := tx.Group(ctx, ws, d.Group); errors.Is(err, store.ErrNotFound) {
			return wire.Errorf(wire.CodeUnknownGroup, "That group is not in this workspace.")
		} else if err != nil {
			return err
		}
		n, nbytes, err := tx.DeleteRecoveryWraps(ctx, ws, d.Group, &d)
		if err != nil {
			return err
		}
		out = &wire.WrapsDeleted{Group: d.Group, Envelopes: uint64(n), Bytes: uint64(nbytes)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
