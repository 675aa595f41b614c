package store

import (
	"context"
	"path/filepath"
	"testing"
)

func countsOf(t *testing.T, s *Store) map[byte]ChannelCount {
	t.Helper()
	out := map[byte]ChannelCount{}
	if err := s.View(context.Background(), func(tx *Tx) error {
		cs, err := tx.ChannelCounts()
		for _, c := range cs {
			out[c.Group[0]] = c
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantCounts(t *testing.T, s *Store, group byte, unread, mentions int) {
	t.Helper()
	if c := countsOf(t, s)[group]; c.Unread != unread || c.Mentions != mentions {
		t.Fatalf("group %d: %d unread, %d mentions; want %d, %d", group, c.Unread, c.Mentions, unread, mentions)
	}
}

// The unread counts follow new messages, edits that drop a mention,
// deletes, the read marker (never backwards) and a reopen, without reading
// the messages when listing.
func TestUnreadCountsFollowMessagesAndMarker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	by := func(n int, other, mention bool) IndexedMessage {
		m := msgAt(1, 10, n)
		m.ByOther, m.MentionsMe = other, mention
		return m
	}
	update(t, s, func(tx *Tx) error {
		for _, m := range []IndexedMessage{by(1, true, false), by(2, false, false), by(3, true, true), by(4, true, false)} {
			if err := tx.PutMessage(m, "text"); err != nil {
				return err
			}
		}
		return tx.PutMessage(msgAt(2, 10, 1), "mine elsewhere")
	})
	wantCounts(t, s, 1, 3, 1)
	if c, ok := countsOf(t, s)[2]; ok && c.Unread != 0 {
		t.Fatalf("own message counted: %+v", c)
	}
	// The edit of message 3 drops its mention; message 1 is deleted.
	update(t, s, func(tx *Tx) error {
		if err := tx.PutMessage(by(3, true, false), "edited"); err != nil {
			return err
		}
		return tx.DeleteMessage(by(1, true, false).Shard, by(1, true, false).ID)
	})
	wantCounts(t, s, 1, 2, 0)
	// Read up to message 3: message 4 stays; a marker back moves nothing.
	update(t, s, func(tx *Tx) error {
		if moved, err := tx.MarkRead([32]byte{1}, 3000); err != nil || !moved {
			t.Fatalf("mark read: %v, %v", moved, err)
		}
		if moved, err := tx.MarkRead([32]byte{1}, 1000); err != nil || moved {
			t.Fatalf("marker moved back: %v, %v", moved, err)
		}
		return tx.PutMessage(by(5, true, true), "new, mentioning")
	})
	wantCounts(t, s, 1, 2, 1)
	// An edit of a read message counts nothing; the delete of one neither.
	update(t, s, func(tx *Tx) error {
		if err := tx.PutMessage(by(3, true, true), "edited again"); err != nil {
			return err
		}
		return tx.DeleteMessage(by(2, false, false).Shard, by(2, false, false).ID)
	})
	wantCounts(t, s, 1, 2, 1)
	s.Close()
	s, err = Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantCounts(t, s, 1, 2, 1)
	update(t, s, func(tx *Tx) error {
		newest, ok, err := tx.NewestMessageTime([32]byte{1})
		if err != nil || !ok || newest != 5000 {
			t.Fatalf("newest %d, %v, %v", newest, ok, err)
		}
		_, err = tx.MarkRead([32]byte{1}, newest)
		return err
	})
	wantCounts(t, s, 1, 0, 0)
	if c := countsOf(t, s)[1]; c.ReadMs != 5000 {
		t.Fatalf("read marker %d", c.ReadMs)
	}
}
