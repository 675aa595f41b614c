package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// A transaction whose request is cancelled (its client hung up) either
// commits or fails saying it was cancelled, and the store holds its writes
// exactly when it said it committed. Before, a cancellation landing while
// COMMIT ran failed the Update although PostgreSQL had committed: the
// store held 196 of 200 writes whose Update had failed, and the relay
// skipped the pushes that follow a write. SQLite answered "sql:
// transaction has already been committed or rolled back". The client's
// store keeps the same promise (backend/store TestCancelledCommitSaysSo).
func TestCancelledCommitSaysSo(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		outcomes := map[string]int{}
		for i := 0; i < 200; i++ {
			ctx, cancel := context.WithCancel(context.Background())
			err := st.Update(ctx, func(tx Tx) error {
				if i%2 == 0 {
					go cancel() // lands anywhere from here to inside Commit
				}
				if err := tx.CreateWorkspace(ctx, tid(fmt.Sprintf("cancel %d", i)), make([]byte, 32), 1); err != nil {
					return err
				}
				if i%2 == 1 {
					go cancel() // after the last statement
				}
				return nil
			})
			switch {
			case err == nil:
				outcomes["committed"]++
			case errors.Is(err, context.Canceled):
				outcomes["cancelled"]++
			default:
				t.Fatalf("run %d: %v (outcomes so far %v)", i, err, outcomes)
			}
			cancel()
		}
		var held []string
		if err := st.View(ctxT(t), func(tx Tx) error {
			ids, err := tx.ListWorkspaces(ctxT(t))
			for _, id := range ids {
				held = append(held, string(id[:]))
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(held) != outcomes["committed"] {
			t.Fatalf("the store holds %d workspaces, %d commits succeeded (%v)", len(held), outcomes["committed"], outcomes)
		}
		t.Logf("outcomes: %v", outcomes)
	})
}
