package documents

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	automerge "github.com/automerge/automerge-go"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// MaxTextBytes is the longest message text, in bytes of UTF-8.
const MaxTextBytes = 32 << 10

// Errors of the chat schema.
var (
	ErrNotFound  = errcode.New("docs/not_found", "there is no such message in this channel")
	ErrNotAuthor = errcode.New("docs/not_author", "only the author of a message can edit or delete it")
	ErrDeleted   = errcode.New("docs/deleted", "the message has been deleted")
	ErrBadText   = errcode.New("docs/bad_text", "the message text is empty, too long or not UTF-8")
	ErrWrongDay  = errcode.New("docs/wrong_day", "the message time is not on this shard's day")
)

// MessageID is a message's random 16-byte id.
type MessageID [16]byte

// String returns the id in lower-case hex.
func (m MessageID) String() string { return hex.EncodeToString(m[:]) }

// ParseMessageID parses 32 hex digits.
func ParseMessageID(s string) (MessageID, error) {
	var m MessageID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(m) {
		return m, fmt.Errorf("%w: bad message id %q", ErrNotFound, s)
	}
	copy(m[:], b)
	return m, nil
}

// Message is one chat message as the document currently holds it.
type Message struct {
	ID      MessageID
	Author  wire.ID   // the principal (user or agent) that posted it
	Device  wire.ID   // the device or agent that created it, from the change's (authenticated) actor
	Forged  bool      // Options.PrincipalOf says Device does not belong to Author
	Time    time.Time // when it was posted, by the author's clock
	Text    string    // empty once deleted
	Edited  time.Time // zero if never edited
	Deleted bool
	// Mentions mark "@name" spans of Text (mention.go); none when the
	// field is missing or does not fit the text.
	Mentions []Mention
}

// Shard is one chat day shard: the messages of one channel posted on one
// UTC day. Each message is a map under the root key "m/<id hex>" with the
// fields author (bytes), device (bytes), time (int64 ms), text (string), and after later
// changes edited (int64 ms) and deleted (bool). Keeping messages directly
// under the root, which every replica shares, means two replicas that create
// the same shard concurrently can never hide each other's messages.
type Shard struct {
	*Document
	group wire.ID
	day   Day
	// last is the id and millisecond of this replica's newest post
	// (nextID): posts in one millisecond get rising ids, so the order
	// messages read in (time, then id) is the order they were posted.
	lastMs int64
	lastID MessageID
}

const msgPrefix = "m/"

// NewShard returns an empty chat shard of group for day.
func NewShard(group wire.ID, day Day, o Options) (*Shard, error) {
	d, err := NewDocument(ChatID(group, day), o)
	if err != nil {
		return nil, err
	}
	d.ref = DocRef{Kind: KindChat, Day: day}
	return &Shard{Document: d, group: group, day: day}, nil
}

// LoadShard restores a chat shard from its saved and pending bytes.
func LoadShard(group wire.ID, day Day, saved, pending []byte, o Options) (*Shard, error) {
	d, err := LoadDocument(ChatID(group, day), saved, pending, o)
	if err != nil {
		return nil, err
	}
	d.ref = DocRef{Kind: KindChat, Day: day}
	return &Shard{Document: d, group: group, day: day}, nil
}

// Day returns the shard's day.
func (s *Shard) Day() Day { return s.day }

// Post adds a message at the injected clock's time and returns it with the
// change bytes to send.
func (s *Shard) Post(text string) (Message, []byte, error) {
	return s.post(s.opts.Clock(), text, nil)
}

// PostMentioning is Post with mentions of people in the text.
func (s *Shard) PostMentioning(text string, mentions []Mention) (Message, []byte, error) {
	return s.post(s.opts.Clock(), text, mentions)
}

// PostAt is PostMentioning at time now, which must fall on the shard's day
// (ErrWrongDay): several messages posted at once get distinct, rising
// times, so that they read in the order they were posted.
func (s *Shard) PostAt(now time.Time, text string, mentions []Mention) (Message, []byte, error) {
	return s.post(now, text, mentions)
}

