package engine

import (
	"fmt"
	"strings"
	"testing"

	"weald/backend/relay"
)

// prefixed returns the texts of e's messages in channel that start with
// prefix, in the order Messages reads them.
func prefixed(t *testing.T, e *Engine, channel, prefix string) []string {
	t.Helper()
	ms, err := e.Messages(testCtx(t), channel, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if strings.HasPrefix(m.Text, prefix) {
			out = append(out, m.Text)
		}
	}
	return out
}

// SendMany posts each text as a message of its own, in batches of
// sendManyBatch envelopes, at rising times: the sender and a member read
// them in the order given, and the relay holds one envelope per message.
func TestSendManyPostsInOrder(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 230)
	sam := joinWith(t, r, invite(t, dana), "sam", 231)
	ctx := testCtx(t)
	texts := make([]string, 2*sendManyBatch+3)
	for i := range texts {
		texts[i] = fmt.Sprintf("b%03d", i)
	}
	if _, err := dana.Sync(ctx); err != nil { // what dana sends on sam's join goes out first
		t.Fatal(err)
	}
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := dana.SendMany(ctx, "general", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != len(texts) {
		t.Fatalf("SendMany returned %d messages for %d texts", len(ms), len(texts))
	}
	for i, m := range ms {
		if m.Text != texts[i] || (i > 0 && !m.Time.After(ms[i-1].Time)) {
			t.Fatalf("message %d: %q at %v (the one before at %v)", i, m.Text, m.Time, ms[max(i-1, 0)].Time)
		}
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Envelopes != before.Envelopes+uint64(len(texts)) {
		t.Fatalf("the relay holds %d envelopes, %d before %d messages", after.Envelopes, before.Envelopes, len(texts))
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, sam} {
		if got := prefixed(t, e, "general", "b"); strings.Join(got, " ") != strings.Join(texts, " ") {
			t.Fatalf("%s reads %v", e.DeviceID().ShortString(), got)
		}
	}
	// A single send continues the chain after the batches.
	if _, err := dana.Send(ctx, "general", "after the batches"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	readsLast(t, sam, "general", "after the batches")
	if _, err := dana.SendMany(ctx, "no-such-channel", texts[:1]); err == nil {
		t.Fatal("SendMany to a channel that does not exist went through")
	}
}

// A batch the relay refuses (more envelopes than it takes in one request)
// leaves no message behind, at the sender or the relay, and the sends
// after it go out.
func TestSendManyRefusedBatchLeavesNothing(t *testing.T) {
	t.Parallel()
	r := startRelayWith(t, relay.Config{MaxBatch: 4})
	dana := createWorkspace(t, r, 232)
	ctx := testCtx(t)
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := dana.SendMany(ctx, "general", []string{"r1", "r2", "r3", "r4", "r5"}); codeOf(err) != "limit/batch_size" || len(ms) != 0 {
		t.Fatalf("a batch of 5 on a relay taking 4: %d sent, %v", len(ms), err)
	}
	if got := prefixed(t, dana, "general", "r"); len(got) != 0 {
		t.Fatalf("the refused batch left %v", got)
	}
	if after, err := dana.Storage(ctx); err != nil || after.Envelopes != before.Envelopes {
		t.Fatalf("the relay holds %d envelopes, %d before the refused batch (%v)", after.Envelopes, before.Envelopes, err)
	}
	if _, err := dana.SendMany(ctx, "general", []string{"s1", "s2", "s3"}); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "s4"); err != nil {
		t.Fatal(err)
	}
	if got := prefixed(t, dana, "general", ""); strings.Join(got[len(got)-4:], " ") != "s1 s2 s3 s4" {
		t.Fatalf("after the refusal dana reads %v", got)
	}
}
