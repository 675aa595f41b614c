package engine

import (
	"testing"

	"weald/backend/roster"
	"weald/backend/wire"
)

// The hostile relay of issue 11 reorders roster operations
// (docs/security.md section 2): the client accepts nothing the members did
// not write and works on once the relay is honest again.

// TestHostileRelayReordersRosterOps: the relay serves two new roster
// operations in swapped order. Sam keeps his valid prefix, alerts once
// (roster/log_gap: an operation built on one he never received) and
// reads #general; once the relay serves the
// chain as written he takes both operations.
func TestHostileRelayReordersRosterOps(t *testing.T) {
	t.Parallel()
	h, dana, sam, _ := hostileWorkspace(t, 90)
	ctx := testCtx(t)
	before := sam.roster.Len()
	for _, name := range []string{"one", "two"} {
		if _, err := dana.CreateChannel(ctx, name, roster.AdmissionParent); err != nil {
			t.Fatal(err)
		}
	}
	if dana.roster.Len() < before+2 {
		t.Fatalf("dana's roster grew from %d to %d, want two operations or more", before, dana.roster.Len())
	}
	h.RewriteRoster(func(ops *wire.RosterOps) *wire.RosterOps {
		if len(ops.Ops) >= 2 {
			ops.Ops[0], ops.Ops[1] = ops.Ops[1], ops.Ops[0]
		}
		return ops
	})
	if _, err := dana.Send(ctx, "general", "while the relay lies"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatalf("sam's sync on a reordered roster: %v", err)
	}
	if got := sam.roster.Len(); got != before {
		t.Fatalf("sam's roster %d operations, want his valid prefix of %d", got, before)
	}
	lastAlert(t, sam, 0, string(AlertLogGap)) // the first op served is built on one sam never got
	if ms, err := sam.Messages(ctx, "general", 0); err != nil || len(ms) == 0 || ms[len(ms)-1].Text != "while the relay lies" {
		t.Fatalf("sam reads %+v, %v", ms, err)
	}

	h.RewriteRoster(nil)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := sam.roster.Len(), dana.roster.Len(); got != want {
		t.Fatalf("sam's roster %d operations once the relay is honest, want dana's %d", got, want)
	}
}
