package engine

import (
	"testing"
)

func TestAlertsPersistAndAreRaisedOnce(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	opts := r.options(t, "dana", 60)
	e, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	e.opts.OnEvent = func(ev Event) {
		if ev.Kind == EventAlert {
			events = append(events, ev)
		}
	}
	a := Alert{Code: "roster/invalid_op", Message: "operation 7 is not valid", Op: &AlertOp{Index: 7, Head: "ab"}, Actor: "dev_01"}
	e.raise(ctx, a)
	e.raise(ctx, a) // the same operation met again: not a second alert
	b := a
	b.Op = &AlertOp{Index: 8, Head: "cd"}
	e.raise(ctx, b)
	if len(events) != 2 || events[0].Code != "roster/invalid_op" {
		t.Fatalf("events %+v", events)
	}
	e.Close()
	e, err = Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := e.Status().Alerts
	if len(got) != 2 || got[0].Op == nil || got[0].Op.Index != 7 || got[1].Op.Index != 8 || got[0].Actor != "dev_01" || got[0].Time.IsZero() {
		t.Fatalf("alerts after reopening: %+v", got)
	}
	e.raise(ctx, a) // still known after reopening
	if n := len(e.Status().Alerts); n != 2 {
		t.Fatalf("%d alerts after raising a kept one again", n)
	}
	for i := 0; i < maxAlerts+5; i++ {
		c := a
		c.Op = &AlertOp{Index: 100 + i}
		e.raise(ctx, c)
	}
	if got := e.Status().Alerts; len(got) != maxAlerts || got[len(got)-1].Op.Index != 100+maxAlerts+4 {
		t.Fatalf("kept %d alerts, last %+v", len(got), got[len(got)-1])
	}
}
