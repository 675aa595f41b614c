package documents

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func shardOf(t *testing.T, r *replica, g [32]byte) *Shard {
	t.Helper()
	day, _ := DayOf(t0)
	s, err := NewShard(g, day, r.opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMentionTravelsAsAUserID(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	sa, sb := shardOf(t, a, g), shardOf(t, b, g)
	text := "hi @Bée, see this"
	m, ch, err := sa.PostMentioning(text, []Mention{{User: b.principal, Start: 3, End: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Apply(a.device, ch); err != nil {
		t.Fatal(err)
	}
	got, err := sb.Message(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Mentions) != 1 || got.Mentions[0].User != b.principal || text[got.Mentions[0].Start:got.Mentions[0].End] != "@Bée" {
		t.Fatalf("received mentions: %+v", got.Mentions)
	}
	// An edit changes the text the spans marked: it drops them.
	if _, err := sa.Edit(m.ID, "hi all"); err != nil {
		t.Fatal(err)
	}
	if e, _ := sa.Message(m.ID); len(e.Mentions) != 0 {
		t.Fatalf("mentions after edit: %+v", e.Mentions)
	}
}

func TestBadMentionsAreRefusedBySenderAndIgnoredByReceiver(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	sa, sb := shardOf(t, a, g), shardOf(t, b, g)
	text := "hi @bé x"
	for _, bad := range [][]Mention{
		{{User: b.principal, Start: 0, End: 3}},                                        // not at '@'
		{{User: b.principal, Start: 3, End: 4}},                                        // only '@'
		{{User: b.principal, Start: 3, End: 6}},                                        // ends inside é
		{{User: b.principal, Start: 3, End: 99}},                                       // past the text
		{{User: b.principal, Start: 3, End: 7}, {User: b.principal, Start: 3, End: 7}}, // overlapping
		{{Start: 3, End: 7}},                                                           // nobody
	} {
		if _, _, err := sa.PostMentioning(text, bad); !errors.Is(err, ErrBadMention) {
			t.Fatalf("post with %+v: %v", bad, err)
		}
	}
	// A sender that writes a field outside these rules itself (a modified
	// client): the receiver keeps the message and shows it without mentions.
	m, _, err := sa.Post(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := sa.root().Get(msgPrefix + m.ID.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Map().Set(mentionsKey, EncodeMentions([]Mention{{User: b.principal, Start: 0, End: 3}})); err != nil {
		t.Fatal(err)
	}
	if _, err := sa.commitAt(t0); err != nil {
		t.Fatal(err)
	}
	out, err := sa.Outgoing(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Apply(a.device, out); err != nil {
		t.Fatal(err)
	}
	got, err := sb.Message(m.ID)
	if err != nil || got.Text != text || len(got.Mentions) != 0 {
		t.Fatalf("received %+v, %v", got, err)
	}
}

func FuzzDecodeMentions(f *testing.F) {
	u := id("user")
	f.Add(EncodeMentions([]Mention{{User: u, Start: 3, End: 6}}), "hi @bé x")
	f.Add(EncodeMentions([]Mention{{User: u, Start: 0, End: 2}, {User: u, Start: 3, End: 5}}), "@a @b")
	f.Add([]byte{0xff, 0xff}, "@")
	f.Fuzz(func(t *testing.T, b []byte, text string) {
		ms, err := DecodeMentions(b, text)
		if err != nil {
			return
		}
		if CheckMentions(ms, text) != nil {
			t.Fatalf("decoded mentions fail the check: %+v", ms)
		}
		again, err := DecodeMentions(EncodeMentions(ms), text)
		if err != nil || len(again) != len(ms) {
			t.Fatalf("round trip: %+v, %v", again, err)
		}
	})
}

// TestPostsInOneMillisecondReadInOrder: a device that posts many messages
// in one millisecond (the clock does not move) reads them, and so does
// every replica that applies them, in the order they were posted, not in
// the order of their random ids.
func TestPostsInOneMillisecondReadInOrder(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	sa, sb := shardOf(t, a, g), shardOf(t, b, g)
	var want []string
	for i := 0; i < 40; i++ {
		text := fmt.Sprintf("m%02d", i)
		_, ch, err := sa.Post(text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sb.Apply(a.device, ch); err != nil {
			t.Fatal(err)
		}
		want = append(want, text)
	}
	for name, s := range map[string]*Shard{"poster": sa, "receiver": sb} {
		if got := texts(s.Messages()); !slices.Equal(got, want) {
			t.Fatalf("the %s reads %v, want %v", name, got, want)
		}
	}
}
