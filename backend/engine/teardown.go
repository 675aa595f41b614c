package engine

import (
	"context"
	"crypto/ed25519"
	"errors"

	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Abandon asks the relay to delete the workspace this device is creating,
// when no trust root was ever admitted to it: this device still holds the
// genesis key and never saw the relay accept the first access set
// (spec/channels.md "Ordering at bootstrap and at join": teardown is right
// for "a provision where no trust root was ever admitted"; a partial
// bootstrap past that is resumed, never torn down; docs/protocol/wire.md
// "Teardown"). It reports whether the relay deleted it. Nothing is sent,
// and false returned, for a workspace this device joined or whose first
// access set was accepted; the relay answering that a trust root was
// admitted after all (an answer lost) or that it holds no such workspace
// is false too, not an error. After a teardown the genesis key is
// forgotten, so a second call sends nothing. The caller removes the local
// data.
func (e *Engine) Abandon(ctx context.Context) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.meta.Creator || len(e.meta.GenesisSeed) != 32 || e.meta.Steps[StepGenesisSet] {
		return false, nil
	}
	gen, err := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed)
	if err != nil {
		return false, err
	}
	priv := ed25519.NewKeyFromSeed(gen.Seed())
	ws, pinned := wire.ID(e.meta.Workspace), wire.ID(e.meta.RelayID)
	err = relayclient.Teardown(ctx, e.meta.Relay, ws, func(relay wire.ID) []byte {
		if pinned != (wire.ID{}) && relay != pinned {
			return nil // another relay at this address: sign nothing for it
		}
		return wire.Sign(priv, wire.LabelTeardown, wire.TeardownContent(relay, ws))
	})
	var we *wire.Error
	switch {
	case err == nil:
		// The workspace is gone, and with it what its genesis key was for.
		e.meta.GenesisSeed = nil
		return true, e.persistMeta(ctx)
	case errors.As(err, &we) && (we.Code == wire.CodeWorkspaceUnknown || we.Code == wire.CodeProvisionActive):
		return false, nil
	}
	return false, err
}
