package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// Unread counts (docs/protocol/store.md "Unread counts"): per group, a read
// marker and the number of messages by others after it (and of those, the
// ones mentioning this user), kept up to date by PutMessage and
// DeleteMessage in the same transaction, so that listing channels reads one
// row per channel. Whether a message counts is sealed with the row
// (`counted`); the counts and the marker are plain integers, as the message
// times already are.

// ChannelCount is one group's read marker and unread counts.
type ChannelCount struct {
	Group    [32]byte
	ReadMs   int64 // messages at or before this time (Unix ms) are read
	Unread   int   // messages by others after ReadMs
	Mentions int   // of those, the ones mentioning this user
}

// count flags of one message (the sealed `counted` byte).
const (
	flagByOther    = 1
	flagMentionsMe = 2
)

func flagsOf(m IndexedMessage) byte {
	var f byte
	if m.ByOther {
		f |= flagByOther
		if m.MentionsMe {
			f |= flagMentionsMe
		}
	}
	return f
}

// counted reads a row's sealed flags; a row indexed before 0007 counts for
// nothing.
func (t *Tx) counted(m IndexedMessage, sealed []byte) (byte, error) {
	if sealed == nil {
		return 0, nil
	}
	b, err := t.open("message_counts", m.name(), sealed)
	if err != nil {
		return 0, err
	}
	if len(b) != 1 {
		return 0, fmt.Errorf("%w (message_counts of %d bytes)", ErrUnreadable, len(b))
	}
	return b[0], nil
}

// addCount adds sign × (the message's flags) to its group's counts when the
// message is after the group's read marker.
func (t *Tx) addCount(group [32]byte, timeMs int64, flags byte, sign int) error {
	if flags&flagByOther == 0 {
		return nil
	}
	mention := 0
	if flags&flagMentionsMe != 0 {
		mention = sign
	}
	if _, err := t.exec(`INSERT INTO channel_reads (group_id) VALUES (?) ON CONFLICT (group_id) DO NOTHING`, group[:]); err != nil {
		return fmt.Errorf("store: unread count: %w", err)
	}
	_, err := t.exec(`UPDATE channel_reads SET unread = max(0, unread + ?), mentions = max(0, mentions + ?)
		WHERE group_id = ? AND ? > read_ms`, sign, mention, group[:], timeMs)
	if err != nil {
		return fmt.Errorf("store: unread count: %w", err)
	}
	return nil
}

// oldCount returns the stored time and flags of a message's row, if any.
func (t *Tx) oldCount(m IndexedMessage) (timeMs int64, flags byte, ok bool, err error) {
	var sealed []byte
	err = t.row(`SELECT time_ms, counted FROM messages WHERE group_id = ? AND day = ? AND epoch = ? AND msg_id = ?`,
		m.Shard.Group[:], m.Shard.Day, int64(m.Shard.Epoch), m.ID[:]).Scan(&timeMs, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("store: unread count: %w", err)
	}
	flags, err = t.counted(m, sealed)
	return timeMs, flags, err == nil, err
}

// ChannelCounts returns the read marker and unread counts of every group
// that has either (one row per group).
func (t *Tx) ChannelCounts() ([]ChannelCount, error) {
	rows, err := t.query(`SELECT group_id, read_ms, unread, mentions FROM channel_reads`)
	if err != nil {
		return nil, fmt.Errorf("store: unread counts: %w", err)
	}
	defer rows.Close()
	var out []ChannelCount
	for rows.Next() {
		var c ChannelCount
		var g []byte
		if err := rows.Scan(&g, &c.ReadMs, &c.Unread, &c.Mentions); err != nil {
			return nil, fmt.Errorf("store: unread counts: %w", err)
		}
		copy(c.Group[:], g)
		out = append(out, c)
	}
	return out, rows.Err()
}

// MarkRead moves group's read marker to upTo (Unix ms) and counts again
// the messages after it; it never moves the marker back (false then).
// Counting reads only the rows after the marker.
func (t *Tx) MarkRead(group [32]byte, upTo int64) (bool, error) {
	var read int64
	err := t.row(`SELECT read_ms FROM channel_reads WHERE group_id = ?`, group[:]).Scan(&read)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("store: mark read: %w", err)
	}
	if err == nil && upTo <= read {
		return false, nil
	}
	rows, err := t.query(`SELECT day, epoch, msg_id, counted FROM messages WHERE group_id = ? AND time_ms > ?`, group[:], upTo)
	if err != nil {
		return false, fmt.Errorf("store: mark read: %w", err)
	}
	type row struct {
		m      IndexedMessage
		sealed []byte
	}
	var after []row
	for rows.Next() {
		r := row{m: IndexedMessage{Shard: ShardID{Group: group}}}
		var id []byte
		var epoch int64
		if err := rows.Scan(&r.m.Shard.Day, &epoch, &id, &r.sealed); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: mark read: %w", err)
		}
		r.m.Shard.Epoch = uint64(epoch)
		copy(r.m.ID[:], id)
		after = append(after, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	unread, mentions := 0, 0
	for _, r := range after {
		f, err := t.counted(r.m, r.sealed)
		if err != nil {
			return false, err
		}
		if f&flagByOther != 0 {
			unread++
			if f&flagMentionsMe != 0 {
				mentions++
			}
		}
	}
	if _, err := t.exec(`INSERT INTO channel_reads (group_id, read_ms, unread, mentions) VALUES (?, ?, ?, ?)
		ON CONFLICT (group_id) DO UPDATE SET read_ms = excluded.read_ms, unread = excluded.unread, mentions = excluded.mentions`,
		group[:], upTo, unread, mentions); err != nil {
		return false, fmt.Errorf("store: mark read: %w", err)
	}
	return true, nil
}

// NewestMessageTime returns the time (Unix ms) of group's newest indexed
// message, and false when it has none.
func (t *Tx) NewestMessageTime(group [32]byte) (int64, bool, error) {
	var ms sql.NullInt64
	if err := t.row(`SELECT max(time_ms) FROM messages WHERE group_id = ?`, group[:]).Scan(&ms); err != nil {
		return 0, false, fmt.Errorf("store: newest message: %w", err)
	}
	return ms.Int64, ms.Valid, nil
}

// resetChannelCounts zeroes a group's counts (its messages are gone); the
// read marker stays.
func (t *Tx) resetChannelCounts(group [32]byte) error {
	_, err := t.exec(`UPDATE channel_reads SET unread = 0, mentions = 0 WHERE group_id = ?`, group[:])
	return err
}
