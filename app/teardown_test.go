package app_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"weald/app"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// noGenesis is a relay that refuses every workspace's first access set, so
// a creation stops after the provision, before any trust root is admitted.
type noGenesis struct{ *relay.Service }

func (n noGenesis) PublishAccessSet(ctx context.Context, ws wire.ID, p server.Principal, set wire.AccessSet) (uint64, error) {
	// Fail closed: only a store that answered "not held" lets the set
	// through (to be refused as workspace/unknown), never a store that did
	// not answer in time.
	err := n.Store().View(ctx, func(tx store.Tx) error { _, err := tx.Workspace(ctx, ws); return err })
	if set.Version == 1 && !errors.Is(err, store.ErrNotFound) {
		return 0, wire.Errorf(wire.CodeInternal, "This relay cannot take a first access set right now.")
	}
	return n.Service.PublishAccessSet(ctx, ws, p, set)
}

// A setup that stopped after the operator provisioned the workspace, before
// the relay accepted its first access set, is removed from this device and
// torn down at the relay (spec/channels.md "Ordering at bootstrap and at
// join": teardown for "a provision where no trust root was ever admitted").
func TestAbandonedSetupIsTornDownAtTheRelay(t *testing.T) {
	t.Parallel()
	r := relaytest.StartWrapped(t, relay.Config{}, func(s *relay.Service) server.Backend { return noGenesis{s} })
	w := workspaces(t)
	c, err := w.Create("Acme", "Dana", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the operator step is shown", func() bool { return only(t, w).Provision != nil })
	provision(t, r.Service, app.Created{Workspace: only(t, w)})
	raw, _ := hex.DecodeString(c.Workspace.ID)
	ws := wire.ID(raw)
	held := func() bool {
		err := r.Service.Store().View(context.Background(), func(tx store.Tx) error {
			_, err := tx.Workspace(context.Background(), ws)
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	eventually(t, "the setup stops at the first access set", func() bool {
		got := only(t, w)
		return got.Problem != nil && got.Problem.Code == "internal/error"
	}, func() string { return fmt.Sprintf("the workspace: %+v, problem %+v", only(t, w), only(t, w).Problem) })
	if !held() {
		t.Fatalf("the relay does not hold the provisioned workspace: %+v", only(t, w))
	}
	if err := w.Remove(c.Workspace.ID); err != nil {
		t.Fatal(err)
	}
	if held() {
		t.Fatal("the relay still holds the abandoned workspace")
	}
	if list, err := w.List(); err != nil || len(list) != 0 {
		t.Fatalf("after removal: %+v, %v", list, err)
	}
}
