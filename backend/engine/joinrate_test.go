package engine

import (
	"bytes"
	"testing"

	"weald/backend/groups"
	"weald/backend/roster"
)

// spec/channels.md "Limits", from the attacker's side: a client loop that
// ignores its own limit self-joins #general 33 times within the hour (it
// drops its group state and joins again each time). Every receiver counts
// the joins it merges: the 33rd is evicted with a limit/self_join_rate
// alert naming the joiner; the 32 before it stand.
func TestReceiversEnforceSelfJoinRate(t *testing.T) {
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 140)
	sam := joinWith(t, r, invite(t, dana), "sam", 141)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	id := roster.GeneralGroupID(sam.wsID())
	var last []byte // the leaf key of the last join
	// Sam's first join was its redemption's; 32 more make 33.
	for i := 0; i < groups.MaxSelfJoinsPerHour; i++ {
		sam.mu.Lock()
		g := sam.groups[id]
		g.mls, g.joining = nil, nil
		sam.meta.SelfJoins = nil // the attacker's loop skips its own limit
		err := sam.selfJoin(ctx, id)
		if err == nil {
			for _, m := range g.mls.Members() {
				if m.Index == g.mls.OwnLeaf() {
					last = m.SignatureKey
				}
			}
		}
		sam.mu.Unlock()
		if err != nil {
			t.Fatalf("join %d: %v", i+2, err)
		}
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var alerted bool
	for _, a := range dana.Status().Alerts {
		if a.Code == "limit/self_join_rate" && a.Actor == sam.DeviceID().String() {
			alerted = true
		}
	}
	if !alerted {
		t.Fatalf("no limit/self_join_rate alert naming sam: %+v", dana.Status().Alerts)
	}
	dg := dana.groups[id]
	leaves := 0
	for _, m := range dg.mls.Members() {
		if bytes.Equal(m.SignatureKey, last) {
			t.Fatalf("the 33rd join's leaf is still in #general at epoch %d", dg.mls.Epoch())
		}
		if bytes.Equal(m.Credential.Identity, sam.devID[:]) {
			leaves++
		}
	}
	if leaves != groups.MaxSelfJoinsPerHour {
		t.Fatalf("sam holds %d leaves, want the %d joins within the limit", leaves, groups.MaxSelfJoinsPerHour)
	}
}
