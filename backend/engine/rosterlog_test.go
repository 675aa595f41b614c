package engine

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/health"
	"weald/backend/roster"
	"weald/backend/wire"
)

// TestHostileRelayLogGapAndFork is written from a hostile relay's side
// (spec/lifecycle.md "Detection": "transparency-log gap or fork on sync"):
// the relay rolls the membership log back, withholds operations, leaves
// one out, branches it, and claims another head at the same length. Each
// time Sam keeps the roster he holds, alerts once with the right code
// (gap or fork) and keeps reading; once the relay is honest again he takes
// the real log and the roster can be written again. On the main before
// this change a rollback, withholding and a head claim went unnoticed and
// a branch or an omission was reported as an invalid operation.
func TestHostileRelayLogGapAndFork(t *testing.T) {
	t.Parallel()
	h, dana, sam, _ := hostileWorkspace(t, 94)
	ctx := testCtx(t)
	ops, err := sam.db.rosterOps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	branchOn := roster.HeadOf(ops[len(ops)-2])
	branch, err := roster.Sign(roster.DeviceSigner(dana.dev), branchOn, time.Now(), &roster.RenameGroup{Group: dana.roster.RootGroup(), Name: "Other history"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		code    errcode.Code
		word    string // in the health finding
		rewrite func(held int) func(*wire.RosterOps) *wire.RosterOps
	}{
		{"rollback", AlertLogGap, "gap", func(held int) func(*wire.RosterOps) *wire.RosterOps {
			return func(o *wire.RosterOps) *wire.RosterOps {
				return &wire.RosterOps{FirstIndex: o.FirstIndex, HeadIndex: uint64(held - 2), Head: wire.ID(sha256.Sum256([]byte("old")))}
			}
		}},
		{"withheld", AlertLogGap, "gap", func(int) func(*wire.RosterOps) *wire.RosterOps {
			return func(o *wire.RosterOps) *wire.RosterOps {
				o.Ops, o.More = nil, false
				return o
			}
		}},
		{"left out", AlertLogGap, "gap", func(int) func(*wire.RosterOps) *wire.RosterOps {
			return func(o *wire.RosterOps) *wire.RosterOps {
				if len(o.Ops) > 0 {
					o.Ops = o.Ops[1:]
				}
				return o
			}
		}},
		{"branch", AlertLogFork, "branches", func(held int) func(*wire.RosterOps) *wire.RosterOps {
			return func(o *wire.RosterOps) *wire.RosterOps {
				return &wire.RosterOps{FirstIndex: uint64(held) + 1, Ops: [][]byte{branch.Bytes()}, HeadIndex: uint64(held) + 1, Head: wire.ID(branch.Head())}
			}
		}},
		{"other head", AlertLogFork, "branches", func(held int) func(*wire.RosterOps) *wire.RosterOps {
			return func(o *wire.RosterOps) *wire.RosterOps {
				return &wire.RosterOps{FirstIndex: uint64(held) + 1, HeadIndex: uint64(held), Head: wire.ID(sha256.Sum256([]byte("other")))}
			}
		}},
	}
	for i, c := range cases {
		// Real operations for the relay to withhold or leave out.
		for _, n := range []string{"a", "b"} {
			if _, err := dana.CreateChannel(ctx, fmt.Sprintf("c%d%s", i, n), roster.AdmissionParent); err != nil {
				t.Fatal(err)
			}
		}
		held := sam.roster.Len()
		alerts := len(sam.Status().Alerts)
		h.RewriteRoster(c.rewrite(held))
		if _, err := dana.Send(ctx, "general", "during "+c.name); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 2; n++ {
			if _, err := sam.Sync(ctx); err != nil {
				t.Fatalf("%s: sam's sync: %v", c.name, err)
			}
		}
		if got := sam.roster.Len(); got != held {
			t.Fatalf("%s: sam's roster has %d operations, want the %d he held", c.name, got, held)
		}
		var got []Alert
		for _, a := range sam.Status().Alerts[alerts:] {
			if a.Code == string(AlertLogGap) || a.Code == string(AlertLogFork) || a.Code == "roster/invalid_op" {
				got = append(got, a)
			}
		}
		if len(got) != 1 || got[0].Code != string(c.code) || got[0].Op == nil || got[0].Op.Index != held {
			t.Fatalf("%s: after two syncs sam has alerts %+v, want one %s at %d", c.name, got, c.code, held)
		}
		t.Logf("%s: %s", c.name, got[0].Message)
		if ms, err := sam.Messages(ctx, "general", 0); err != nil || len(ms) == 0 || ms[len(ms)-1].Text != "during "+c.name {
			t.Fatalf("%s: sam reads %+v, %v", c.name, ms, err)
		}
		if f := finding(t, runHealth(t, sam), health.TransparencyLog, health.StateAction); !strings.Contains(f.Finding, c.word) {
			t.Fatalf("%s: the transparency-log check says %q, want it to name the %s", c.name, f.Finding, c.word)
		}
		h.RewriteRoster(nil)
		if _, err := sam.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := sam.roster.Len(), dana.roster.Len(); got != want {
			t.Fatalf("%s: honest again, sam holds %d operations, dana %d", c.name, got, want)
		}
		if sam.rosterStuck != nil {
			t.Fatalf("%s: honest again, sam's roster is still stuck at %+v", c.name, sam.rosterStuck)
		}
	}
}
