package engine

import (
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/lifecycle"
	"weald/backend/roster"
)

// A private channel the removing admin is not in is rotated by its own
// members: Lee's #hr holds Sam; Dana removes Sam and cannot commit in
// #hr (not_member); once the grace has passed, Lee's next sync removes
// Sam's leaf there with one commit, and Lee and Dana's other groups go on.
func TestMemberRotatesAGroupTheRemoverIsNotIn(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 230)
	sam, _, lee := removalScene(t, r, dana, 231)
	if _, err := lee.CreateChannel(ctx, "hr", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.AddPeople(ctx, "hr", []string{sam.meta.User.hex()}); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	hr := lee.groups[identity.GroupID(mustHex(t, chanID(t, lee, "hr")))]
	samIn := func() int {
		lee.mu.Lock()
		defer lee.mu.Unlock()
		return len(removalLeaves(hr.mls, []lifecycle.ID{lifecycle.ID(sam.devID)}))
	}
	if samIn() != 1 {
		t.Fatal("sam is not in lee's #hr")
	}
	op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notMember := 0
	for _, s := range op.Groups {
		if s.NotMember {
			notMember++
		}
	}
	if notMember != 1 {
		t.Fatalf("%d groups dana is not in, want 1 (#hr)", notMember)
	}
	// Within the grace Lee leaves #hr to the remover.
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if samIn() != 1 {
		t.Fatal("lee rotated #hr within the grace")
	}
	before := hr.mls.Epoch()
	lee.now = func() time.Time { return time.Now().Add(revokedLeafGrace + time.Minute) }
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if samIn() != 0 || hr.mls.Epoch() != before+1 {
		t.Fatalf("after the grace: sam's leaves in #hr %d, epoch %d (was %d)", samIn(), hr.mls.Epoch(), before)
	}
	// Nothing more to do: the next sync commits nothing.
	if _, err := lee.Sync(ctx); err != nil || hr.mls.Epoch() != before+1 {
		t.Fatalf("second sync: %v, epoch %d", err, hr.mls.Epoch())
	}
	if _, err := lee.Send(ctx, "hr", "still here"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, lee, "hr", "still here")
}
