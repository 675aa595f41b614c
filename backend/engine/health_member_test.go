package engine

import (
	"testing"

	"weald/backend/health"
)

// Issue 14: a member who has just joined a one-admin workspace had a badge
// of 1: the admin-devices row (which only an admin can act on) failed on
// its device, and `weald health` exited non-zero for it. On a member's
// device the row is not its to act on; on the admin's it still is.
func TestFreshMemberHasNothingToAct(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana, _ := historyWorkspace(t, r, 3, 0, 220)
	sam := joinWith(t, r, invite(t, dana), "sam", 221)
	ctx := testCtx(t)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err := sam.Health(ctx)
	if err != nil || rep == nil {
		t.Fatalf("no report after the first sync: %v", err)
	}
	for _, f := range rep.Findings {
		if f.State == health.StateAction {
			t.Errorf("fresh member: %s needs action: %s", f.Check, f.Finding)
		}
	}
	if rep.NeedsAction() {
		t.Error("a fresh member's report needs action")
	}
	finding(t, runHealth(t, dana), health.AdminDevices, health.StateAction)
}
