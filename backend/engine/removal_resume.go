package engine

import (
	"context"
	"errors"
	"fmt"

	"weald/backend/lifecycle"
)

// resumeRemovals continues every stored removal of this device that is
// still running: one a crash, a lost connection or a restart of the app
// stopped mid-way (spec/lifecycle.md "Removing a person", 6: "after a
// crash or reconnect the client resumes the same operation"). sync calls
// it last, so it runs on start (Run's first sync) and after every
// reconnect without anybody asking again. It runs the stored operation
// itself, so it never starts a second one; an operation waiting for
// reapproval stays paused until the admin approves it.
func (e *Engine) resumeRemovals(ctx context.Context) error {
	if !e.roster.IsAdmin(e.devID) {
		return nil
	}
	ops, err := e.Removals(ctx)
	if err != nil {
		return err
	}
	for _, op := range ops {
		if op.State != lifecycle.StateRunning {
			continue
		}
		err := lifecycle.Run(ctx, op, removalSteps{e})
		e.emit(Event{Kind: EventRoster})
		if err != nil && !errors.Is(err, lifecycle.ErrPaused) {
			return fmt.Errorf("resuming the removal of %s: %w", op.Name, err)
		}
	}
	return nil
}
