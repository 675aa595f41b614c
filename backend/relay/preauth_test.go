package relay

import (
	"context"
	"sync/atomic"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// countingStore counts write transactions.
type countingStore struct {
	store.Store
	updates atomic.Int64
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	c.updates.Add(1)
	return c.Store.Update(ctx, fn)
}

// An unauthenticated client may send ACCESS_SET_PUBLISH (the bootstrap
// publish). Signed correctly by its own key, a first set for a workspace
// whose genesis key is unknown to it, or any set for a bootstrapped
// workspace, is refused without a write transaction. Before this change
// each one locked the workspace row in a write transaction after an Ed25519
// check (this test failed on main at 0478711: 1 write per attempt).
func TestPreAuthPublishIsRefusedWithoutAWrite(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		cs := &countingStore{Store: st}
		f := newFixture(t, cs)
		attacker := key("attacker")

		fresh := id("fresh ws " + t.Name())
		if err := f.svc.ProvisionWorkspace(f.ctx, fresh, pub(key("fresh genesis"))); err != nil {
			t.Fatal(err)
		}
		before := cs.updates.Load()
		for i := 0; i < 20; i++ {
			s1 := wire.AccessSet{Workspace: fresh, Version: 1, Devices: []wire.DeviceKey{{Pub: pub(attacker), User: id("u"), Admin: true}}}
			wire.SignAccessSet(&s1, attacker)
			wantCode(t, errOf(f.svc.PublishAccessSet(f.ctx, fresh, wire.AuthOK{}, s1)), wire.CodeAuthNotAdmin)

			again := f.newSet(1, devices("alice"), "", "")
			wire.SignAccessSet(&again, attacker)
			wantCode(t, errOf(f.svc.PublishAccessSet(f.ctx, f.ws, wire.AuthOK{}, again)), wire.CodeCASConflict)

			next := f.newSet(2, devices("mallory"), "", "")
			wire.SignAccessSet(&next, attacker)
			wantCode(t, errOf(f.svc.PublishAccessSet(f.ctx, f.ws, wire.AuthOK{}, next)), wire.CodeAuthNotAdmin)
		}
		if n := cs.updates.Load() - before; n != 0 {
			t.Fatalf("60 refused publishes opened %d write transactions, want 0", n)
		}
	})
}
