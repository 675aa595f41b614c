package engine

import (
	"context"
	"testing"
	"time"

	"weald/backend/roster"
)

// channelsNamed counts the live channels of e's roster named name.
func channelsNamed(e *Engine, name string) int {
	n := 0
	for _, g := range e.roster.Groups() {
		if !g.Deleted && g.Policy.Kind == roster.KindChannel && g.Name == name {
			n++
		}
	}
	return n
}

// unlistedGroups counts the groups e holds state of that no roster record
// names: what an abandoned creation leaves behind.
func unlistedGroups(e *Engine) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for id := range e.groups {
		if _, ok := e.roster.Group(id); !ok {
			n++
		}
	}
	return n
}

// A Create channel whose connection drops around its roster append, with
// the network down long enough that the client cannot learn the outcome,
// tells the user it failed; the user's retry, once the network is back,
// ends with exactly one channel of that name, the same group as the first
// attempt, readable by a member: never a second channel, never "taken"
// (docs/protocol/groups.md "Creating a channel").
func TestCreateChannelRetriedAfterALostAnswer(t *testing.T) {
	t.Parallel()
	r, dana, sam, _ := faultWorkspace(t, 74)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name  string
		after bool // the relay recorded the channel before the cut
	}{{"design", true}, {"ops", false}} {
		r.failNextAppend(tc.after, func(bool) { r.cut() })
		// The app gives a call 30 s; the network stays down past this one's.
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := dana.CreateChannel(cctx, tc.name, roster.AdmissionParent)
		cancel()
		if err == nil {
			t.Fatalf("#%s: created although the network went down around the append", tc.name)
		}
		r.mend()
		c, err := dana.CreateChannel(ctx, tc.name, roster.AdmissionParent)
		if err != nil {
			t.Fatalf("#%s: the retry: %v", tc.name, err)
		}
		if n := channelsNamed(dana, tc.name); n != 1 {
			t.Fatalf("#%s: %d channels of that name after the retry, want 1", tc.name, n)
		}
		if n := unlistedGroups(dana); n != 0 {
			t.Fatalf("#%s: the retry left %d unlisted groups behind (a second group drawn)", tc.name, n)
		}
		if _, err := sendRetrying(ctx, dana, c.Name, "first in "+tc.name); err != nil {
			t.Fatalf("#%s: send: %v", tc.name, err)
		}
		waitRead(t, sam, tc.name, "first in "+tc.name)
	}
	// Created twice on purpose, it is the same channel again.
	again, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent)
	if err != nil || channelsNamed(dana, "design") != 1 {
		t.Fatalf("creating #design again: %v, %d channels", err, channelsNamed(dana, "design"))
	}
	if again.Name != "design" {
		t.Fatalf("creating #design again returned %q", again.Name)
	}
	// A name another member's channel has, or this device's with another
	// admission, is taken: one sentence, nothing recorded.
	if _, err := sam.CreateChannel(ctx, "Design", roster.AdmissionParent); codeOf(err) != "channel/name_taken" {
		t.Fatalf("sam creating #Design beside dana's #design: %v, want channel/name_taken", err)
	}
	if _, err := dana.CreateChannel(ctx, "design", roster.AdmissionExplicit); codeOf(err) != "channel/name_taken" {
		t.Fatalf("a private #design beside the open one: %v, want channel/name_taken", err)
	}
	if n := channelsNamed(dana, "design") + channelsNamed(dana, "Design"); n != 1 {
		t.Fatalf("%d channels named design after the refusals", n)
	}
}
