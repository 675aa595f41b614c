package app

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"weald/backend/engine"
)

// MentionRef is a mention as the UI holds it: the span [Start, End) of the
// message text, in UTF-16 code units (JavaScript string indices), that reads
// "@name", and the person (user id, hex) it refers to. Name is that
// person's display name now, which the UI shows in place of the span.
type MentionRef struct {
	User  string `json:"user"`
	Name  string `json:"name"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	// You says the mention is of you (set by Go; ignored when sending).
	You bool `json:"you,omitempty"`
}

// utf16Offsets maps each byte offset of s that starts a rune (and len(s))
// to its UTF-16 offset.
func utf16Offsets(s string) map[int]int {
	out := make(map[int]int, len(s)+1)
	u := 0
	for i, r := range s {
		out[i] = u
		u += max(1, utf16.RuneLen(r)) // an invalid byte reads as U+FFFD
	}
	out[len(s)] = u
	return out
}

// byteOffsets maps UTF-16 offsets of s that fall between runes to byte offsets.
func byteOffsets(s string) map[int]int {
	out := map[int]int{}
	for b, u := range utf16Offsets(s) {
		out[u] = b
	}
	return out
}

// toEngineMentions turns the UI's mentions of raw (before trimming) into
// byte spans of text = strings.TrimSpace(raw); a span that falls off the
// trimmed text or inside a character is refused.
func toEngineMentions(raw, text string, ms []MentionRef) ([]engine.Mention, *Error) {
	if len(ms) == 0 {
		return nil, nil
	}
	lead := len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
	at := byteOffsets(raw)
	out := make([]engine.Mention, 0, len(ms))
	for _, m := range ms {
		s, ok1 := at[m.Start]
		e, ok2 := at[m.End]
		if !ok1 || !ok2 || s < lead || e-lead > len(text) {
			return nil, &Error{Code: "mention/bad_span", Message: "A mention does not mark an @name in the message; type it again."}
		}
		out = append(out, engine.Mention{User: strings.ToLower(m.User), Start: s - lead, End: e - lead})
	}
	return out, nil
}

// mentionRefs gives a message's mentions UTF-16 spans and current names.
func (w *Workspaces) mentionRefs(r *wsRun, me string, m engine.Message) []MentionRef {
	if len(m.Mentioned) == 0 || !utf8.ValidString(m.Text) {
		return nil
	}
	at := utf16Offsets(m.Text)
	out := make([]MentionRef, 0, len(m.Mentioned))
	for _, x := range m.Mentioned {
		s, ok1 := at[x.Start]
		e, ok2 := at[x.End]
		if !ok1 || !ok2 {
			continue
		}
		out = append(out, MentionRef{User: x.User, Name: w.personName(r, me, x.User), Start: s, End: e, You: x.User == me})
	}
	return out
}
