package relay

import (
	"context"
	"errors"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// DeleteWraps executes a signed WrapsDelete (spec/lifecycle.md "Removing a
// person", step 4): the second deletion path beside drop_before, and like
// it only on a member's instruction — the relay deletes nothing on its own.
// In one transaction it checks the instruction names this workspace and a
// group of it, that its signature verifies, and that its key is an admin
// device of the current access set and, once the workspace has a roster,
// a live admin device of the roster the relay folds (so an admin removed
// or demoted in the roster cannot delete wraps in the window before the
// next access set); then it deletes the group's
// recovery.wrap envelopes whose blinded tag the instruction names (only
// members of an epoch can compute its tags) and nothing else.
func (s *Service) DeleteWraps(ctx context.Context, ws wire.ID, p wire.AuthOK, d wire.WrapsDelete) (*wire.WrapsDeleted, error) {
	out, err := s.DeleteWrapsBatch(ctx, ws, p, []wire.WrapsDelete{d})
	if err != nil {
		return nil, err
	}
	return &out[0], nil
}

// DeleteWrapsBatch executes several WrapsDelete instructions (each checked
// as DeleteWraps checks one) in one transaction, all or none: the first
// refused item refuses the batch with its code and an "index" field.
func (s *Service) DeleteWrapsBatch(ctx context.Context, ws wire.ID, _ wire.AuthOK, items []wire.WrapsDelete) ([]wire.WrapsDeleted, error) {
	if len(items) == 0 || len(items) > wire.MaxWrapsBatch {
		return nil, wire.Errorf(wire.CodeMalformed, "A wrap deletion batch carries 1 to 256 instructions.")
	}
	for i := range items {
		d := &items[i]
		if d.Workspace != ws {
			return nil, wire.Errorf(wire.CodeWrongWorkspace, "The wrap deletion names another workspace.", wire.U("index", uint64(i)))
		}
		if d.VerifySignature() != nil {
			return nil, wire.Errorf(wire.CodeAuthBadSignature, "The wrap deletion's signature does not verify.", wire.U("index", uint64(i)))
		}
	}
	var out []wire.WrapsDeleted
	err := s.st.Update(ctx, func(tx store.Tx) error {
		out = out[:0]
		w, err := lockWorkspace(ctx, tx, ws)
		if err != nil {
			return err
		}
		set, err := s.currentSet(ctx, tx, ws, w.AccessVersion)
		if err != nil {
			return err
		}
		rosterAdmin := func(wire.ID) bool { return true }
		if w.RosterIndex > 0 {
			f, err := s.foldRoster(ctx, tx, ws, w)
			if err != nil {
				return err
			}
			defer f.mu.Unlock()
			rosterAdmin = func(key wire.ID) bool { return f.state.IsAdmin(identity.DeviceID(key)) }
		}
		for i := range items {
			d := &items[i]
			if dev, ok := set.set.Device(d.DeviceKey); !ok || !dev.Admin {
				return wire.Errorf(wire.CodeWrapsNotAdmin, "Only an admin device of the current access set may delete recovery wraps.",
					wire.U("index", uint64(i)))
			}
			if !rosterAdmin(wire.KeyID(d.DeviceKey)) {
				return wire.Errorf(wire.CodeWrapsNotRosterAdmin, "Only a device the workspace roster holds as a live admin may delete recovery wraps.",
					wire.U("index", uint64(i)))
			}
			if _, err := tx.Group(ctx, ws, d.Group); errors.Is(err, store.ErrNotFound) {
				return wire.Errorf(wire.CodeUnknownGroup, "That group is not in this workspace.", wire.U("index", uint64(i)))
			} else if err != nil {
				return err
			}
			n, nbytes, err := tx.DeleteRecoveryWraps(ctx, ws, d.Group, d)
			if err != nil {
				return err
			}
			out = append(out, wire.WrapsDeleted{Group: d.Group, Envelopes: uint64(n), Bytes: uint64(nbytes)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
