package app

import (
	"testing"
	"time"

	"weald/backend/engine"
)

func TestWhatNotifies(t *testing.T) {
	t.Parallel()
	const me, dana = "aa", "dd"
	at := func(min int) time.Time { return time.UnixMilli(0).Add(time.Duration(min) * time.Minute) }
	plain := engine.Message{ID: "p", Author: dana, Time: at(10), Text: "lunch?"}
	mention := engine.Message{ID: "m", Author: dana, Time: at(11), Text: "@Sam look", Mentioned: []engine.Mention{{User: me, Start: 0, End: 4}}}
	mine := engine.Message{ID: "y", Author: me, Time: at(12), Text: "mine"}
	pending := engine.Message{ID: "q", Author: dana, Time: at(13), Text: "queued", State: engine.OutboxPending}
	msgs := []engine.Message{plain, mention, mine, pending}
	channel, dm, muted := Channel{Kind: "chan", Name: "general"}, Channel{Kind: "dm", Name: "Dana"}, Channel{Kind: "chan", Muted: true}
	mutedDM := Channel{Kind: "dm", Name: "Dana", Muted: true}
	ids := func(ms []engine.Message) (s string) {
		for _, m := range ms {
			s += m.ID
		}
		return s
	}
	for _, c := range []struct {
		name    string
		level   NotifyLevel
		ch      Channel
		looking bool
		upTo    int64
		want    string
	}{
		{"mentions level: the mention only", NotifyMentions, channel, false, 0, "m"},
		{"a DM: every message", NotifyMentions, dm, false, 0, "pm"},
		{"all", NotifyAll, channel, false, 0, "pm"},
		{"none", NotifyNone, dm, false, 0, ""},
		{"looking at the channel", NotifyAll, channel, true, 0, ""},
		{"muted, every message: the mention only", NotifyAll, muted, false, 0, "m"},
		{"muted, mentions: the mention", NotifyMentions, muted, false, 0, "m"},
		{"muted DM: the mention only", NotifyMentions, mutedDM, false, 0, "m"},
		{"muted, none", NotifyNone, muted, false, 0, ""},
		{"muted, looking at it", NotifyAll, muted, true, 0, ""},
		{"already considered or read", NotifyAll, channel, false, at(11).UnixMilli(), ""},
	} {
		got, newest := toNotify(msgs, me, c.upTo, c.level, c.ch, c.looking)
		if ids(got) != c.want {
			t.Errorf("%s: notifies %q, want %q", c.name, ids(got), c.want)
		}
		if c.upTo == 0 && newest != at(11).UnixMilli() {
			t.Errorf("%s: newest considered %d, want the mention's time (not mine nor a pending one)", c.name, newest)
		}
	}
}

func TestNotificationText(t *testing.T) {
	t.Parallel()
	general, dm := Channel{Kind: "chan", Name: "general"}, Channel{Kind: "dm", Name: "Dana"}
	m := Message{Author: "Dana", Text: "🙂 @Sammy look", MentionsMe: true, Mentions: []MentionRef{{Name: "Sam", Start: 3, End: 9}}}
	if n := notification(general, []Message{m}); n.Title != "Dana mentioned you in #general" || n.Body != "🙂 @Sam look" {
		t.Fatalf("mention: %+v", n)
	}
	if n := notification(dm, []Message{{Author: "Dana", Text: "hi"}}); n.Title != "Dana" || n.Body != "hi" {
		t.Fatalf("DM: %+v", n)
	}
	two := []Message{{Author: "Dana", Text: "one"}, {Author: "Ben", Text: "two"}}
	if n := notification(general, two); n.Title != "2 new messages in #general" || n.Body != "Ben: two" {
		t.Fatalf("two: %+v", n)
	}
	long := Message{Author: "Dana", Text: string(make([]rune, 300))}
	if n := notification(general, []Message{long}); len([]rune(n.Body)) != 200 {
		t.Fatalf("a long text is not cut to 200 characters: %d", len([]rune(n.Body)))
	}
}
