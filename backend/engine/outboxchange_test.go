package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/roster"
)

// pageOf returns e's #general page (the newest 50) as the desktop reads it.
func pageOf(t *testing.T, e *Engine) map[string]Message {
	t.Helper()
	ms, _, err := e.TimelineBefore(testCtx(t), "general", "", 50)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Message{}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out
}

// messageTexts returns the texts of e's #general, oldest first.
func messageTexts(t *testing.T, e *Engine) []string {
	t.Helper()
	ms, err := e.Messages(testCtx(t), "general", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// Issue 17 item 4: edits and deletes made while the relay is down wait in
// the outbox after the send typed before them, show as pending on their
// messages, survive the app closing and opening again offline, and go out
// by themselves once the relay is back; the other member then reads them.
// An edit of a message still in the outbox changes it where it waits.
func TestEditAndDeleteWaitInTheOutboxOffline(t *testing.T) {
	t.Parallel()
	r := startFaultRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 90)
	opts.Clock = stepClock()
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sopts := r.options(t, "sam", 91)
	sopts.Clock = opts.Clock
	sam, err := Join(ctx, sopts, link)
	if err != nil {
		t.Fatal(err)
	}
	defer sam.Close()
	first, err := dana.Send(ctx, "general", "first draft")
	if err != nil {
		t.Fatal(err)
	}
	third, err := dana.Send(ctx, "general", "third, to delete")
	if err != nil {
		t.Fatal(err)
	}
	sams, err := sam.Send(ctx, "general", "sam's own")
	if err != nil {
		t.Fatal(err)
	}
	samsID := sams.ID
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	stopSam := runEngine(t, sam)
	defer stopSam()
	stopDana := runEngine(t, dana)

	r.stop()
	waitUntil(t, "dana is offline", func() bool { return dana.offline.Load() })
	second, err := dana.Queue(ctx, "general", "second, typo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.QueueEdit(ctx, "general", second.ID, "second, fixed"); err != nil {
		t.Fatal(err)
	}
	ed, err := dana.QueueEdit(ctx, "general", first.ID, "first, edited offline")
	if err != nil {
		t.Fatal(err)
	}
	if ed.State != OutboxPending || ed.Change != OpEdit || ed.Text != "first, edited offline" || !ed.Edited {
		t.Fatalf("queued edit: %+v", ed)
	}
	if err := dana.QueueDelete(ctx, "general", third.ID); err != nil {
		t.Fatal(err)
	}
	// Refused at once, offline, and nothing queued: someone else's
	// message, a bad id.
	if _, err := dana.QueueEdit(ctx, "general", samsID, "not mine"); !errors.Is(err, documents.ErrNotAuthor) {
		t.Fatalf("edit of sam's message: %v", err)
	}
	if err := dana.QueueDelete(ctx, "general", "not-an-id"); err == nil {
		t.Fatal("delete of a bad id queued")
	}

	check := func(when string) {
		t.Helper()
		out, err := dana.Outbox("general")
		if err != nil || len(out) != 1 || out[0].Text != "second, fixed" || out[0].State != OutboxPending {
			t.Fatalf("%s: outbox %+v, %v (one new message, edited where it waits)", when, out, err)
		}
		p := pageOf(t, dana)
		if m := p[first.ID]; m.Text != "first, edited offline" || m.Change != OpEdit || m.State != OutboxPending {
			t.Fatalf("%s: edited message on the page: %+v", when, m)
		}
		if m := p[third.ID]; m.Change != OpDelete || m.State != OutboxPending {
			t.Fatalf("%s: deleted message on the page: %+v", when, m)
		}
		dana.mu.Lock()
		var ops []string
		for _, it := range dana.outbox {
			ops = append(ops, it.Op+":"+it.Text)
		}
		dana.mu.Unlock()
		if len(ops) != 3 || ops[0] != ":second, fixed" || ops[1] != "edit:first, edited offline" || ops[2] != "delete:" {
			t.Fatalf("%s: outbox order %q", when, ops)
		}
	}
	check("offline")

	// The app closes and opens again, still offline: everything waits.
	stopDana()
	dana.Close()
	dana, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	check("after reopening")
	stopDana = runEngine(t, dana)
	defer stopDana()

	if err := r.start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "dana's outbox drains on reconnect", func() bool {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		return len(dana.outbox) == 0
	})
	want := []string{"first, edited offline", "sam's own", "second, fixed"}
	same := func(got []string) bool { return strings.Join(got, "|") == strings.Join(want, "|") }
	waitUntil(t, "sam reads the edit, the new message and not the deleted one", func() bool { return same(messageTexts(t, sam)) })
	if got := messageTexts(t, dana); !same(got) {
		t.Fatalf("dana's history %q, want %q", got, want)
	}
	if m := pageOf(t, sam)[first.ID]; !m.Edited {
		t.Fatalf("sam's edited message not marked edited: %+v", m)
	}
}

// A waiting edit the channel refuses for good is shown failed on its
// message with the reason; retry and discard take the message's id.
func TestOutboxEditRefusedIsFailedAndRetried(t *testing.T) {
	t.Parallel()
	dana, _ := twoMembers(t, 92)
	ctx := testCtx(t)
	m, err := dana.Send(ctx, "general", "to edit")
	if err != nil {
		t.Fatal(err)
	}
	// Another device of Dana's could not have queued this; a made-up
	// outbox item stands for a change refused when sent (its message is
	// not in the index of the group it names).
	dana.mu.Lock()
	it, err := dana.newChange(hexID{1}, OpEdit, m.ID, "into nowhere")
	if err == nil {
		err = dana.setOutbox(ctx, []outboxItem{it})
	}
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- dana.Run(ctx2) }()
	waitUntil(t, "the refused edit is marked failed", func() bool {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		return len(dana.outbox) == 1 && dana.outbox[0].Failed != ""
	})
	if err := dana.RetryOutbox(ctx, m.ID); err != nil {
		t.Fatalf("retry by the message's id: %v", err)
	}
	waitUntil(t, "failed again", func() bool {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		return len(dana.outbox) == 1 && dana.outbox[0].Failed != ""
	})
	if err := dana.DiscardOutbox(ctx, m.ID); err != nil {
		t.Fatalf("discard by the message's id: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := messageTexts(t, dana); len(got) != 1 || got[0] != "to edit" {
		t.Fatalf("after discarding: %q", got)
	}
}
