package relay

import (
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// TestRecoveredAdminPublishesOnlyWithRosterAuthority: the only admin
// recovers onto carol's key (docs/protocol/lifecycle.md "Recovery onto a
// new device"). No access set lists carol as an admin, and none can: the
// relay takes carol's set only once its own fold of the roster gives carol
// admin authority (the recovery principal's approve-device, 72 h on).
// Before that, on probation, it is refused (auth/not_admin), and so is a
// listed member without roster authority.
func TestRecoveredAdminPublishesOnlyWithRosterAuthority(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newRosterFixture(t, st)
		ph, err := identity.NewRecoveryPhrase(&detRand{})
		if err != nil {
			t.Fatal(err)
		}
		rk, err := identity.DeriveRecoveryKeys(ph)
		if err != nil {
			t.Fatal(err)
		}
		user := identity.UserID(id("user alice"))
		pop, err := roster.RecoveryPossession(identity.WorkspaceID(f.ws), user, rk.Signature)
		if err != nil {
			t.Fatal(err)
		}
		f.append("alice", f.sign("alice", &roster.AdmitRecovery{User: user, Recovery: rk.Signature.Public(), HPKE: rk.HPKE.PublicBytes(), Possession: pop}))
		asRecovery := func(body roster.Body) error {
			op, err := roster.Sign(roster.RecoverySigner(rk.Signature), f.state.Head(), f.clock.now(), body)
			if err != nil {
				t.Fatal(err)
			}
			rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
			if _, err := f.svc.RosterAppend(f.ctx, f.ws, rec, wire.ID(f.state.Head()), op.Bytes()); err != nil {
				return err
			}
			return f.state.Apply(op)
		}
		carol := devKey(t, "carol")
		cpop, err := roster.DevicePossession(identity.WorkspaceID(f.ws), user, carol)
		if err != nil {
			t.Fatal(err)
		}
		if err := asRecovery(&roster.RecoverDevice{User: user, Device: carol.Public(), Possession: cpop}); err != nil {
			t.Fatal(err)
		}
		set := func(signer string) wire.AccessSet {
			s := f.newSet(3, []dev{{name: "alice", user: "user alice", admin: true}, {name: "carol", user: "user alice", admin: true}}, "", "")
			wire.SignAccessSet(&s, key(signer))
			return s
		}
		// On probation: refused, as a listed member without authority is.
		f.refused(wire.CodeAuthNotAdmin, func() error { _, err := f.svc.Publish(f.ctx, f.ws, set("carol")); return err })
		f.refused(wire.CodeAuthNotAdmin, func() error { _, err := f.svc.Publish(f.ctx, f.ws, set("bob")); return err })
		// The wait, then the recovery principal's approval: carol publishes.
		f.clock.advance(roster.ProbationWait + time.Minute)
		if err := asRecovery(&roster.ApproveDevice{Device: identity.DeviceIDOf(carol.Public())}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Publish(f.ctx, f.ws, set("carol")); err != nil {
			t.Fatalf("the approved device's set: %v", err)
		}
	})
}
