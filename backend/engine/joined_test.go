package engine

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"weald/backend/roster"
)

// stepClock returns a clock shared by several engines that moves one
// millisecond per reading, so that the order of their writes is their
// order in time.
func stepClock() func() time.Time {
	base := time.Now()
	var n atomic.Int64
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

// timelineOf reads a channel's whole timeline (messages and notices).
func timelineOf(t *testing.T, e *Engine, channel string) string {
	t.Helper()
	ms, more, err := e.TimelineBefore(testCtx(t), channel, "", MaxPage)
	if err != nil || more {
		t.Fatalf("timeline of %s: %v (more %v)", channel, err, more)
	}
	return timeline(ms)
}

// timeline prints a channel's history as "author: text" and "author
// joined" lines, oldest first.
func timeline(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		if m.Kind == KindJoined {
			fmt.Fprintf(&b, "%s joined|", m.AuthorName)
		} else {
			fmt.Fprintf(&b, "%s: %s|", m.AuthorName, m.Text)
		}
	}
	return b.String()
}

// Issue 17 item 3: "Sam joined" is a line of #general at the time Sam's
// redemption entered the roster, under his name, for the existing member and
// for Sam; it is drawn from the roster, so a resync or a restart does not
// repeat it, and history pages step over it as over a message.
func TestJoinNoticeInGeneral(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	clock := stepClock()
	opts := r.options(t, "creator", 70)
	opts.DisplayName, opts.Clock = "Dana", clock
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "before Sam"); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	jopts := r.options(t, "sam", 71)
	jopts.DisplayName, jopts.Clock = "Sam", clock
	sam, err := Join(ctx, jopts, link)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	if _, err := sam.Send(ctx, "general", "hi all"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	const want = "Dana: before Sam|Sam joined|Sam: hi all|"
	for who, e := range map[string]*Engine{"dana": dana, "sam": sam} {
		if got := timelineOf(t, e, "general"); got != want {
			t.Fatalf("%s reads %q, want %q", who, got, want)
		}
	}
	// The messages alone (CLI, unread counts) carry no notice.
	if ms, err := dana.Messages(ctx, "general", 0); err != nil || timeline(ms) != "Dana: before Sam|Sam: hi all|" {
		t.Fatalf("messages %q %v", timeline(ms), err)
	}

	// Pages of one step over the notice, which is a valid cursor.
	var got []string
	before := ""
	for i := 0; i < 5; i++ {
		page, more, err := dana.TimelineBefore(ctx, "general", before, 1)
		if err != nil || len(page) != 1 {
			t.Fatalf("page %d: %v %v", i, page, err)
		}
		got = append([]string{timeline(page)}, got...)
		before = page[0].ID
		if !more {
			break
		}
	}
	if strings.Join(got, "") != want {
		t.Fatalf("paged %q, want %q", strings.Join(got, ""), want)
	}

	// No notice in another channel; none repeated by a resync or a restart.
	if got := timelineOf(t, dana, "activity"); got != "" {
		t.Fatalf("activity: %q", got)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dana.Close()
	dana, err = Open(ctx, Options{Dir: opts.Dir, Rand: seededRand(72), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := timelineOf(t, dana, "general"); got != want {
		t.Fatalf("after a restart dana reads %q, want %q", got, want)
	}

	// A rename shows on the notice too.
	if err := sam.SetDisplayName(ctx, "Samuel"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := timelineOf(t, dana, "general"); !strings.Contains(got, "|Samuel joined|") {
		t.Fatalf("after the rename dana reads %q", got)
	}
}
