package engine

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
)

// stormJoins has e, as a client loop that skips its own limit, self-join
// group id n more times (it drops its group state and joins again each
// time, through the lower-level selfJoin that the join loop guards). It
// returns the leaf key and epoch of the last join as e sees it.
func stormJoins(t *testing.T, e *Engine, id identity.GroupID, n int) (last []byte, epoch uint64) {
	t.Helper()
	ctx := testCtx(t)
	for i := 0; i < n; i++ {
		e.mu.Lock()
		g := e.groups[id]
		g.mls, g.joining = nil, nil
		e.meta.SelfJoins = nil // the attacker's loop skips its own limit
		err := e.selfJoin(ctx, id)
		if err == nil {
			for _, m := range g.mls.Members() {
				if m.Index == g.mls.OwnLeaf() {
					last = m.SignatureKey
				}
			}
			epoch = g.mls.Epoch()
		}
		e.mu.Unlock()
		if err != nil {
			t.Fatalf("join %d of the loop: %v", i+1, err)
		}
	}
	return last, epoch
}

// spec/channels.md "Limits", from the attacker's side: a client loop that
// ignores its own limit self-joins #general 33 times within the hour. Every
// other receiver counts the self-joins in the log, at the times the joiner
// signed, so all of them refuse the 33rd alike and never merge it: Lee,
// who joined halfway through the storm, refuses it as Dana does, with a
// limit/self_join_rate alert naming the joiner. Dana and Lee stay at one
// epoch, without the 33rd leaf, and still read each other.
func TestReceiversEnforceSelfJoinRate(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 140)
	sam := joinWith(t, r, invite(t, dana), "sam", 141)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	id := roster.GeneralGroupID(sam.wsID())
	// Sam's first join was its redemption's; 19 more make 20 before Lee
	// arrives, and 13 after make 33.
	stormJoins(t, sam, id, 19)
	lee := joinWith(t, r, invite(t, dana), "lee", 142)
	last, samEpoch := stormJoins(t, sam, id, groups.MaxSelfJoinsPerHour+1-20)
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []struct {
		name string
		e    *Engine
	}{{"dana", dana}, {"lee", lee}} {
		alerted := slices.ContainsFunc(e.e.Status().Alerts, func(a Alert) bool {
			return a.Code == "limit/self_join_rate" && a.Actor == sam.DeviceID().String()
		})
		if !alerted {
			t.Fatalf("%s: no limit/self_join_rate alert naming sam: %+v", e.name, e.e.Status().Alerts)
		}
		g := e.e.groups[id]
		if got := g.mls.Epoch(); got != samEpoch-1 {
			t.Fatalf("%s is at epoch %d; the 33rd join made %d and should not be merged", e.name, got, samEpoch)
		}
		leaves := 0
		for _, m := range g.mls.Members() {
			if bytes.Equal(m.SignatureKey, last) {
				t.Fatalf("%s: the 33rd join's leaf is in #general", e.name)
			}
			if bytes.Equal(m.Credential.Identity, sam.devID[:]) {
				leaves++
			}
		}
		if leaves != groups.MaxSelfJoinsPerHour {
			t.Fatalf("%s: sam holds %d leaves, want the %d joins within the limit", e.name, leaves, groups.MaxSelfJoinsPerHour)
		}
	}
	// The two honest members agree and still talk.
	if _, err := dana.Send(ctx, "general", "still here"); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Send(ctx, "general", "me too"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if d, l := dana.groups[id].mls.Epoch(), lee.groups[id].mls.Epoch(); d != l {
		t.Fatalf("dana at epoch %d, lee at %d", d, l)
	}
	for _, e := range []*Engine{dana, lee} {
		got := texts(t, e, "general")
		if !slices.Contains(got, "still here") || !slices.Contains(got, "me too") {
			t.Fatalf("messages after the storm: %q", got)
		}
	}
}

// A loop that has used its hour and dates its next join hours ahead (so
// that the log's count, read at that time, starts afresh) is merged by
// every receiver alike, then evicted by one whose clock shows the date is
// ahead: one Remove commit, with the limit/self_join_rate alert.
func TestSelfJoinDatedAheadIsEvicted(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 143)
	sam := joinWith(t, r, invite(t, dana), "sam", 144)
	id := roster.GeneralGroupID(sam.wsID())
	stormJoins(t, sam, id, groups.MaxSelfJoinsPerHour-1) // 32 with the redemption's
	sam.mu.Lock()
	sam.now = func() time.Time { return time.Now().Add(3 * time.Hour) }
	sam.mu.Unlock()
	last, _ := stormJoins(t, sam, id, 1)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(dana.Status().Alerts, func(a Alert) bool {
		return a.Code == "limit/self_join_rate" && a.Actor == sam.DeviceID().String()
	}) {
		t.Fatalf("no limit/self_join_rate alert naming sam: %+v", dana.Status().Alerts)
	}
	for _, m := range dana.groups[id].mls.Members() {
		if bytes.Equal(m.SignatureKey, last) {
			t.Fatalf("the join dated ahead still has its leaf at epoch %d", dana.groups[id].mls.Epoch())
		}
	}
}