func (s *Shard) post(now time.Time, text string, mentions []Mention) (Message, []byte, error) {
	if s.author.IsZero() || s.opts.Principal.IsZero() {
		return Message{}, nil, ErrReadOnly
	}
	if err := checkText(text); err != nil {
		return Message{}, nil, err
	}
	if err := CheckMentions(mentions, text); err != nil {
		return Message{}, nil, err
	}
	if day, err := DayOf(now); err != nil || day != s.day {
		return Message{}, nil, ErrWrongDay
	}
	ms := now.UnixMilli()
	id, err := s.nextID(ms)
	if err != nil {
		return Message{}, nil, err
	}
	fields := map[string]any{
		"author": s.opts.Principal[:],
		"device": s.author[:],
		"time":   ms,
		"text":   text,
	}
	if len(mentions) > 0 {
		fields[mentionsKey] = EncodeMentions(mentions)
	}
	if err := s.root().Set(msgPrefix+id.String(), fields); err != nil {
		return Message{}, nil, fmt.Errorf("docs: post: %w", err)
	}
	ch, err := s.commitAt(now)
	if err != nil {
		return Message{}, nil, err
	}
	return Message{ID: id, Author: s.opts.Principal, Device: s.author, Time: time.UnixMilli(ms).UTC(), Text: text, Mentions: mentions}, ch, nil
}

// nextID returns a random message id, or, for a second post in the
// millisecond of this replica's last one whose random id would sort before
// it, the last id plus one: messages read by time, then id, and two posts
// of one device in one millisecond must read in the order they were made.
// (Posts of two devices in one millisecond have no order but the ids'.)
func (s *Shard) nextID(ms int64) (MessageID, error) {
	var id MessageID
	if _, err := io.ReadFull(s.opts.Rand, id[:]); err != nil {
		return id, fmt.Errorf("docs: message id: %w", err)
	}
	if ms == s.lastMs && bytes.Compare(id[:], s.lastID[:]) <= 0 {
		next := s.lastID
		for i := len(next) - 1; i >= 0; i-- {
			if next[i]++; next[i] != 0 {
				break
			}
		}
		if next != (MessageID{}) { // the last id was all ones: keep the random one
			id = next
		}
	}
	s.lastMs, s.lastID = ms, id
	return id, nil
}

// Edit replaces the text of one of the local principal's messages.
func (s *Shard) Edit(id MessageID, text string) ([]byte, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	m, obj, err := s.own(id)
	if err != nil {
		return nil, err
	}
	if m.Deleted {
		return nil, ErrDeleted
	}
	now := s.opts.Clock()
	if err := obj.Set("text", text); err != nil {
		return nil, fmt.Errorf("docs: edit: %w", err)
	}
	if err := obj.Set("edited", now.UnixMilli()); err != nil {
		return nil, fmt.Errorf("docs: edit: %w", err)
	}
	if len(m.Mentions) > 0 {
		// The spans marked the old text: an edit drops them.
		if err := obj.Set(mentionsKey, []byte{}); err != nil {
			return nil, fmt.Errorf("docs: edit: %w", err)
		}
	}
	return s.commitAt(now)
}

// Delete marks one of the local principal's messages deleted and removes its
// text from the current state. Deletion is final: "deleted" is only ever set
// to true, so a concurrent edit cannot bring a message back.
func (s *Shard) Delete(id MessageID) ([]byte, error) {
	m, obj, err := s.own(id)
	if err != nil {
		return nil, err
	}
	if m.Deleted {
		return nil, ErrDeleted
	}
	if err := obj.Set("deleted", true); err != nil {
		return nil, fmt.Errorf("docs: delete: %w", err)
	}
	if err := obj.Set("text", ""); err != nil {
		return nil, fmt.Errorf("docs: delete: %w", err)
	}
	return s.commitAt(s.opts.Clock())
}

func (s *Shard) own(id MessageID) (Message, *automerge.Map, error) {
	if s.author.IsZero() || s.opts.Principal.IsZero() {
		return Message{}, nil, ErrReadOnly
	}
	v, err := s.root().Get(msgPrefix + id.String())
	if err != nil || v.Kind() != automerge.KindMap {
		return Message{}, nil, ErrNotFound
	}
	m, ok := decodeMessage(id, v.Map())
	if !ok {
		return Message{}, nil, ErrNotFound
	}
	if m.Author != s.opts.Principal {
		return Message{}, nil, ErrNotAuthor
	}
	return m, v.Map(), nil
}

