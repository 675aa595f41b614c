package engine

import (
	"fmt"
	"testing"

	"weald/backend/roster"
	"weald/backend/wire"
)

// A self-joiner reads a channel's standing bundles with one FETCH_LATEST:
// the newest groupinfo.publish, history.publish and mls.commit, not the log.
func TestJoinBundlesReadsOnlyTheNewest(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 60)
	ch, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := dana.Send(ctx, "design", fmt.Sprintf("note %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	dana.mu.Lock()
	defer dana.mu.Unlock()
	gi, err := dana.resolveChannel(ch.Group)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dana.joinBundles(ctx, gi.Policy.Group, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.full || b.info == nil || b.history == nil {
		t.Fatalf("full %v, info %v, history %v: want both bundles from the newest envelopes", b.full, b.info != nil, b.history != nil)
	}
	if len(b.log) > len(latestKinds) {
		t.Fatalf("read %d envelopes, want at most one per kind", len(b.log))
	}
	for _, se := range b.log {
		if se.Envelope.Kind == wire.KindContent {
			t.Fatal("a content envelope was read")
		}
	}
	all, err := dana.allBundles(ctx, gi.Policy.Group)
	if err != nil {
		t.Fatal(err)
	}
	if !all.full || all.readTo != b.readTo || all.info.seq != b.info.seq || all.history.seq != b.history.seq {
		t.Fatalf("the whole log gives bundles at %d/%d (head %d), FETCH_LATEST at %d/%d (head %d)",
			all.info.seq, all.history.seq, all.readTo, b.info.seq, b.history.seq, b.readTo)
	}
	if len(all.log) <= len(b.log)+4 {
		t.Fatalf("the log has %d envelopes, fewer than the messages sent", len(all.log))
	}
}
