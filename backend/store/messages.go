package store

import (
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"weald/backend/errcode"
)

// The message index (docs/protocol/store.md "Message index"): one sealed
// row per chat message, in (group, time, id) order, so that a page of a
// channel's history is one indexed read instead of loading its day shards,
// and an FTS5 table of blinded terms for search. A term is a keyed hash of a
// word (or of a word's prefix), never the word: the index answers "which
// messages hold these words" to someone with the database's key and shows
// an attacker holding only the file how often each (unknown) word occurs.

// IndexedMessage is one message of the index. Value is the engine's
// encoding of the message; the store seals it.
type IndexedMessage struct {
	Shard ShardID
	ID    [16]byte
	Time  int64 // milliseconds since the Unix epoch
	Value []byte
	// ByOther: written by someone other than this user; MentionsMe: it
	// mentions this user. They keep the unread counts (unread.go).
	ByOther, MentionsMe bool
}

// MessageCursor names a position in a group's history: the messages
// strictly older than (Time, ID).
type MessageCursor struct {
	Time int64
	ID   [16]byte
}

// Limits of a search.
const (
	MaxSearchTerms   = 16 // words of one query
	maxPrefixRunes   = 20 // longest indexed word prefix
	minPrefixRunes   = 2  // shortest indexed word prefix
	MaxSearchResults = 500
)

// ErrBadQuery is returned for a search query without a word to look for.
var ErrBadQuery = errcode.New("search/bad_query", "the search needs at least one word of letters or digits (at most 16 words)")

func (m IndexedMessage) name() []byte { return append(m.Shard.name(), m.ID[:]...) }

// PutMessage indexes a message, replacing the row of the same shard and id
// (an edit) and the terms of its old text. text is what search finds it by.
func (t *Tx) PutMessage(m IndexedMessage, text string) error {
	sealed, err := t.seal("messages", m.name(), m.Value)
	if err != nil {
		return err
	}
	s, err := t.sealer()
	if err != nil {
		return err
	}
	flags := flagsOf(m)
	counted, err := t.seal("message_counts", m.name(), []byte{flags})
	if err != nil {
		return err
	}
	oldTime, oldFlags, had, err := t.oldCount(m)
	if err != nil {
		return err
	}
	var rowid int64
	if err := t.row(`INSERT INTO messages (group_id, day, epoch, msg_id, time_ms, sealed, counted) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (group_id, day, epoch, msg_id) DO UPDATE SET time_ms = excluded.time_ms, sealed = excluded.sealed, counted = excluded.counted
		RETURNING rowid`,
		m.Shard.Group[:], m.Shard.Day, int64(m.Shard.Epoch), m.ID[:], m.Time, sealed, counted).Scan(&rowid); err != nil {
		return fmt.Errorf("store: index message: %w", err)
	}
	if had {
		if err := t.addCount(m.Shard.Group, oldTime, oldFlags, -1); err != nil {
			return err
		}
	}
	if err := t.addCount(m.Shard.Group, m.Time, flags, +1); err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM message_terms WHERE rowid = ?`, rowid); err != nil {
		return fmt.Errorf("store: index message: %w", err)
	}
	if terms := s.indexTerms(text); terms != "" {
		if _, err := t.exec(`INSERT INTO message_terms (rowid, terms) VALUES (?, ?)`, rowid, terms); err != nil {
			return fmt.Errorf("store: index message: %w", err)
		}
	}
	return nil
}

// DeleteMessage removes a message and its terms from the index (a deleted
// message); a message not in the index is no error.
func (t *Tx) DeleteMessage(shard ShardID, id [16]byte) error {
	var rowid, timeMs int64
	var sealed []byte
	err := t.row(`DELETE FROM messages WHERE group_id = ? AND day = ? AND epoch = ? AND msg_id = ? RETURNING rowid, time_ms, counted`,
		shard.Group[:], shard.Day, int64(shard.Epoch), id[:]).Scan(&rowid, &timeMs, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: unindex message: %w", err)
	}
	flags, err := t.counted(IndexedMessage{Shard: shard, ID: id}, sealed)
	if err != nil {
		return err
	}
	if err := t.addCount(shard.Group, timeMs, flags, -1); err != nil {
		return err
	}
	_, err = t.exec(`DELETE FROM message_terms WHERE rowid = ?`, rowid)
	return err
}

// DeleteGroupMessages removes every indexed message of a group.
func (t *Tx) DeleteGroupMessages(group [32]byte) error {
	if _, err := t.exec(`DELETE FROM message_terms WHERE rowid IN (SELECT rowid FROM messages WHERE group_id = ?)`, group[:]); err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM messages WHERE group_id = ?`, group[:]); err != nil {
		return err
	}
	return t.resetChannelCounts(group)
}

const messageColumns = `m.group_id, m.day, m.epoch, m.msg_id, m.time_ms, m.sealed`

