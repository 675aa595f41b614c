package documents

import (
	"testing"
)

// A joiner's empty shard takes the snapshot's loaded document itself
// (no second application of every change); it then has the snapshot's
// heads and messages, posts under its own actor, and a later snapshot
// still merges into it change by change.
func TestMergeIntoEmptyShardAdoptsTheSnapshot(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	day, err := DayOf(t0)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewShard(g, day, a.opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"one", "two", "three"} {
		if _, _, err := src.Post(s); err != nil {
			t.Fatal(err)
		}
	}
	o, err := OpenSnapshot(snapshot(t, src.Document))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := NewShard(g, day, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Merge(o); err != nil {
		t.Fatal(err)
	}
	if !equalHeads(dst.Heads(), src.Heads()) || len(dst.Messages()) != 3 || len(dst.MessageIDs()) != 3 {
		t.Fatalf("after the merge: heads %v want %v, %d messages", dst.Heads(), src.Heads(), len(dst.Messages()))
	}
	// Its saved form is the snapshot's bytes (proven to load to these
	// heads), until it changes: Save neither saves nor proves it again.
	if dst.unproven || dst.saved == nil {
		t.Fatal("the adopted document would be saved and proven again")
	}
	if first, err := dst.Save(); err != nil || string(first) != string(o.Bytes) {
		t.Fatalf("the adopted document saves other bytes than the snapshot's (%v)", err)
	} else if re, err := LoadShard(g, day, first, nil, b.opts); err != nil || len(re.Messages()) != 3 {
		t.Fatalf("the saved snapshot reloads with %d messages (%v)", len(re.Messages()), err)
	}
	if _, _, err := dst.Post("four"); err != nil {
		t.Fatalf("posting into the adopted document: %v", err)
	}
	saved, err := dst.Save()
	if err != nil || string(saved) == string(o.Bytes) {
		t.Fatalf("after a post the snapshot's bytes are still saved (%v)", err)
	}
	re, err := LoadShard(g, day, saved, nil, b.opts)
	if err != nil || len(re.Messages()) != 4 {
		t.Fatalf("the saved document reloads with %d messages (%v)", len(re.Messages()), err)
	}
	for _, m := range dst.Messages() {
		if m.Text == "four" && m.Author != b.principal {
			t.Fatalf("the adopted document posts as %x, want b", m.Author)
		}
	}
	if _, _, err := src.Post("five"); err != nil {
		t.Fatal(err)
	}
	o2, err := OpenSnapshot(snapshot(t, src.Document))
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Merge(o2); err != nil {
		t.Fatal(err)
	}
	if n := len(dst.Messages()); n != 5 {
		t.Fatalf("%d messages after the second merge, want 5", n)
	}
	if _, err := dst.Save(); err != nil {
		t.Fatalf("save after the merges: %v", err)
	}
}

// A reader across a drop holds a change sent after the checkpoint's writer
// read the log (its dependencies went with the drop) until the snapshot
// brings them: the merge applies it, and forgets a held change the
// snapshot itself holds.
func TestMergeReleasesHeldChanges(t *testing.T) {
	a, b := newReplica("a", 1), newReplica("b", 2)
	g := id("group")
	day, err := DayOf(t0)
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewShard(g, day, a.opts)
	if err != nil {
		t.Fatal(err)
	}
	var three []byte
	for _, s := range []string{"one", "two", "three"} {
		_, ch, err := src.Post(s)
		if err != nil {
			t.Fatal(err)
		}
		three = ch
	}
	o, err := OpenSnapshot(snapshot(t, src.Document))
	if err != nil {
		t.Fatal(err)
	}
	_, four, err := src.Post("four")
	if err != nil {
		t.Fatal(err)
	}
	dst, err := NewShard(g, day, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := dst.Post("b's own"); err != nil { // not empty: the merge is a real merge
		t.Fatal(err)
	}
	for _, ch := range [][]byte{four, three} {
		if r, err := dst.Apply(a.device, ch); err != nil || r.Applied != 0 || r.Pending == 0 {
			t.Fatalf("a change without its dependencies: %+v %v", r, err)
		}
	}
	if err := dst.Merge(o); err != nil {
		t.Fatal(err)
	}
	if n, held := len(dst.Messages()), dst.PendingCount(); n != 5 || held != 0 {
		t.Fatalf("after the merge: %d messages (want 5), %d changes still held", n, held)
	}
	saved, err := dst.Save()
	if err != nil {
		t.Fatal(err)
	}
	if re, err := LoadShard(g, day, saved, nil, b.opts); err != nil || len(re.Messages()) != 5 {
		t.Fatalf("the merged shard reloads with %d messages (%v)", len(re.Messages()), err)
	}
}
