package engine

import (
	"errors"
	"testing"
	"time"

	"weald/backend/roster"
)

// Issue 17 item 3: names set at create and join are in the roster and shown
// for message authors and members; a rename reaches the others; lookups by
// name, id prefix and their refusals.
func TestDisplayNames(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "creator", 60)
	opts.DisplayName = "Dana"
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	jopts := r.options(t, "sam", 61)
	jopts.DisplayName = "Sam"
	sam, err := Join(ctx, jopts, link)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	if _, err := sam.Send(ctx, "general", "hi, I'm new"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := dana.Messages(ctx, "general", 0)
	if err != nil || len(ms) == 0 {
		t.Fatalf("messages %v %v", ms, err)
	}
	if got := ms[len(ms)-1].AuthorName; got != "Sam" {
		t.Fatalf("author name %q, want Sam", got)
	}
	people := dana.People()
	if len(people) != 2 || people[0].Name != "Dana" || !people[0].You || !people[0].Creator ||
		people[1].Name != "Sam" || people[1].Creator || people[1].Joined.IsZero() {
		t.Fatalf("people %+v", people)
	}
	samID, err := dana.FindUser("@sam")
	if err != nil {
		t.Fatal(err)
	}
	if got := dana.UserName(samID); got != "Sam" {
		t.Fatalf("UserName = %q", got)
	}
	if id, err := dana.FindUser(people[1].User[:8]); err != nil || id != samID {
		t.Fatalf("prefix lookup %v %v", id, err)
	}
	if _, err := dana.FindUser("Mallory"); !errors.Is(err, ErrUnknownUser) {
		t.Fatalf("unknown name: %v", err)
	}

	// Sam renames himself; Dana sees it after a sync, on old messages too.
	if err := sam.SetDisplayName(ctx, "Samuel"); err != nil {
		t.Fatal(err)
	}
	if err := sam.SetDisplayName(ctx, " Samuel"); !errors.Is(err, roster.ErrBadName) {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _ = dana.Messages(ctx, "general", 0)
	if got := ms[len(ms)-1].AuthorName; got != "Samuel" {
		t.Fatalf("after rename, author name %q", got)
	}
	// Two people with one name: the name is ambiguous, the id is not.
	if err := dana.SetDisplayName(ctx, "samuel"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.FindUser("Samuel"); !errors.Is(err, ErrAmbiguousUser) {
		t.Fatalf("ambiguous name: %v", err)
	}
	if id, err := dana.FindUser(people[1].User); err != nil || id != samID {
		t.Fatalf("full id lookup %v %v", id, err)
	}
}
