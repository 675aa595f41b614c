package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"weald/backend/store"
)

// Alert is a security alert: something a member, agent or the relay did
// that this client refused (a forged join, an invalid roster operation). It
// is kept in the local store, listed by Status and emitted as EventAlert
// once, when first met.
type Alert struct {
	Code    string    `json:"code"` // stable code, e.g. "join/forged", "roster/invalid_op"
	Message string    `json:"message"`
	Group   string    `json:"group"`           // the group it concerns (hex id), if any
	Op      *AlertOp  `json:"op,omitempty"`    // the roster operation it concerns, if any
	Actor   string    `json:"actor,omitempty"` // the principal that acted (e.g. "dev_…"), if known
	Time    time.Time `json:"time"`
}

// AlertOp names a roster operation: its position and head (hex).
type AlertOp struct {
	Index int    `json:"index"`
	Head  string `json:"head"`
}

// maxAlerts bounds the alerts kept (the oldest are dropped first).
const maxAlerts = 256

var alertsKey = store.RecordAlerts

func (a Alert) same(b Alert) bool {
	sameOp := (a.Op == nil) == (b.Op == nil) && (a.Op == nil || *a.Op == *b.Op)
	return a.Code == b.Code && a.Message == b.Message && a.Group == b.Group && a.Actor == b.Actor && sameOp
}

// raise records a, persists the list and emits EventAlert. An alert the
// same as one kept already (all but its time) is not raised
// again, so meeting the same invalid operation at every sync alerts once.
// A failure to persist keeps the alert in memory; it is never fatal to the
// caller, which must not hold a store transaction.
func (e *Engine) raise(ctx context.Context, a Alert) {
	for _, k := range e.alerts {
		if k.same(a) {
			return
		}
	}
	if a.Time.IsZero() {
		a.Time = e.now().UTC()
	}
	e.alerts = append(e.alerts, a)
	if n := len(e.alerts) - maxAlerts; n > 0 {
		e.alerts = append([]Alert(nil), e.alerts[n:]...)
	}
	if b, err := json.Marshal(e.alerts); err == nil {
		_ = e.db.update(ctx, func(t *txn) error { return t.putRecord(alertsKey, b) })
	}
	e.emit(Event{Kind: EventAlert, Code: a.Code, Message: a.Message, Channel: a.Group})
}

// loadAlerts reads the kept alerts.
func (e *Engine) loadAlerts(ctx context.Context) error {
	b, ok, err := e.db.record(ctx, alertsKey)
	if err != nil || !ok {
		return err
	}
	if err := json.Unmarshal(b, &e.alerts); err != nil {
		return fmt.Errorf("engine: stored alerts: %w", err)
	}
	return nil
}
