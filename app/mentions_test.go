package app

import (
	"testing"

	"weald/backend/engine"
)

// The UI counts in UTF-16 code units, Go and the document in bytes: a span
// after an emoji and an accent lands on the same "@name", and leading
// spaces the send trims move it.
func TestMentionSpansBetweenUTF16AndBytes(t *testing.T) {
	t.Parallel()
	raw := "  🙂 é @Dana hi"
	text := "🙂 é @Dana hi"
	// In UTF-16: two spaces, 🙂 (2 units), space, é, space → "@Dana" at 7..12.
	got, err := toEngineMentions(raw, text, []MentionRef{{User: "AB", Start: 7, End: 12}})
	if err != nil || len(got) != 1 || text[got[0].Start:got[0].End] != "@Dana" || got[0].User != "ab" {
		t.Fatalf("to bytes: %+v, %v", got, err)
	}
	back := utf16Offsets(text)
	if back[got[0].Start] != 5 || back[got[0].End] != 10 {
		t.Fatalf("back to UTF-16: %d..%d", back[got[0].Start], back[got[0].End])
	}
	for _, bad := range []MentionRef{{Start: 3, End: 12}, {Start: 0, End: 4}, {Start: 7, End: 99}} {
		if _, err := toEngineMentions(raw, text, []MentionRef{bad}); err == nil || err.Code != "mention/bad_span" {
			t.Fatalf("span %+v: %v", bad, err)
		}
	}
	var w Workspaces
	if refs := w.mentionRefs(nil, "", engine.Message{Text: text}); refs != nil {
		t.Fatalf("no mentions: %+v", refs)
	}
}
