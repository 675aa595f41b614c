package engine

import (
	"fmt"
	"strings"
	"testing"

	"weald/backend/roster"
)

// Issue 14: an explicit channel is compacted like any other. Lee is added
// before the compaction but syncs only after it, so his Welcome and the
// content since his add lie below the drop: the relay keeps the Welcome and
// the commits, and he reads every message since his add from the snapshot,
// with "history verified from". Kim, added after the compaction, joins and
// reads what follows (a closed channel shows nobody what came before their
// add). The workspace root is still refused.
func TestCompactExplicitChannel(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 230)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	lee := joinWith(t, r, invite(t, dana), "lee", 231)
	kim := joinWith(t, r, invite(t, dana), "kim", 232)
	for _, e := range []*Engine{lee, kim, dana} {
		if _, err := e.Sync(ctx); err != nil { // key packages
			t.Fatal(err)
		}
	}
	if _, err := dana.Send(ctx, "secret", "before lee"); err != nil {
		t.Fatal(err)
	}
	if res, err := dana.AddPeople(ctx, "secret", []string{lee.meta.User.hex()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("add lee: %+v, %v", res, err)
	}
	var want []string
	for i := 0; i < 30; i++ {
		want = append(want, fmt.Sprintf("s%02d", i))
		if _, err := dana.Send(ctx, "secret", want[i]); err != nil {
			t.Fatal(err)
		}
	}
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := dana.Compact(ctx, "secret", true)
	if err != nil {
		t.Fatal(err)
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Dropped || rep.Envelopes == 0 || after.LogBytes >= before.LogBytes {
		t.Fatalf("compact-now of #secret: %+v; relay %d → %d bytes", rep, before.LogBytes, after.LogBytes)
	}
	t.Logf("#secret compacted: %d envelopes (%d bytes) deleted; relay %d → %d bytes", rep.Envelopes, rep.Bytes, before.LogBytes, after.LogBytes)

	readsOnly(t, lee, "secret", want...)
	info, err := lee.Retention("secret")
	if err != nil || info.VerifiedFrom.IsZero() {
		t.Fatalf("lee's retention view: %+v, %v", info, err)
	}

	if res, err := dana.AddPeople(ctx, "secret", []string{kim.meta.User.hex()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("add kim: %+v, %v", res, err)
	}
	if _, err := dana.Send(ctx, "secret", "after kim"); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, kim, "secret", "after kim")
	readsOnly(t, lee, "secret", append(want, "after kim")...)
	readsOnly(t, dana, "secret", append([]string{"before lee"}, append(want, "after kim")...)...)

	if _, err := dana.Compact(ctx, hexID(roster.RootGroupID(dana.wsID())).hex(), true); codeOf(err) != "retention/unsupported_group" {
		t.Fatalf("compacting the root: %v", err)
	}
}

// Compact-now of every channel by an admin added late to a private
// channel (issue 14): it holds no key of the channel's first epoch, so it
// cannot checkpoint it. Before, CompactAll failed there with
// retention/not_full_history and compacted nothing after it; now the
// channel is reported as such and the others are compacted.
func TestCompactAllSkipsAChannelWithoutItsFullHistory(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 233)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	lee := joinWith(t, r, invite(t, dana), "lee", 234)
	if _, err := lee.Sync(ctx); err != nil { // key packages
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "secret", "before lee"); err != nil {
		t.Fatal(err)
	}
	if res, err := dana.AddPeople(ctx, "secret", []string{lee.meta.User.hex()}); err != nil || len(res.Added) != 1 {
		t.Fatalf("add lee: %+v, %v", res, err)
	}
	if err := dana.Promote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := dana.Send(ctx, "general", fmt.Sprintf("g%02d", i)); err != nil {
			t.Fatal(err)
		}
		if _, err := dana.Send(ctx, "secret", fmt.Sprintf("s%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	reps, err := lee.CompactAll(ctx, true)
	if err != nil {
		t.Fatalf("lee's compact-now of every channel: %v", err)
	}
	got := map[string]CompactReport{}
	for _, rep := range reps {
		got[rep.Channel] = rep
		t.Logf("#%s: %s%s", rep.Channel, rep.Statement, rep.NotDue)
	}
	if rep := got["secret"]; rep.Pending != "" || rep.Dropped || !strings.Contains(rep.NotDue, "whole history") {
		t.Fatalf("#secret, whose first epoch lee never held: %+v", rep)
	}
	if rep := got["general"]; rep.Pending == "" {
		t.Fatalf("#general was not put to dana: %+v", rep)
	}
}
