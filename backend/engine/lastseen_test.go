package engine

import (
	"testing"
	"time"

	"weald/backend/documents"
)

// Last-seen dates come from what the client saw: nothing for a device
// that only joined; the day of its newest message once it wrote one; the
// time of a roster operation it signed when that is later.
func TestLastSeenFromMessagesAndRoster(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 90)
	sam := joinWith(t, r, invite(t, dana), "sam", 91)
	mustSync(t, dana)
	samDev := hexID(sam.devID).hex()
	seen, err := dana.LastSeen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if at, ok := seen[samDev]; ok {
		t.Fatalf("sam only joined, seen at %s", at)
	}
	if _, err := sam.Send(ctx, "general", "hello"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, dana)
	if seen, err = dana.LastSeen(ctx); err != nil {
		t.Fatal(err)
	}
	today, _ := documents.DayOf(time.Now())
	if at := seen[samDev]; !at.Equal(today.Start()) {
		t.Fatalf("after a message sam was last seen %s, want %s", at, today.Start())
	}
	before := time.Now().Add(-time.Second)
	if err := sam.SetDisplayName(ctx, "Sam"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, dana)
	if seen, err = dana.LastSeen(ctx); err != nil {
		t.Fatal(err)
	}
	if at := seen[samDev]; at.Before(before) {
		t.Fatalf("after renaming sam was last seen %s, want after %s", at, before)
	}
}
