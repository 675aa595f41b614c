package engine

import (
	"errors"
	"testing"

	"weald/backend/retention"
)

// Issue 14: in a workspace with two admins a retention policy needs both
// (threshold 2). The proposal is visible to the other admin, who approves
// it; each admin's roster operation carries its signature of the
// relay-visible policy, and the approval that meets the threshold publishes
// the policy with both, which the relay accepts and every member trusts.
func TestTwoAdminsApproveRetentionPolicy(t *testing.T) {
	t.Parallel()
	dana, lee := twoAdmins(t, 12, 30, 200)
	ctx := testCtx(t)
	ch, err := dana.SetRetention(ctx, "general", 10*retention.Day, 90*retention.Day, true)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Applied || ch.Active || ch.Published {
		t.Fatalf("one of two admins set the policy: %+v", ch)
	}
	if info, _ := dana.Retention("general"); !info.Default || info.OnRelay {
		t.Fatalf("a proposal is in force: %+v", info)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	pending := lee.PendingRetentions()
	if len(pending) != 1 || !pending[0].Approvable || pending[0].Threshold != 2 || len(pending[0].Approvals) != 1 ||
		pending[0].TextWindow != 10*retention.Day || pending[0].Channel != "general" {
		t.Fatalf("lee's pending list: %+v", pending)
	}
	if mine := dana.PendingRetentions(); len(mine) != 1 || mine[0].Approvable {
		t.Fatalf("the proposer may approve its own proposal again: %+v", mine)
	}
	if _, err := dana.ApproveRetention(ctx, pending[0].ID); err == nil {
		t.Fatal("the proposer approved twice")
	}
	if _, err := lee.ApproveRetention(ctx, "00000000"); !errors.Is(err, ErrNoProposal) {
		t.Fatalf("approve an unknown proposal: %v", err)
	}
	ch, err = lee.ApproveRetention(ctx, pending[0].ID[:12])
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Active || !ch.Published {
		t.Fatalf("the second admin's approval: %+v", ch)
	}
	if got := lee.PendingRetentions(); len(got) != 0 {
		t.Fatalf("still pending: %+v", got)
	}
	// Dana's device, which has read the roster but not yet #general's log,
	// publishes the policy too, as the end of her running app's sync does
	// when lee's approval arrives: the relay refuses the second copy, and
	// hers takes lee's as published (the app test met this as
	// retention/bad_policy from lee's approval when dana's came first).
	dana.mu.Lock()
	_, err = dana.syncRoster(ctx)
	gi, gerr := dana.resolveChannel("general")
	var published bool
	if err == nil && gerr == nil {
		published, _, err = dana.publishPolicy(ctx, &gi)
	}
	dana.mu.Unlock()
	if err != nil || gerr != nil || !published {
		t.Fatalf("the second admin device's publication: published %v, %v %v", published, err, gerr)
	}
	// Both admins' clients trust the relay-visible policy: it carries two
	// admin users' signatures (the relay refuses fewer).
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		info, err := e.Retention("general")
		if err != nil {
			t.Fatal(err)
		}
		if info.Default || !info.OnRelay || info.TextWindow != 10*retention.Day || info.MediaWindow != 90*retention.Day {
			t.Fatalf("%s's view: %+v", e.DeviceID().ShortString(), info)
		}
	}
}

// twoAdmins: dana's workspace with n messages over days in #general, and
// lee, who joined and was promoted: two admins, threshold 2.
func twoAdmins(t *testing.T, n, days int, seed byte) (dana, lee *Engine) {
	t.Helper()
	r := startRelay(t)
	dana, _ = historyWorkspace(t, r, n, days, seed)
	lee = joinWith(t, r, invite(t, dana), "lee", seed+1)
	promote(t, dana, lee)
	return dana, lee
}

// promote makes lee an admin (by dana) and syncs both.
func promote(t *testing.T, dana, lee *Engine) {
	t.Helper()
	ctx := testCtx(t)
	if err := dana.Promote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
