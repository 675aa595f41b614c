package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

func msgAt(group byte, day uint32, n int) IndexedMessage {
	m := IndexedMessage{Shard: ShardID{Group: [32]byte{group}, Day: day}, Time: int64(n) * 1000, Value: []byte(fmt.Sprintf("value %d", n))}
	m.ID[0], m.ID[1] = byte(n>>8), byte(n)
	return m
}

func search(t *testing.T, s *Store, q string, group *[32]byte) []string {
	t.Helper()
	var out []string
	if err := s.View(context.Background(), func(tx *Tx) error {
		ms, err := tx.SearchMessages(q, group, 50)
		for _, m := range ms {
			out = append(out, string(m.Value))
		}
		return err
	}); err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return out
}

func TestSearchFindsWordsAndPrefixes(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		for i, text := range []string{"The quick brown fox", "Lazy dogs sleep", "Quick, quicker, QUICKEST!", "Élan vital über alles"} {
			if err := tx.PutMessage(msgAt(1, 10, i), text); err != nil {
				return err
			}
		}
		return tx.PutMessage(msgAt(2, 10, 9), "a quick note elsewhere")
	})
	g1 := [32]byte{1}
	for _, c := range []struct {
		q     string
		group *[32]byte
		want  []string
	}{
		{"quick", &g1, []string{"value 2", "value 0"}}, // whole word, newest indexed first
		{"QUI", &g1, []string{"value 2", "value 0"}},   // prefix of the last word
		{"quickest", &g1, []string{"value 2"}},         // whole word only
		{"brown quick", &g1, []string{"value 0"}},      // every word
		{"qu brown", &g1, nil},                         // only the last word is a prefix
		{"élan", &g1, []string{"value 3"}},             // letters beyond ASCII
		{"dog", &g1, []string{"value 1"}},              // prefix of "dogs"
		{"quick", nil, []string{"value 9", "value 2", "value 0"}},
		{"absent", nil, nil},
	} {
		if got := search(t, s, c.q, c.group); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("search %q: %v, want %v", c.q, got, c.want)
		}
	}
}

func TestSearchRefusesQueriesWithoutWords(t *testing.T) {
	s := openTest(t)
	for _, q := range []string{"", "   ", "?!*\"", "a b c d e f g h i j k l m n o p q"} {
		err := s.View(context.Background(), func(tx *Tx) error {
			_, err := tx.SearchMessages(q, nil, 10)
			return err
		})
		if !errors.Is(err, ErrBadQuery) {
			t.Errorf("query %q: %v, want %v", q, err, ErrBadQuery)
		}
	}
}

func TestEditAndDeleteUpdateTheIndex(t *testing.T) {
	s := openTest(t)
	m := msgAt(1, 10, 1)
	update(t, s, func(tx *Tx) error { return tx.PutMessage(m, "first draft") })
	m.Value = []byte("edited value")
	update(t, s, func(tx *Tx) error { return tx.PutMessage(m, "second version") })
	if got := search(t, s, "draft", nil); got != nil {
		t.Errorf("old text still found: %v", got)
	}
	if got := search(t, s, "version", nil); fmt.Sprint(got) != "[edited value]" {
		t.Errorf("new text: %v", got)
	}
	update(t, s, func(tx *Tx) error { return tx.DeleteMessage(m.Shard, m.ID) })
	update(t, s, func(tx *Tx) error { return tx.DeleteMessage(m.Shard, m.ID) }) // again: no error
	if got := search(t, s, "version", nil); got != nil {
		t.Errorf("deleted message found: %v", got)
	}
	var n int
	if err := s.View(context.Background(), func(tx *Tx) (err error) { n, err = tx.CountMessages(m.Shard.Group); return }); err != nil || n != 0 {
		t.Errorf("count after delete: %d, %v", n, err)
	}
}

func TestMessagesBeforePagesNewestFirst(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		for i := range 25 {
			if err := tx.PutMessage(msgAt(1, uint32(10+i/10), i), "x"); err != nil {
				return err
			}
		}
		return tx.PutMessage(msgAt(2, 10, 100), "other group")
	})
	var got []string
	var cur *MessageCursor
	for range 10 {
		var page []IndexedMessage
		if err := s.View(context.Background(), func(tx *Tx) (err error) {
			page, err = tx.MessagesBefore([32]byte{1}, cur, 10)
			return
		}); err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, m := range page {
			got = append(got, string(m.Value))
		}
		last := page[len(page)-1]
		cur = &MessageCursor{Time: last.Time, ID: last.ID}
	}
	if len(got) != 25 || got[0] != "value 24" || got[24] != "value 0" {
		t.Fatalf("pages: %v", got)
	}
}

// The words of a message never reach the file: the values are sealed and
// the terms are keyed hashes.
func TestIndexedWordsNotInTheFile(t *testing.T) {
	s := openTest(t)
	update(t, s, func(tx *Tx) error {
		return tx.PutMessage(msgAt(1, 10, 1), "zanzibarqueen pelicanmarmalade")
	})
	if got := search(t, s, "pelicanmarmalade", nil); len(got) != 1 {
		t.Fatalf("not found: %v", got)
	}
	s.Close()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(s.Path() + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, w := range []string{"zanzibar", "pelican", "marmalade", "value 1"} {
			if bytes.Contains(b, []byte(w)) {
				t.Errorf("%q readable in state.db%s", w, suffix)
			}
		}
	}
}
