package app

import (
	"errors"
	"fmt"
	"testing"
)

func pageOf(n int) []Message {
	out := make([]Message, n)
	for i := range out {
		out[i] = Message{ID: fmt.Sprintf("m%d", i), SentAt: int64(i)}
	}
	return out
}

func TestPageWalksBackToTheFirstMessage(t *testing.T) {
	t.Parallel()
	all := pageOf(1001)
	before, got := "", 0
	for range 10 {
		p, err := page(all, before, 200)
		if err != nil {
			t.Fatal(err)
		}
		got += len(p.Messages)
		if last := p.Messages[len(p.Messages)-1]; before != "" && last.ID != fmt.Sprintf("m%d", 1001-got+len(p.Messages)-1) {
			t.Fatalf("page ends at %s", last.ID)
		}
		if !p.More {
			break
		}
		before = p.Messages[0].ID
	}
	if got != 1001 {
		t.Fatalf("walked %d messages, want 1001", got)
	}
}

func TestPageNewestAndShort(t *testing.T) {
	t.Parallel()
	p, err := page(pageOf(30), "", 200)
	if err != nil || len(p.Messages) != 30 || p.More || p.Messages[29].ID != "m29" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	p, err = page(pageOf(300), "m100", 50)
	if err != nil || len(p.Messages) != 50 || !p.More || p.Messages[0].ID != "m50" || p.Messages[49].ID != "m99" {
		t.Fatalf("page = %+v, %v", p, err)
	}
}

func TestPageRefusesAnUnknownCursor(t *testing.T) {
	t.Parallel()
	_, err := page(pageOf(3), "nope", 10)
	var e *Error
	if !errors.As(err, &e) || e.Code != "bad_request/cursor" {
		t.Fatalf("err = %v", err)
	}
}

func TestMessagesBeforeRefusesABadLimit(t *testing.T) {
	t.Parallel()
	w := &Workspaces{}
	for _, n := range []int{0, -1, MaxPage + 1} {
		_, err := w.MessagesBefore("ws", "ch", "", n)
		var e *Error
		if !errors.As(err, &e) || e.Code != "bad_request/limit" {
			t.Fatalf("limit %d: err = %v", n, err)
		}
	}
}
