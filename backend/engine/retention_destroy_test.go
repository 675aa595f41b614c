package engine

import (
	"encoding/hex"
	"errors"
	"testing"

	"weald/backend/roster"
	"weald/backend/wire"
)

// Issue 14: compact-now in a workspace with two admins. The relay drops
// under a RetentionDestruction only with both admins' signatures, so the
// requesting admin's compact-now deletes nothing and puts the destruction
// to the other admin; one admin alone cannot get a drop through, nor with
// an approval copied from another destruction or altered after signing.
// The second admin's approval deletes the history, and every message stays
// readable.
func TestTwoAdminsApproveCompactNow(t *testing.T) {
	t.Parallel()
	dana, lee := twoAdmins(t, 40, 4, 210)
	ctx := testCtx(t)
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dropped || rep.Pending == "" || rep.Checkpoint == 0 {
		t.Fatalf("one of two admins compacted now: %+v", rep)
	}
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.ApproveRetention(ctx, rep.Pending); err == nil {
		t.Fatal("the proposer approved its own destruction")
	}

	// The attacker side: dana alone, at the relay.
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	g := dana.groups[gi.Policy.Group]
	cp := *g.rec.Retention.trustedAt(rep.Checkpoint)
	var proposed wire.RetentionDestruction
	for _, p := range dana.roster.PendingRetentions() {
		if p.Destruction != nil {
			proposed = *p.Destruction
		}
	}
	dana.mu.Unlock()
	drop := func(d wire.RetentionDestruction) error {
		dana.mu.Lock()
		defer dana.mu.Unlock()
		_, err := dana.dropBelow(ctx, g, cp, &d)
		return err
	}
	alone := proposed
	alone.Approve(dana.edKey)
	other := proposed
	other.NotAfter-- // lee's approval of another destruction, replayed onto this one
	other.Approve(lee.edKey)
	replayed := alone
	replayed.Approvals = append(replayed.Approvals, other.Approvals[0])
	altered := proposed
	altered.Approve(dana.edKey)
	altered.Approve(lee.edKey)
	altered.NotAfter += 3600 // both signatures cover the shorter window
	for name, d := range map[string]wire.RetentionDestruction{"dana alone": alone, "a replayed approval": replayed, "an altered destruction": altered} {
		if err := drop(d); codeOf(err) != string(wire.CodeDropBadDestruction) {
			t.Fatalf("%s: %v, want %s", name, err, wire.CodeDropBadDestruction)
		}
	}
	// In the roster: lee's approval over other bytes is refused.
	lee.mu.Lock()
	err = lee.appendRoster(ctx, func() (roster.Body, error) {
		var head roster.Head
		b, _ := hex.DecodeString(rep.Pending)
		copy(head[:], b)
		return &roster.RetentionApprove{Proposal: head, Relay: &other.Approvals[0]}, nil
	})
	lee.mu.Unlock()
	if !errors.Is(err, roster.ErrBadRetention) {
		t.Fatalf("a replayed approval in the roster: %v", err)
	}
	after, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Envelopes != before.Envelopes {
		t.Fatalf("refused drops deleted: %d → %d envelopes", before.Envelopes, after.Envelopes)
	}

	// lee sees the proposal and approves it: the drop goes through.
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ps := lee.PendingRetentions()
	if len(ps) != 1 || !ps[0].Destroy || !ps[0].Approvable || ps[0].CheckpointAt.IsZero() || ps[0].Channel != "general" {
		t.Fatalf("lee's pending list: %+v", ps)
	}
	ch, err := lee.ApproveRetention(ctx, ps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Active {
		t.Fatalf("the second admin's approval: %+v", ch)
	}
	done, err := lee.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if done.Envelopes >= after.Envelopes || done.LogBytes >= after.LogBytes {
		t.Fatalf("the approved compact-now deleted nothing: %d → %d envelopes (%s)", after.Envelopes, done.Envelopes, ch.Note)
	}
	t.Logf("approved compact-now: %d → %d envelopes, %d → %d bytes", after.Envelopes, done.Envelopes, after.LogBytes, done.LogBytes)
	if len(lee.PendingRetentions()) != 0 {
		t.Fatal("still pending after approval")
	}
	// dana's next sync finds it done and sends nothing more.
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range dana.Status().Alerts {
		if a.Code == "retention/steward" {
			t.Fatalf("alert after the approved drop: %+v", a)
		}
	}
	for _, e := range []*Engine{dana, lee} {
		if n := countPrefixed(t, e, "general", "m0"); n != 40 {
			t.Fatalf("%d of 40 messages readable after the drop", n)
		}
	}
}
