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
