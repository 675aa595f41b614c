package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

func alertsWith(e *Engine, code errcode.Code) []Alert {
	var out []Alert
	for _, a := range e.Status().Alerts {
		if a.Code == string(code) {
			out = append(out, a)
		}
	}
	return out
}

// TestUnexpectedRosterChangeAlerts (spec/lifecycle.md "Detection"): an
// admission or revocation the local user did not perform raises an alert
// naming the acting device, once; one's own operations raise none; a
// newcomer is not alerted about the history before it joined; a device
// recovered with a phrase raises an approval request for every admin
// admitted before it, naming the recovery principal spent (on the main
// before this change none of these alerts existed).
func TestUnexpectedRosterChangeAlerts(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 110)
	sam := inviteAndJoin(t, r, dana, "sam", 111)
	samWords, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil || samWords == "" {
		t.Fatalf("phrase: %q %v", samWords, err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(sam, AlertRosterChange)); n != 0 {
		t.Fatalf("the newcomer was alerted %d times about the history before it joined: %+v", n, sam.Status().Alerts)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(dana, AlertRosterChange)); n != 0 {
		t.Fatalf("Dana was alerted about a join by her own invite: %+v", dana.Status().Alerts)
	}
	// Dana promotes Sam: Sam is told, naming Dana's device; Dana is not.
	if err := dana.Promote(ctx, sam.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := alertsWith(sam, AlertRosterChange)
	if len(got) != 1 || !strings.Contains(got[0].Message, "admin") || got[0].Actor != identity.DevicePrincipal(dana.devID).String() ||
		!strings.Contains(got[0].Message, dana.devID.ShortString()) {
		t.Fatalf("Sam's alerts after the promotion: %+v", got)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(dana, AlertRosterChange)); n != 0 {
		t.Fatalf("Dana was alerted about her own promotion: %+v", dana.Status().Alerts)
	}
	// Sam invites Lee: Dana is told, naming Sam's device and its invite.
	inviteAndJoin(t, r, sam, "lee", 113)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	joined := alertsWith(dana, AlertRosterChange)
	if len(joined) != 1 || !strings.Contains(joined[0].Message, "by an invite of device "+sam.devID.ShortString()) {
		t.Fatalf("the admin was not told that Lee joined by Sam's invite: %+v", joined)
	}
	// Again: the same operation alerts once.
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(sam, AlertRosterChange)); n != 1 {
		t.Fatalf("alerts after a second sync: %d", n)
	}

	// Somebody holding Sam's phrase admits a device of theirs.
	rk := mustRecoveryKeys(t, samWords)
	thief, pop := newRecoveredDevice(t, sam, identity.UserID(sam.meta.User), 112)
	if _, err := dana.syncRoster(ctx); err != nil {
		t.Fatal(err)
	}
	op, err := roster.Sign(roster.RecoverySigner(rk.Signature), dana.roster.Head(), time.Now(),
		&roster.RecoverDevice{User: identity.UserID(sam.meta.User), Device: thief.Public(), Possession: pop})
	if err != nil {
		t.Fatal(err)
	}
	rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
	if _, err := r.svc.RosterAppend(ctx, wire.ID(dana.meta.Workspace), rec, wire.ID(dana.roster.Head()), op.Bytes()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, sam} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		req := alertsWith(e, AlertRecoveredDevice)
		if len(req) != 1 || req[0].Actor != op.Actor.String() || !strings.Contains(req[0].Message, "probation") ||
			!strings.Contains(req[0].Message, identity.DeviceIDOf(thief.Public()).ShortString()) {
			t.Fatalf("%s's approval requests: %+v", e.meta.Name, req)
		}
	}
	// Dana approves it; a second approval finds nothing to approve.
	did := hexID(identity.DeviceIDOf(thief.Public())).hex()
	if _, err := dana.ApproveDevice(ctx, did); err != nil {
		t.Fatal(err)
	}
	if d, _ := dana.roster.Device(identity.DeviceIDOf(thief.Public())); d.Probation {
		t.Fatal("still on probation after the approval")
	}
	set, err := r.svc.AccessSet(ctx, wire.ID(dana.meta.Workspace))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := set.Device(thief.Public().Bytes()); !ok || !d.Admin {
		t.Fatalf("the approved device of an admin in the access set: present %v, admin %v", ok, d.Admin)
	}
	if _, err := dana.ApproveDevice(ctx, did); !errors.Is(err, ErrNotOnProbation) {
		t.Fatalf("second approval: %v", err)
	}
}

// alertsBut lists e's alerts other than those with code.
func alertsBut(e *Engine, code errcode.Code) []Alert {
	var out []Alert
	for _, a := range e.Status().Alerts {
		if a.Code != string(code) {
			out = append(out, a)
		}
	}
	return out
}
