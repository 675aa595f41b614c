package relay

import (
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// TestRefusedPublicationsAreKept: a device of the current access set
// without admin authority that publishes the next set is refused
// (auth/not_admin) and the set is kept for admins to read (a takeover
// attempt, spec/lifecycle.md "Detection"); a set signed by a key that is
// no device of the workspace, or refused for another reason, is not; only
// the newest wire.MaxAccessRefusals are kept, on SQLite and PostgreSQL.
func TestRefusedPublicationsAreKept(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		bad := f.newSet(2, devices("bob", "alice"), "agent", "recovery") // bob is no admin of version 1
		wire.SignAccessSet(&bad, key("bob"))
		f.refused(wire.CodeAuthNotAdmin, func() error { _, err := f.svc.Publish(f.ctx, f.ws, bad); return err })
		stranger := bad
		wire.SignAccessSet(&stranger, key("stranger"))
		f.refused(wire.CodeAuthNotAdmin, func() error { _, err := f.svc.Publish(f.ctx, f.ws, stranger); return err })
		stale := f.newSet(5, devices("bob", "alice"), "agent", "recovery")
		wire.SignAccessSet(&stale, key("bob"))
		f.refused(wire.CodeCASConflict, func() error { _, err := f.svc.Publish(f.ctx, f.ws, stale); return err })
		got, err := f.svc.AccessRefusals(f.ctx, f.ws, 0)
		if err != nil || len(got.Refusals) != 1 || got.Refusals[0].ID != 1 {
			t.Fatalf("kept: %+v %v", got, err)
		}
		if s, err := wire.DecodeAccessSet(got.Refusals[0].Set); err != nil || s.Version != 2 || string(s.Signer) != string(pub(key("bob"))) {
			t.Fatalf("the kept set: %+v %v", s, err)
		}
		for i := 0; i < wire.MaxAccessRefusals+3; i++ {
			if _, err := f.svc.Publish(f.ctx, f.ws, bad); err == nil {
				t.Fatal("accepted")
			}
		}
		all, err := f.svc.AccessRefusals(f.ctx, f.ws, 0)
		if err != nil || len(all.Refusals) != wire.MaxAccessRefusals || all.Refusals[0].ID != 5 {
			t.Fatalf("after %d more: %d kept, first %+v, %v", wire.MaxAccessRefusals+3, len(all.Refusals), all.Refusals[0].ID, err)
		}
		if after, err := f.svc.AccessRefusals(f.ctx, f.ws, all.Refusals[len(all.Refusals)-1].ID); err != nil || len(after.Refusals) != 0 {
			t.Fatalf("after the last: %+v %v", after, err)
		}
	})
}
