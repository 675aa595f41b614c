package engine

import (
	"testing"
)

// Unread counts come from the store, one row per channel, and stay right
// across a mention, an edit that drops it, a delete, the reader's own
// message, marking read and a restart (issue 17: the counts without
// reading every message).
func TestUnreadCountsAcrossEditsDeletesAndRestart(t *testing.T) {
	t.Parallel()
	dana, sam := twoMembers(t, 94)
	ctx := testCtx(t)
	if _, err := dana.Sync(ctx); err != nil { // the roster with Sam
		t.Fatal(err)
	}
	general := sam.GeneralChannel()
	counts := func(when string, unread, mentions int) {
		t.Helper()
		if _, err := sam.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		cs, err := sam.UnreadCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c := cs[general]; c.Unread != unread || c.Mentions != mentions {
			t.Fatalf("%s: %+v, want %d unread, %d mentions", when, c, unread, mentions)
		}
	}
	samID := sam.Status().User
	dana.mu.Lock()
	err := dana.connect(ctx)
	var mention Message
	if err == nil {
		gi, _ := dana.resolveChannel("general")
		mention, err = dana.sendText(ctx, gi, post{Text: "@sam look", Mentions: []Mention{{User: samID, Start: 0, End: 4}}}, nil)
	}
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := dana.Send(ctx, "general", "plain")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "third"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Send(ctx, "general", "sam's own does not count"); err != nil {
		t.Fatal(err)
	}
	counts("three from Dana, one mentioning Sam", 3, 1)
	if _, err := dana.Edit(ctx, "general", mention.ID, "look, no mention"); err != nil {
		t.Fatal(err)
	}
	counts("the edit drops the mention", 3, 0)
	if err := dana.Delete(ctx, "general", plain.ID); err != nil {
		t.Fatal(err)
	}
	counts("a delete", 2, 0)
	if _, err := sam.MarkAllRead(ctx, "general"); err != nil {
		t.Fatal(err)
	}
	counts("marked read", 0, 0)
	if err := dana.Delete(ctx, "general", mention.ID); err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	_, err = dana.sendText(ctx, gi, post{Text: "@sam again", Mentions: []Mention{{User: samID, Start: 0, End: 4}}}, nil)
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	counts("a read message deleted, a new mention", 1, 1)

	opts := sam.opts
	sam.Close()
	sam, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	counts("after a restart", 1, 1)
}
