package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"weald/backend/documents"
	"weald/backend/groups"
	"weald/backend/roster"
	"weald/backend/wire"
)

// twoMembers returns Dana (the creator) and Sam (joined through #general).
func twoMembers(t *testing.T, seed byte) (dana, sam *Engine) {
	t.Helper()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "creator", seed)
	opts.DisplayName, opts.Clock = "Dana", stepClock()
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	jopts := r.options(t, "sam", seed+1)
	jopts.DisplayName, jopts.Clock = "Sam", opts.Clock
	sam, err = Join(ctx, jopts, link)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sam.Close() })
	return dana, sam
}

// readOne returns the message with id of e's #general after a sync, and
// whether it is there.
func readOne(t *testing.T, e *Engine, id string) (Message, bool) {
	t.Helper()
	ctx := testCtx(t)
	if _, err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, "general", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

func found(t *testing.T, e *Engine, query string) int {
	t.Helper()
	rs, err := e.Search(testCtx(t), query, "general", 10)
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}

// Issue 17 item 10: the author edits and deletes a message; the other
// member reads the edit (marked edited, found by its new words only) and
// then no longer reads the message nor finds it; refusals leave it as it was.
func TestEditAndDeleteOwnMessage(t *testing.T) {
	t.Parallel()
	dana, sam := twoMembers(t, 80)
	ctx := testCtx(t)
	m, err := dana.Send(ctx, "general", "the helo world draft")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := readOne(t, sam, m.ID); !ok || got.Text != "the helo world draft" || got.Edited {
		t.Fatalf("sam reads %+v %v", got, ok)
	}

	e, err := dana.Edit(ctx, "general", m.ID, "the hello world release")
	if err != nil || e.Text != "the hello world release" || !e.Edited {
		t.Fatalf("edit: %+v %v", e, err)
	}
	got, ok := readOne(t, sam, m.ID)
	if !ok || got.Text != "the hello world release" || !got.Edited || got.AuthorName != "Dana" {
		t.Fatalf("sam reads the edit as %+v %v", got, ok)
	}
	if found(t, sam, "helo") != 0 || found(t, sam, "release") != 1 {
		t.Fatal("sam's search still finds the old words, or not the new ones")
	}

	// Refusals, each leaving the message as it was.
	for _, c := range []struct {
		name string
		err  error
		do   func() error
	}{
		{"sam edits dana's", documents.ErrNotAuthor, func() error { _, err := sam.Edit(ctx, "general", m.ID, "mine now"); return err }},
		{"sam deletes dana's", documents.ErrNotAuthor, func() error { return sam.Delete(ctx, "general", m.ID) }},
		{"empty text", documents.ErrBadText, func() error { _, err := dana.Edit(ctx, "general", m.ID, ""); return err }},
		{"no such message", documents.ErrNotFound, func() error { return dana.Delete(ctx, "general", "00112233445566778899aabbccddeeff") }},
		{"not an id", documents.ErrNotFound, func() error { return dana.Delete(ctx, "general", "nope") }},
	} {
		if err := c.do(); !errors.Is(err, c.err) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	if got, _ := readOne(t, dana, m.ID); got.Text != "the hello world release" {
		t.Fatalf("after the refusals dana reads %+v", got)
	}

	if err := dana.Delete(ctx, "general", m.ID); err != nil {
		t.Fatal(err)
	}
	for who, e := range map[string]*Engine{"dana": dana, "sam": sam} {
		if got, ok := readOne(t, e, m.ID); ok {
			t.Fatalf("%s still reads the deleted message %+v", who, got)
		}
		if found(t, e, "release") != 0 {
			t.Fatalf("%s still finds the deleted message", who)
		}
	}
	if _, err := dana.Edit(ctx, "general", m.ID, "back"); !errors.Is(err, documents.ErrNotFound) {
		t.Fatalf("edit after delete: %v", err)
	}
}

// forgeChange sends, as member e, a change to the message id of #general
// made by a copy of e's shard that believes e's device speaks for victim:
// what a modified client could send, past every local check.
func forgeChange(t *testing.T, e *Engine, victim wire.ID, id string, change func(*documents.Shard, documents.MessageID) ([]byte, error)) {
	t.Helper()
	ctx := testCtx(t)
	mid, err := documents.ParseMessageID(id)
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel("general")
	if err != nil {
		t.Fatal(err)
	}
	g := e.groups[gi.Policy.Group]
	sk, err := e.shardOf(ctx, gi.Policy.Group, mid)
	if err != nil {
		t.Fatal(err)
	}
	k, err := e.keyForShard(g, &gi.Policy, sk, true)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := e.shardFor(ctx, sk)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := saveShard(sh.s)
	if err != nil {
		t.Fatal(err)
	}
	o := e.docOptions()
	o.Principal = victim
	forged, err := documents.LoadShard(wire.ID(sk.group), sk.day, saved, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := change(forged, mid)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := (&documents.Payload{Docs: []documents.DocChanges{{Ref: documents.DocRef{Kind: documents.KindChat, Day: sk.day}, Changes: changes}}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.send(context.Background(), g, wire.KindContent, func(env *wire.Envelope) ([]byte, error) {
		c, err := groups.SealContent(e.rand, k.scheme, k.id, k.epoch, k.key, env.Group, wire.ID(e.devID), env.Ctr, pt)
		if err != nil {
			return nil, err
		}
		return c.Encode(), nil
	}); err != nil {
		t.Fatalf("the relay refused the forged change (it cannot read it): %v", err)
	}
}

// Attacker side: a member whose client skips the author check sends an edit
// and a delete of another member's message, sealed and signed like any
// change of the channel. The relay carries them; every receiver refuses
// them, so the message stays as its author wrote it.
func TestMemberCannotEditOrDeleteAnothersMessage(t *testing.T) {
	t.Parallel()
	dana, sam := twoMembers(t, 90)
	ctx := testCtx(t)
	m, err := dana.Send(ctx, "general", "the budget is 100")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := readOne(t, sam, m.ID); !ok {
		t.Fatal("sam does not read dana's message")
	}
	victim := wire.ID(dana.meta.User)
	forgeChange(t, sam, victim, m.ID, func(s *documents.Shard, id documents.MessageID) ([]byte, error) {
		return s.Edit(id, "the budget is 900")
	})
	forgeChange(t, sam, victim, m.ID, func(s *documents.Shard, id documents.MessageID) ([]byte, error) {
		return s.Delete(id)
	})
	got, ok := readOne(t, dana, m.ID)
	if !ok || got.Text != "the budget is 100" || got.Edited {
		t.Fatalf("after the forged edit and delete dana reads %+v (present %v)", got, ok)
	}
	// Dana's own edit still applies afterwards: the refused changes broke nothing.
	if _, err := dana.Edit(ctx, "general", m.ID, "the budget is 120"); err != nil {
		t.Fatal(err)
	}
	if got, _ := readOne(t, dana, m.ID); got.Text != "the budget is 120" {
		t.Fatalf("dana's own edit: %+v", got)
	}
}
