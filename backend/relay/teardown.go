package relay

import (
	"context"
	"errors"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Teardown (spec/channels.md "Ordering at bootstrap and at join": a
// partial bootstrap is resumed, never torn down; teardown "remains correct
// for the case it was written for: a provision where no trust root was
// ever admitted, meaning the genesis key is intact and nothing has been
// consumed"; docs/protocol/wire.md "Teardown"). The relay deletes a
// workspace only on this instruction, signed by the workspace's genesis
// key, or the operator's (weald-relay teardown), and only while that key
// is unconsumed; it deletes nothing on its own.

// Teardown deletes workspace ws for the client holding its genesis key
// (TEARDOWN): sig is that key's signature over wire.TeardownContent of this
// relay's id and ws.
func (s *Service) Teardown(ctx context.Context, ws wire.ID, sig []byte) error {
	relayID, err := s.RelayID(ctx)
	if err != nil {
		return err
	}
	return s.teardown(ctx, ws, func(w store.Workspace) error {
		if wire.Verify(w.GenesisKey, wire.LabelTeardown, wire.TeardownContent(relayID, ws), sig) != nil {
			return wire.Errorf(wire.CodeAuthBadSignature, "This teardown is not signed by the workspace's genesis key for this relay.")
		}
		return nil
	})
}

// TeardownWorkspace is the operator's teardown (weald-relay teardown):
// the same rule, without a signature.
func (s *Service) TeardownWorkspace(ctx context.Context, ws wire.ID) error {
	return s.teardown(ctx, ws, func(store.Workspace) error { return nil })
}

func (s *Service) teardown(ctx context.Context, ws wire.ID, check func(store.Workspace) error) error {
	return s.st.Update(ctx, func(tx store.Tx) error {
		w, err := tx.LockWorkspace(ctx, ws)
		if errors.Is(err, store.ErrNotFound) {
			return errUnknownWorkspace(ws)
		}
		if err != nil {
			return err
		}
		if w.GenesisConsumed {
			return errActive(ws)
		}
		if err := check(w); err != nil {
			return err
		}
		deleted, err := tx.DeleteUnconsumedWorkspace(ctx, ws)
		if err != nil {
			return err
		}
		if !deleted {
			return errActive(ws)
		}
		return nil
	})
}

func errActive(ws wire.ID) error {
	return wire.Errorf(wire.CodeProvisionActive, "A trust root was admitted to this workspace, so it is finished on the device that created it, never torn down.",
		wire.B("workspace", ws[:]))
}
