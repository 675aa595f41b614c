package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// crashedCreation creates a workspace whose setup stops right after step:
// the engine, still open, and the workspace id.
func crashedCreation(t *testing.T, r *testRelay, step string, seed byte) *Engine {
	t.Helper()
	opts := r.options(t, "creator", seed)
	crash := errors.New("simulated crash")
	opts.Crash = func(s string) error {
		if s == step {
			return crash
		}
		return nil
	}
	e, err := CreateWorkspace(testCtx(t), opts, "Acme", r.URL)
	if !errors.Is(err, crash) {
		t.Fatalf("create stopping at %s: %v", step, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// relayHolds reports whether the relay holds workspace ws.
func relayHolds(t *testing.T, r *testRelay, ws wire.ID) bool {
	t.Helper()
	err := r.svc.Store().View(testCtx(t), func(tx store.Tx) error {
		_, err := tx.Workspace(context.Background(), ws)
		return err
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// spec/channels.md "Ordering at bootstrap and at join": teardown is right
// only for "a provision where no trust root was ever admitted"; a partial
// bootstrap past that is resumed. Written from both sides: the creator
// abandoning a creation that stopped after the provision gets it deleted;
// a signature by another key, or the genesis key's for another relay,
// deletes nothing; once the first access set was accepted, not even the
// genesis key's signature does, and Abandon sends nothing.
func TestAbandonTearsDownOnlyBeforeATrustRoot(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)

	// Provisioned, no trust root yet.
	e := crashedCreation(t, r, StepProvision, 60)
	ws := wire.ID(e.meta.Workspace)
	if !relayHolds(t, r, ws) {
		t.Fatal("the relay does not hold the provisioned workspace")
	}
	gen, err := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed)
	if err != nil {
		t.Fatal(err)
	}
	genesis := gen.Seed()
	mallory, err := identity.GenerateKey[identity.Genesis](seededRand(61))
	if err != nil {
		t.Fatal(err)
	}
	for name, sign := range map[string]func(wire.ID) []byte{
		"another key": func(relay wire.ID) []byte {
			return wire.Sign(edKey(mallory.Seed()), wire.LabelTeardown, wire.TeardownContent(relay, ws))
		},
		"the genesis key for another relay": func(wire.ID) []byte {
			return wire.Sign(edKey(genesis), wire.LabelTeardown, wire.TeardownContent(wire.ID{1}, ws))
		},
		"no signature": func(wire.ID) []byte { return nil },
	} {
		if err := relayclient.Teardown(ctx, r.URL, ws, sign); codeOf(err) != string(wire.CodeAuthBadSignature) {
			t.Fatalf("a teardown signed by %s: %v, want %s", name, err, wire.CodeAuthBadSignature)
		}
		if !relayHolds(t, r, ws) {
			t.Fatalf("a teardown signed by %s deleted the workspace", name)
		}
	}
	torn, err := e.Abandon(ctx)
	if err != nil || !torn {
		t.Fatalf("abandoning before a trust root: %v, %v", torn, err)
	}
	if relayHolds(t, r, ws) {
		t.Fatal("the relay still holds the abandoned workspace")
	}
	if torn, err := e.Abandon(ctx); err != nil || torn {
		t.Fatalf("abandoning it again: %v, %v; want nothing to do", torn, err)
	}

	// The first access set accepted: a trust root was admitted (another
	// relay: each address has a few pre-authentication requests a minute).
	r = startRelay(t)
	e2 := crashedCreation(t, r, StepGenesisSet, 62)
	ws2 := wire.ID(e2.meta.Workspace)
	gen2, _ := identity.PrivateFromSeed[identity.Genesis](e2.meta.GenesisSeed)
	err = relayclient.Teardown(ctx, r.URL, ws2, func(relay wire.ID) []byte {
		return wire.Sign(edKey(gen2.Seed()), wire.LabelTeardown, wire.TeardownContent(relay, ws2))
	})
	if codeOf(err) != string(wire.CodeProvisionActive) || !relayHolds(t, r, ws2) {
		t.Fatalf("the genesis key's teardown after the trust root: %v (held %v)", err, relayHolds(t, r, ws2))
	}
	if torn, err := e2.Abandon(ctx); err != nil || torn {
		t.Fatalf("abandoning after the trust root: %v, %v; want nothing sent", torn, err)
	}
	if !relayHolds(t, r, ws2) {
		t.Fatal("the workspace with a trust root was deleted")
	}
}

// edKey is the Ed25519 private key of a seed.
func edKey(seed []byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(seed) }
