package relay

import (
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// TestRosterFoldsAreBounded: the folded rosters kept in memory are the
// most recently used ones, at most the bound; the least recently used goes
// first.
func TestRosterFoldsAreBounded(t *testing.T) {
	t.Parallel()
	c := newRosterFolds(2)
	a, b, x := id("ws a"), id("ws b"), id("ws c")
	fa, fb := c.get(a), c.get(b)
	if c.get(a) != fa {
		t.Fatal("a kept fold was not returned")
	}
	c.get(x) // b is now the least recently used
	if c.len() != 2 {
		t.Fatalf("%d folds kept, bound 2", c.len())
	}
	if c.get(a) != fa {
		t.Fatal("the recently used fold was evicted")
	}
	if c.get(b) == fb {
		t.Fatal("the least recently used fold was kept")
	}
	for i := 0; i < 1000; i++ {
		c.get(id(string(rune(i))))
	}
	if c.len() != 2 || c.order.Len() != 2 {
		t.Fatalf("%d folds (%d in order) after 1000 workspaces, bound 2", c.len(), c.order.Len())
	}
	if newRosterFolds(0).max != DefaultMaxRosterFolds {
		t.Fatal("0 does not mean the default bound")
	}
}

// TestEvictedRosterIsFoldedAgain: once another workspace takes its place,
// a workspace's roster is folded again from the store on its next append,
// and judged exactly as before: a valid operation is appended, one every
// client would refuse is refused.
func TestEvictedRosterIsFoldedAgain(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, st store.Store) {
		f := newRosterFixture(t, st, func(c *Config) { c.MaxRosterFolds = 1 })
		f.svc.mu.Lock()
		f.svc.rosters.get(id("another workspace"))
		evicted := f.svc.rosters.m[f.ws].f == nil && f.svc.rosters.len() == 1
		f.svc.mu.Unlock()
		if !evicted {
			t.Fatal("the fixture's fold was not evicted")
		}
		head, _ := f.head()
		f.refused(wire.CodeRosterInvalid, func() error {
			return errOf(f.svc.RosterAppend(f.ctx, f.ws, principal("alice"), head, f.sign("alice", f.genesisOp("alice").Body).Bytes()))
		})
		inv, _, err := roster.NewInvite(&detRand{n: 99}, f.state, nil, roster.RoleMember, f.clock.now().Add(24*time.Hour), make([]byte, 32), 1)
		if err != nil {
			t.Fatal(err)
		}
		f.append("alice", f.sign("alice", inv))
		f.svc.mu.Lock()
		n := f.svc.rosters.len()
		f.svc.mu.Unlock()
		if n != 1 {
			t.Fatalf("%d folds kept, bound 1", n)
		}
	})
}