// MessagesBefore returns up to limit messages of group older than before
// (the newest ones when before is nil), newest first.
func (t *Tx) MessagesBefore(group [32]byte, before *MessageCursor, limit int) ([]IndexedMessage, error) {
	if before == nil {
		return t.messages(`SELECT `+messageColumns+` FROM messages m WHERE m.group_id = ?
			ORDER BY m.time_ms DESC, m.msg_id DESC LIMIT ?`, group[:], limit)
	}
	return t.messages(`SELECT `+messageColumns+` FROM messages m WHERE m.group_id = ? AND (m.time_ms, m.msg_id) < (?, ?)
		ORDER BY m.time_ms DESC, m.msg_id DESC LIMIT ?`, group[:], before.Time, before.ID[:], limit)
}

// MessagesByID returns the indexed messages of group with id (one, unless
// two shards hold the same id).
func (t *Tx) MessagesByID(group [32]byte, id [16]byte) ([]IndexedMessage, error) {
	return t.messages(`SELECT `+messageColumns+` FROM messages m WHERE m.group_id = ? AND m.msg_id = ?`, group[:], id[:])
}

// CountMessages returns how many messages of group the index holds.
func (t *Tx) CountMessages(group [32]byte) (int, error) {
	var n int
	err := t.row(`SELECT count(*) FROM messages WHERE group_id = ?`, group[:]).Scan(&n)
	return n, err
}

// SearchMessages returns up to limit (1 to MaxSearchResults) messages whose
// text holds every word of query, the last one possibly as a prefix, most
// recently indexed first; only those of group unless group is nil. A query
// without a word is refused with [ErrBadQuery].
func (t *Tx) SearchMessages(query string, group *[32]byte, limit int) ([]IndexedMessage, error) {
	if limit < 1 || limit > MaxSearchResults {
		return nil, fmt.Errorf("%w (limit %d)", ErrBadQuery, limit)
	}
	s, err := t.sealer()
	if err != nil {
		return nil, err
	}
	match, err := s.queryTerms(query)
	if err != nil {
		return nil, err
	}
	q := `SELECT ` + messageColumns + ` FROM message_terms JOIN messages m ON m.rowid = message_terms.rowid
		WHERE message_terms MATCH ?`
	args := []any{match}
	if group != nil {
		q += ` AND m.group_id = ?`
		args = append(args, group[:])
	}
	q += ` ORDER BY message_terms.rowid DESC LIMIT ?`
	return t.messages(q, append(args, limit)...)
}

func (t *Tx) messages(q string, args ...any) ([]IndexedMessage, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read messages: %w", err)
	}
	defer rows.Close()
	var out []IndexedMessage
	for rows.Next() {
		var m IndexedMessage
		var g, id, sealed []byte
		var epoch int64
		if err := rows.Scan(&g, &m.Shard.Day, &epoch, &id, &m.Time, &sealed); err != nil {
			return nil, fmt.Errorf("store: read messages: %w", err)
		}
		copy(m.Shard.Group[:], g)
		copy(m.ID[:], id)
		m.Shard.Epoch = uint64(epoch)
		if m.Value, err = t.open("messages", m.name(), sealed); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MessageIndexBuilt reports whether the engine has indexed the shards
// stored before the index existed.
func (t *Tx) MessageIndexBuilt() (bool, error) {
	var built int
	err := t.row(`SELECT built FROM message_index_state`).Scan(&built)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return built == 1, err
}

// SetMessageIndexBuilt records that the index covers every stored shard.
func (t *Tx) SetMessageIndexBuilt() error {
	_, err := t.exec(`INSERT INTO message_index_state (singleton, built) VALUES (1, 1)
		ON CONFLICT (singleton) DO UPDATE SET built = 1`)
	return err
}

// Words splits text into the lower-case words search indexes: runs of
// letters and digits.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// term is the blinded form of a word ('e') or word prefix ('p').
func (s *sealer) term(kind byte, w string) string {
	m := hmac.New(sha256.New, s.terms)
	m.Write([]byte{kind, 0})
	m.Write([]byte(w))
	return string(kind) + hex.EncodeToString(m.Sum(nil)[:8])
}

// indexTerms returns the blinded terms of text: each distinct word, and each
// of its prefixes of 2 to 20 letters shorter than the word.
func (s *sealer) indexTerms(text string) string {
	seen := map[string]bool{}
	var b strings.Builder
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t)
		}
	}
	for _, w := range Words(text) {
		add(s.term('e', w))
		n := 0
		for i := range w {
			if n >= minPrefixRunes && n <= maxPrefixRunes {
				add(s.term('p', w[:i]))
			}
			n++
		}
	}
	return b.String()
}

// queryTerms returns the FTS5 query for text: every word, the last one
// matching whole or as a prefix.
func (s *sealer) queryTerms(text string) (string, error) {
	ws := Words(text)
	if len(ws) == 0 || len(ws) > MaxSearchTerms {
		return "", ErrBadQuery
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = s.term('e', w)
		if i == len(ws)-1 && utf8.RuneCountInString(w) >= minPrefixRunes && utf8.RuneCountInString(w) <= maxPrefixRunes {
			parts[i] = "(" + parts[i] + " OR " + s.term('p', w) + ")"
		}
	}
	return strings.Join(parts, " AND "), nil
}
