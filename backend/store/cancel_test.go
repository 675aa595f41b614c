package store

import (
	"context"
	"errors"
	"testing"
)

// A transaction whose context is cancelled while it commits either
// commits or fails saying it was cancelled, and the store holds its
// writes exactly when it committed. database/sql alone answers "sql:
// transaction has already been committed or rolled back" when the
// cancellation lands inside Commit; the engine retries a cancelled sync and
// stops on any other error, so that answer ended a member's sync loop for
// good when the relay went away in the middle of a sync (fresh-clone run
// ci50, TestEditAndDeleteWaitInTheOutboxOffline).
func TestCancelledCommitSaysSo(t *testing.T) {
	s := openTest(t)
	outcomes := map[string]int{}
	for i := 0; i < 300; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		err := s.Update(ctx, func(tx *Tx) error {
			if err := tx.PutStorageSample(int64(i), []byte("sample")); err != nil {
				return err
			}
			go cancel() // lands anywhere from here to inside Commit
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
	var held int
	if err := s.View(context.Background(), func(tx *Tx) error {
		rows, err := tx.StorageSamples(1000)
		held = len(rows)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if held != outcomes["committed"] {
		t.Fatalf("the store holds %d samples, %d commits succeeded (%v)", held, outcomes["committed"], outcomes)
	}
	t.Logf("outcomes: %v", outcomes)
}