// Message returns one message.
func (s *Shard) Message(id MessageID) (Message, error) {
	v, err := s.root().Get(msgPrefix + id.String())
	if err != nil || v.Kind() != automerge.KindMap {
		return Message{}, ErrNotFound
	}
	m, ok := decodeMessage(id, v.Map())
	if !ok {
		return Message{}, ErrNotFound
	}
	s.attribute(msgPrefix+id.String(), &m)
	return m, nil
}

// attribute replaces the message's device field, which its creator wrote
// and could have made up, with the device of the change that created the
// message key, and checks the claimed author against it when the caller
// can say which principal a device belongs to.
func (s *Shard) attribute(key string, m *Message) {
	if a := s.creator(key); len(a) >= 32 {
		copy(m.Device[:], a[:32])
	}
	if s.opts.PrincipalOf != nil {
		p, ok := s.opts.PrincipalOf(m.Device)
		m.Forged = !ok || p != m.Author
	}
}

// Messages returns every well-formed message, oldest first (by time, then
// id). Entries that do not follow the schema are skipped.
func (s *Shard) Messages() []Message {
	vals, err := s.root().Values()
	if err != nil {
		return nil
	}
	out := make([]Message, 0, len(vals))
	for k, v := range vals {
		if !strings.HasPrefix(k, msgPrefix) || v.Kind() != automerge.KindMap {
			continue
		}
		id, err := ParseMessageID(k[len(msgPrefix):])
		if err != nil {
			continue
		}
		if m, ok := decodeMessage(id, v.Map()); ok {
			s.attribute(k, &m)
			out = append(out, m)
		}
	}
	sortMessages(out)
	return out
}

// MessageIDs returns the ids of the message keys, in no order, without
// reading the messages (a reader that only marks them for its index;
// Message reads one). Keys that are not a message id are skipped.
func (s *Shard) MessageIDs() []MessageID {
	ks, err := s.root().Keys()
	if err != nil {
		return nil
	}
	out := make([]MessageID, 0, len(ks))
	for _, k := range ks {
		if !strings.HasPrefix(k, msgPrefix) {
			continue
		}
		if id, err := ParseMessageID(k[len(msgPrefix):]); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func sortMessages(ms []Message) {
	sort.Slice(ms, func(i, j int) bool {
		if !ms[i].Time.Equal(ms[j].Time) {
			return ms[i].Time.Before(ms[j].Time)
		}
		return bytes.Compare(ms[i].ID[:], ms[j].ID[:]) < 0
	})
}

// decodeMessage reads a message map, checking every field's type, since a
// received document may hold anything.
func decodeMessage(id MessageID, m *automerge.Map) (Message, bool) {
	vals, err := m.Values()
	if err != nil {
		return Message{}, false
	}
	msg := Message{ID: id}
	a, t, x := vals["author"], vals["time"], vals["text"]
	if a == nil || a.Kind() != automerge.KindBytes || len(a.Bytes()) != 32 {
		return Message{}, false
	}
	copy(msg.Author[:], a.Bytes())
	if t == nil || t.Kind() != automerge.KindInt64 || t.Int64() < 0 {
		return Message{}, false
	}
	msg.Time = time.UnixMilli(t.Int64()).UTC()
	if x == nil || x.Kind() != automerge.KindStr {
		return Message{}, false
	}
	msg.Text = x.Str()
	if dv := vals["device"]; dv != nil && dv.Kind() == automerge.KindBytes && len(dv.Bytes()) == 32 {
		copy(msg.Device[:], dv.Bytes())
	}
	if e := vals["edited"]; e != nil && e.Kind() == automerge.KindInt64 && e.Int64() > 0 {
		msg.Edited = time.UnixMilli(e.Int64()).UTC()
	}
	if d := vals["deleted"]; d != nil && d.Kind() == automerge.KindBool && d.Bool() {
		msg.Deleted = true
		msg.Text = ""
	}
	if mv := vals[mentionsKey]; mv != nil && mv.Kind() == automerge.KindBytes && !msg.Deleted {
		// Mentions that do not fit the text (a later edit, or a sender's
		// mistake or malice) are dropped: the text is shown as it is.
		msg.Mentions, _ = DecodeMentions(mv.Bytes(), msg.Text)
	}
	return msg, true
}

func checkText(text string) error {
	if text == "" || len(text) > MaxTextBytes || !utf8.ValidString(text) {
		return ErrBadText
	}
	return nil
}
