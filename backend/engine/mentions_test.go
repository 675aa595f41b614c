package engine

import (
	"errors"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/roster"
)

// Dana mentions Sam: Sam's device receives the mention as Sam's user id,
// reads it from its message index after a restart, and a mention of
// someone outside the roster or off the text is refused before it is queued.
func TestMentionReachesAndSurvivesRestart(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 80)
	ctx := testCtx(t)
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	opts := r.options(t, "sam", 81)
	sam, err := Join(ctx, opts, link)
	if err != nil {
		t.Fatal(err)
	}
	samID := sam.Status().User
	if _, err := dana.Sync(ctx); err != nil { // the roster with Sam
		t.Fatal(err)
	}
	text := "@sam can you look?"
	if _, err := dana.Queue(ctx, "general", text, Mention{User: samID, Start: 0, End: 4}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		m    Mention
		want error
	}{
		{Mention{User: "00" + samID[2:], Start: 0, End: 4}, ErrMentionUnknown},
		{Mention{User: "nope", Start: 0, End: 4}, ErrMentionUnknown},
		{Mention{User: samID, Start: 1, End: 4}, documents.ErrBadMention},
	} {
		if _, err := dana.Queue(ctx, "general", text, bad.m); !errors.Is(err, bad.want) {
			t.Fatalf("queue with %+v: %v, want %v", bad.m, err, bad.want)
		}
	}
	dana.mu.Lock()
	err = dana.connect(ctx)
	if err == nil {
		err = dana.drainOutbox(ctx)
	}
	dana.mu.Unlock()
	if err != nil || len(dana.outbox) != 0 {
		t.Fatalf("outbox not sent: %v, %+v", err, dana.outbox)
	}
	find := func(e *Engine) Message {
		t.Helper()
		ms, _, err := e.MessagesBefore(ctx, "general", "", 50)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Text == text {
				return m
			}
		}
		t.Fatalf("no message %q among %+v", text, ms)
		return Message{}
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := find(sam)
	if !got.Mentions(samID) || got.Mentions(dana.Status().User) || got.Mentioned[0].End != 4 {
		t.Fatalf("Sam received %+v", got)
	}
	sam.Close()
	sam, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sam.Close()
	if got := find(sam); !got.Mentions(samID) {
		t.Fatalf("after a restart Sam reads %+v", got)
	}
}
