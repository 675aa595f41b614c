package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/mls/framing"
	"weald/backend/roster"
	"weald/backend/wire"
)

// A self-join's SEND whose answer is lost, and which the relay writes only
// after the joiner looked for it in the log, once made the joiner start
// over: its next commit lost to its own first one, which had won, and
// nobody republished the GroupInfo of that epoch (its committer believed it
// had lost), so the channel stayed unreadable. The joiner now settles a
// lost answer by sending the same envelopes again.
func TestJoinSettlesASendWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	r, dana, sam, in := faultWorkspace(t, 73)
	ctx := testCtx(t)
	joinCommit := newChannelJoins(dana, sam.devID)
	// Held until sam has looked: the next time sam reads a channel's
	// bundles (a join started over), or sam's next SEND into the channel.
	landed := r.holdNextSend(joinCommit, func() {
		in.arm(JoinStepBundles, func() error { r.landHeld(); return nil })
	})
	if err := createRetrying(ctx, dana, "late"); err != nil {
		t.Fatal(err)
	}
	if _, err := sendRetrying(ctx, dana, "late", "first in late"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "late", "first in late")
	checkOneJoin(t, dana, "late", joinCommit, landed)
}

// The same lost answer, but the joiner's process stops before it settles
// the SEND (the app quit): the join was persisted before the SEND, so the
// restarted process settles it instead of starting over and losing to its
// own first commit.
func TestJoinSettlesAfterARestart(t *testing.T) {
	t.Parallel()
	r := startFaultRelay(t)
	ctx := testCtx(t)
	dana, err := CreateWorkspace(ctx, r.options(t, "dana", 74), "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	in := &injector{}
	opts := r.options(t, "sam", 75)
	opts.Crash = in.crash
	sam, err := Join(ctx, opts, link)
	if err != nil {
		t.Fatal(err)
	}
	stopSam := runUntilStopped(t, sam)
	joinCommit := newChannelJoins(dana, sam.devID)
	caught := make(chan struct{})
	landed := r.holdNextSend(joinCommit, func() {
		in.arm(JoinStepBundles, func() error { r.landHeld(); return nil })
		close(caught)
	})
	if err := createRetrying(ctx, dana, "late"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-caught:
	case <-ctx.Done():
		t.Fatal("sam never sent its join of #late")
	}
	stopSam()
	if sam, err = Open(ctx, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(runUntilStopped(t, sam))
	if _, err := sendRetrying(ctx, dana, "late", "first in late"); err != nil {
		t.Fatal(err)
	}
	waitRead(t, sam, "late", "first in late")
	checkOneJoin(t, dana, "late", joinCommit, landed)
}

// runUntilStopped runs e; the function returned stops it and closes e.
func runUntilStopped(t *testing.T, e *Engine) func() {
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(runCtx) }()
	return func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
		e.Close()
	}
}

// newChannelJoins matches a commit by device dev into a group dana's
// roster does not hold yet: its join of a channel created after this call.
func newChannelJoins(dana *Engine, dev identity.DeviceID) func(envs []wire.Envelope) bool {
	known := map[wire.ID]bool{}
	dana.mu.Lock()
	known[wire.ID(dana.roster.RootGroup())] = true
	for _, gi := range dana.roster.Groups() {
		known[wire.ID(gi.Policy.Group)] = true
	}
	dana.mu.Unlock()
	return func(envs []wire.Envelope) bool {
		return envs[0].Author == wire.ID(dev) && envs[0].Kind == wire.KindMLSCommit && !known[envs[0].Group]
	}
}

// checkOneJoin checks that the held SEND was written and that channel's log
// holds exactly one commit joinCommit matches.
func checkOneJoin(t *testing.T, dana *Engine, channel string, joinCommit func([]wire.Envelope) bool, landed chan struct{}) {
	t.Helper()
	select {
	case <-landed:
	default:
		t.Fatal("the held SEND was never written")
	}
	var seen []string
	n := countCommits(t, dana, channel, func(env wire.Envelope) bool {
		if !joinCommit([]wire.Envelope{env}) {
			return false
		}
		m, err := framing.DecodeMLSMessage(env.CT)
		if err == nil && m.Public != nil {
			seen = append(seen, fmt.Sprintf("ctr %d: epoch %d, sender %+v", env.Ctr, m.Public.Content.Epoch, m.Public.Content.Sender))
		}
		return true
	})
	if n != 1 {
		t.Errorf("%d commits of the joiner in #%s (%s); one join is one commit", n, channel, strings.Join(seen, "; "))
	}
}

// countCommits counts the envelopes of channel's log that match.
func countCommits(t *testing.T, e *Engine, channel string, match func(wire.Envelope) bool) int {
	t.Helper()
	ctx := testCtx(t)
	e.mu.Lock()
	gi, err := e.resolveChannel(channel)
	var envs []wire.SeqEnvelope
	if err == nil {
		envs, err = e.fetchAll(ctx, wire.ID(gi.Policy.Group), 0)
	}
	e.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, se := range envs {
		if match(se.Envelope) {
			n++
		}
	}
	return n
}
