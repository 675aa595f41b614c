package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// `weald-relay teardown -workspace HEX` deletes a provisioned workspace
// whose genesis key was never consumed, and refuses one with a trust root
// (provision/active, exit 1) and a bad id (exit 2), leaving it held.
func TestTeardownCommand(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "relay.db")
	env := envOf(map[string]string{})
	gen := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	fresh, active := wire.ID{1}, wire.ID{2}
	func() {
		st, err := store.OpenSQLite(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc := relay.New(relay.Config{Store: st})
		for _, ws := range []wire.ID{fresh, active} {
			if err := svc.ProvisionWorkspace(context.Background(), ws, gen); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Update(context.Background(), func(tx store.Tx) error { return tx.ConsumeGenesis(context.Background(), active) }); err != nil {
			t.Fatal(err)
		}
	}()
	teardown := func(ws string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"teardown", "-workspace", ws, "-db", db}, env, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, text := teardown(hex.EncodeToString(active[:])); code != 1 || !strings.Contains(text, string(wire.CodeProvisionActive)) {
		t.Fatalf("a workspace with a trust root: exit %d: %s", code, text)
	}
	if code, text := teardown("xyz"); code != 2 {
		t.Fatalf("a bad id: exit %d: %s", code, text)
	}
	if code, text := teardown(hex.EncodeToString(fresh[:])); code != 0 || !strings.Contains(text, "tore down workspace") {
		t.Fatalf("a workspace without one: exit %d: %s", code, text)
	}
	st, err := store.OpenSQLite(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.View(context.Background(), func(tx store.Tx) error {
		if _, err := tx.Workspace(context.Background(), fresh); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the torn-down workspace: %v", err)
		}
		_, err := tx.Workspace(context.Background(), active)
		return err
	})
	if err != nil {
		t.Fatalf("the workspace with a trust root: %v", err)
	}
}
