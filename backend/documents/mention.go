package documents

import (
	"encoding/binary"
	"unicode/utf8"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// MaxMentions bounds the mentions of one message.
const MaxMentions = 50

// ErrBadMention refuses mentions that do not mark "@…" spans of the text.
var ErrBadMention = errcode.New("docs/bad_mention", "a mention must mark an @name in the message text, in order, at most 50 of them")

// Mention is a structured reference to a person in a message: the span
// [Start, End) of the text (byte offsets into its UTF-8) that reads "@name",
// and the user id it refers to. The text keeps the name as it was typed; a
// reader shows the person's current name. A mention only marks text: it
// grants nothing and adds nobody (docs/protocol/documents.md "Mentions").
type Mention struct {
	User       wire.ID
	Start, End int
}

// mentionsKey is the message field holding the mentions: for each, in
// order of Start, the user id (32 bytes), Start and End-Start as uvarints.
const mentionsKey = "mentions"

// EncodeMentions returns the mentions field's bytes.
func EncodeMentions(ms []Mention) []byte {
	var out []byte
	for _, m := range ms {
		out = append(out, m.User[:]...)
		out = binary.AppendUvarint(out, uint64(m.Start))
		out = binary.AppendUvarint(out, uint64(m.End-m.Start))
	}
	return out
}

// DecodeMentions parses a mentions field against the text it marks. It
// returns ErrBadMention unless every span lies inside the text on rune
// boundaries, starts with '@' and names at least one more character, and the
// spans come in order without overlapping.
func DecodeMentions(b []byte, text string) ([]Mention, error) {
	var out []Mention
	for len(b) > 0 {
		if len(out) == MaxMentions || len(b) < 32 {
			return nil, ErrBadMention
		}
		var m Mention
		copy(m.User[:], b[:32])
		b = b[32:]
		start, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, ErrBadMention
		}
		b = b[n:]
		length, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, ErrBadMention
		}
		b = b[n:]
		if start > uint64(len(text)) || length > uint64(len(text))-start {
			return nil, ErrBadMention
		}
		m.Start, m.End = int(start), int(start+length)
		out = append(out, m)
	}
	if err := CheckMentions(out, text); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckMentions reports whether ms mark "@…" spans of text, in order.
func CheckMentions(ms []Mention, text string) error {
	if len(ms) > MaxMentions {
		return ErrBadMention
	}
	prev := 0
	for _, m := range ms {
		if m.Start < prev || m.End-m.Start < 2 || m.End > len(text) || text[m.Start] != '@' ||
			!boundary(text, m.Start+1) || !boundary(text, m.End) || m.User.IsZero() {
			return ErrBadMention
		}
		prev = m.End
	}
	return nil
}

// boundary reports whether byte offset i of text starts a rune (or ends the text).
func boundary(text string, i int) bool {
	return i == len(text) || utf8.RuneStart(text[i])
}
