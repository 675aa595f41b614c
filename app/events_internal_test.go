package app

import (
	"fmt"
	"testing"

	"weald/backend/engine"
)

// When the UI is behind, ordinary events that do not fit are dropped (the
// next one refreshes the view), but a security alert is kept: nothing else
// would bring back its event and its notification.
func TestAnAlertIsNotDroppedWhenTheUIIsBehind(t *testing.T) {
	t.Parallel()
	r := &wsRun{events: make(chan engine.Event, wsEventBuffer), alerted: make(chan struct{}, 1)}
	for i := range wsEventBuffer + 100 {
		r.onEvent(engine.Event{Kind: engine.EventProgress, Task: "sync", Done: i, Total: 1000})
	}
	for i := range 3 {
		r.onEvent(engine.Event{Kind: engine.EventAlert, Code: "roster/unexpected_change", Message: fmt.Sprintf("change %d", i)})
	}
	if n := len(r.events); n != wsEventBuffer {
		t.Fatalf("%d events queued, want the buffer's %d", n, wsEventBuffer)
	}
	select {
	case <-r.alerted:
	default:
		t.Fatal("no wake-up for the queued alerts")
	}
	got := r.takeAlerts()
	if len(got) != 3 || got[0].Message != "change 0" || got[2].Message != "change 2" {
		t.Fatalf("alerts taken = %+v, want the three in order", got)
	}
	if again := r.takeAlerts(); len(again) != 0 {
		t.Fatalf("alerts taken twice: %+v", again)
	}
}

// The workspace's connection and problem never depend on the queue: with
// the UI a whole buffer behind, going offline, a problem and its end still
// reach the state the sidebar shows (describe reads it), in the engine's
// order, and one wake-up says so. Before, these events were queued like
// any other and dropped with them: the sidebar kept "online" and an old
// problem.
func TestConnectionAndProblemAreKeptWhenTheUIIsBehind(t *testing.T) {
	t.Parallel()
	r := &wsRun{events: make(chan engine.Event, wsEventBuffer), alerted: make(chan struct{}, 1), stateChanged: make(chan struct{}, 1)}
	r.onEvent(engine.Event{Kind: engine.EventConnection, Connected: true})
	for i := range wsEventBuffer + 10 {
		r.onEvent(engine.Event{Kind: engine.EventMessages, Channel: fmt.Sprint(i)})
	}
	state := func() (bool, *Error) { r.mu.Lock(); defer r.mu.Unlock(); return r.connected, r.problem }
	r.onEvent(engine.Event{Kind: engine.EventConnection, Connected: false})
	if up, _ := state(); up {
		t.Fatal("still connected after the engine said the connection dropped")
	}
	r.onEvent(engine.Event{Kind: engine.EventProblem, Code: "relay/unreachable", Message: "The relay did not answer."})
	if _, p := state(); p == nil || p.Code != "relay/unreachable" {
		t.Fatalf("problem = %+v, want relay/unreachable", p)
	}
	r.onEvent(engine.Event{Kind: engine.EventConnection, Connected: true})
	if up, p := state(); !up || p != nil {
		t.Fatalf("after reconnecting: connected %v, problem %+v", up, p)
	}
	r.onEvent(engine.Event{Kind: engine.EventProblem, Code: "auth/revoked", Message: "This device was removed."})
	r.onEvent(engine.Event{Kind: engine.EventReady})
	if _, p := state(); p != nil {
		t.Fatalf("problem after ready: %+v", p)
	}
	select {
	case <-r.stateChanged:
	default:
		t.Fatal("no wake-up for the changed state")
	}
	if n := len(r.events); n != wsEventBuffer {
		t.Fatalf("%d events queued, want the buffer's %d (state events take no place in it)", n, wsEventBuffer)
	}
}
