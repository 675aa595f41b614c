package engine

import (
	"encoding/hex"

	"weald/backend/documents"
	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/wire"
)

// Mention marks "@name" in a message's text (byte offsets [Start, End))
// as a reference to a person (docs/protocol/documents.md "Mentions"). It
// only marks the text: receivers highlight it and count it for the person
// it names, and nothing else follows from it.
type Mention struct {
	User  string `json:"user"` // user id (hex)
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// ErrMentionUnknown refuses a mention of someone who is not in the roster.
var ErrMentionUnknown = errcode.New("mention/unknown_user", "a mention names someone who is not a member of this workspace")

// docMentions checks mentions against the text and the roster (with e.mu
// held) and returns them as the document holds them.
func (e *Engine) docMentions(text string, ms []Mention) ([]documents.Mention, error) {
	if len(ms) == 0 {
		return nil, nil
	}
	out := make([]documents.Mention, 0, len(ms))
	for _, m := range ms {
		b, err := hex.DecodeString(m.User)
		if err != nil || len(b) != len(identity.UserID{}) {
			return nil, ErrMentionUnknown
		}
		var u wire.ID
		copy(u[:], b)
		if info, ok := e.roster.User(identity.UserID(u)); !ok || info.RevokedAt != nil {
			return nil, ErrMentionUnknown
		}
		out = append(out, documents.Mention{User: u, Start: m.Start, End: m.End})
	}
	if err := documents.CheckMentions(out, text); err != nil {
		return nil, err
	}
	return out, nil
}

// mentionsOf returns a document message's mentions as the engine reports them.
func mentionsOf(ms []documents.Mention) []Mention {
	if len(ms) == 0 {
		return nil
	}
	out := make([]Mention, len(ms))
	for i, m := range ms {
		out[i] = Mention{User: hex.EncodeToString(m.User[:]), Start: m.Start, End: m.End}
	}
	return out
}

// Mentions reports whether m mentions user (hex).
func (m Message) Mentions(user string) bool {
	for _, x := range m.Mentioned {
		if x.User == user {
			return true
		}
	}
	return false
}
