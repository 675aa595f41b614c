package engine

import (
	"errors"
	"testing"

	"weald/backend/lifecycle"
	"weald/backend/roster"
)

// rosterOpsOf counts the roster operations of type t in e's roster.
func rosterOpsOf(t *testing.T, e *Engine, typ roster.OpType) int {
	t.Helper()
	raw, err := e.db.rosterOps(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range raw {
		if o, err := roster.Decode(b); err == nil && o.Type() == typ {
			n++
		}
	}
	return n
}

// A removal stopped mid-way continues by itself, without Remove being
// called again: on the engine's start (Run's first sync, after the app
// restarted) and on the next sync of the same engine (after a reconnect).
// It is the stored operation that continues: one operation, one revoke,
// one receipt.
func TestRemovalResumesByItselfOnStartAndSync(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		name, step string
		restart    bool
	}{
		{"start", "removal/rotate/0", true},
		{"sync", "removal/wraps", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRelay(t)
			ctx := testCtx(t)
			stop := errors.New("connection lost")
			armed := false
			opts := r.options(t, "creator", byte(200+2*i))
			opts.Crash = func(s string) error {
				if armed && s == tc.step {
					armed = false
					return stop
				}
				return nil
			}
			dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
			if err != nil {
				t.Fatal(err)
			}
			sam, _, _ := removalScene(t, r, dana, byte(210+4*i))
			armed = true
			first, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
			if !errors.Is(err, stop) || first.State != lifecycle.StateRunning {
				t.Fatalf("remove: %v (%v)", err, first)
			}
			if tc.restart {
				dana.Close()
				if dana, err = Open(ctx, opts); err != nil {
					t.Fatal(err)
				}
				defer dana.Close()
				halt := runEngine(t, dana)
				waitUntil(t, "the removal's receipt", func() bool { return len(dana.Receipts()) == 1 })
				halt()
			} else {
				defer dana.Close()
				if _, err := dana.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			ops, err := dana.Removals(ctx)
			if err != nil || len(ops) != 1 || ops[0].ID != first.ID || ops[0].State != lifecycle.StateDone {
				t.Fatalf("stored operations %v (%v), started %s", ops, err, first.ID.Hex()[:8])
			}
			if got := dana.Receipts(); len(got) != 1 || got[0].Operation != first.ID {
				t.Fatalf("receipts %+v", got)
			}
			if n := rosterOpsOf(t, dana, roster.OpRevoke); n != 1 {
				t.Fatalf("%d roster.revoke operations, want 1", n)
			}
			// Asked again, Remove returns the finished operation.
			if again, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); err != nil || again.ID != first.ID {
				t.Fatalf("remove again: %v", err)
			}
		})
	}
}
