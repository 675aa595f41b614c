package engine

import (
	"slices"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/hostilerelay"
	"weald/backend/wire"
)

// TestAgentReadsHistoryWhoseKeysComeAfterItsWelcome (docs/protocol/agents.md
// "Reading"): the Add's committer publishes the member copy of the history
// keys in a SEND after its Welcome, so an agent can read the Welcome first.
// The relay here serves the agent #general only up to the Welcome (as an
// honest relay does when the agent syncs between the two SENDs; a fresh-clone
// run met exactly that). The agent joins and can read nothing from before
// it, and is not Ready (it could not post either); once the copy is
// served, its next sync, after a restart, reads the message sent before it
// was added, and it posts. Before the fix that message stayed
// unread for good: the content before the Welcome was read only once, at the
// Welcome.
func TestAgentReadsHistoryWhoseKeysComeAfterItsWelcome(t *testing.T) {
	t.Parallel()
	h := hostilerelay.Start(t)
	r := &testRelay{URL: h.URL, svc: h.Service}
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 200)
	opts := r.options(t, "bot", 201)
	bot, req, err := CreateAgent(ctx, opts, r.URL, dana.WorkspaceID(), "ci bot", []string{"general"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { bot.Close() }()
	if _, err := dana.ApproveAgent(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "before the bot"); err != nil {
		t.Fatal(err)
	}
	mustSync(t, bot, dana) // the bot's key packages; Dana's Add, its Welcome, then the member copy
	general := channelGroup(t, dana, "general")
	envs, err := dana.fetchAll(ctx, general, 0)
	if err != nil {
		t.Fatal(err)
	}
	welcome := slices.IndexFunc(envs, func(se wire.SeqEnvelope) bool { return se.Envelope.Kind == wire.KindMLSWelcome })
	if welcome < 0 || !slices.ContainsFunc(envs[welcome:], func(se wire.SeqEnvelope) bool { return se.Envelope.Kind == wire.KindHistoryPublish }) {
		t.Fatalf("the log of #general has no Welcome followed by a history.publish: %d envelopes", len(envs))
	}
	hideTail(h, general, envs[welcome].Seq)
	mustSync(t, bot)
	bot.mu.Lock()
	joined := bot.member(identity.GroupID(general))
	bot.mu.Unlock()
	if !joined {
		t.Fatal("the bot did not join #general from the Welcome")
	}
	if got := texts(t, bot, "general"); len(got) != 0 {
		t.Fatalf("without the history keys the bot read %q", got)
	}
	// Ready means it can post: not before the keys came (an app test once
	// posted as soon as the bot was Ready and met groups/no_key).
	if bot.Ready() {
		t.Fatal("the bot is Ready in #general without a history key to post under")
	}

	h.Withhold(nil)
	h.Cover(nil)
	bot.Close()
	if bot, err = Open(ctx, Options{Dir: opts.Dir, Rand: seededRand(202)}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, bot)
	if got := texts(t, bot, "general"); !slices.Equal(got, []string{"before the bot"}) {
		t.Fatalf("after the member copy the bot reads %q, want the message sent before it was added", got)
	}
	if !bot.Ready() {
		t.Fatal("the bot holds the keys and is not Ready")
	}
	if _, err := bot.Send(ctx, "general", "from the bot"); err != nil {
		t.Fatalf("the Ready bot posts: %v", err)
	}
	bot.mu.Lock()
	owed := bot.backfillDue() || bot.groups[identity.GroupID(general)].rec.Backfill != 0
	bot.mu.Unlock()
	if owed {
		t.Fatal("the bot still owes the backfill after reading it")
	}
}
