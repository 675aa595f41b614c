package documents

import (
	"fmt"
	"testing"
)

func TestTouchedNamesPostedEditedAndDeletedMessages(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	day, _ := DayOf(t0)
	sa, err := NewShard(id("group"), day, a.opts)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := NewShard(id("group"), day, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	m1, c1, err := sa.Post("one")
	if err != nil {
		t.Fatal(err)
	}
	m2, c2, err := sa.Post("two")
	if err != nil {
		t.Fatal(err)
	}
	e1, err := sa.Edit(m1.ID, "one, edited")
	if err != nil {
		t.Fatal(err)
	}
	d2, err := sa.Delete(m2.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		changes []byte
		want    []MessageID
	}{
		{"post", c1, []MessageID{m1.ID}},
		{"two posts", append(append([]byte{}, c1...), c2...), []MessageID{m1.ID, m2.ID}},
		{"edit", e1, []MessageID{m1.ID}},
		{"delete", d2, []MessageID{m2.ID}},
		{"garbage", []byte("not a change"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := sb.Apply(a.device, c.changes); err != nil && c.want != nil {
				t.Fatal(err)
			}
			if got := sb.Touched(c.changes); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("touched %v, want %v", got, c.want)
			}
		})
	}
	if m, err := sb.Message(m1.ID); err != nil || m.Text != "one, edited" {
		t.Errorf("edited message on the receiver: %+v, %v", m, err)
	}
	if m, err := sb.Message(m2.ID); err != nil || !m.Deleted {
		t.Errorf("deleted message on the receiver: %+v, %v", m, err)
	}
}
