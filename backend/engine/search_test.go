package engine

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"weald/backend/roster"
	"weald/backend/store"
)

// Search and paging read the message index, which is written as messages
// are sent (Dana) and as received ones are applied (Sam).
func TestSearchAndPagingReadTheIndex(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 70)
	ctx := testCtx(t)
	for i := range 12 {
		text := fmt.Sprintf("routine note %d", i)
		if i == 5 {
			text = "the Quarterly budget review is on Thursday"
		}
		if _, err := dana.Send(ctx, "general", text); err != nil {
			t.Fatal(err)
		}
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 71)
	for _, e := range []*Engine{dana, sam} {
		res, err := e.Search(ctx, "quarter budg", "", 20)
		if err != nil || len(res) != 0 {
			t.Fatalf("a prefix of a word that is not the last matched: %+v, %v", res, err)
		}
		res, err = e.Search(ctx, "budget quarter", "", 20)
		if err != nil || len(res) != 1 || res[0].Message.Text != "the Quarterly budget review is on Thursday" ||
			res[0].ChannelName != "general" || len(res[0].Channel) != 64 {
			t.Fatalf("search: %+v, %v", res, err)
		}
		if res, err := e.Search(ctx, "routine", "general", 50); err != nil || len(res) != 11 {
			t.Fatalf("routine in #general: %d results, %v", len(res), err)
		}
		if _, err := e.Search(ctx, "  ?! ", "", 20); !errors.Is(err, store.ErrBadQuery) {
			t.Fatalf("empty query: %v", err)
		}
		if _, err := e.Search(ctx, "x", "nosuch", 20); !errors.Is(err, ErrNoChannel) {
			t.Fatalf("unknown channel: %v", err)
		}
		// Pages of 5, newest first, each oldest first.
		var all []Message
		before := ""
		for range 10 {
			page, more, err := e.MessagesBefore(ctx, "general", before, 5)
			if err != nil {
				t.Fatal(err)
			}
			all = append(append([]Message{}, page...), all...)
			if !more {
				break
			}
			before = page[0].ID
		}
		if len(all) != 12 || all[0].Text != "routine note 0" || all[11].Text != "routine note 11" {
			t.Fatalf("paged history: %d messages %+v", len(all), all)
		}
		if _, _, err := e.MessagesBefore(ctx, "general", "00112233445566778899aabbccddeeff", 5); !errors.Is(err, ErrBadCursor) {
			t.Fatal("an unknown cursor was accepted")
		}
		if _, _, err := e.MessagesBefore(ctx, "general", "", 0); !errors.Is(err, ErrBadPage) {
			t.Fatalf("limit 0: %v", err)
		}
	}
}
