package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// slowSet is a backend whose AccessSet read outlives the server's context:
// it tells entered, waits for the context to end, then for release.
type slowSet struct {
	*fakeBackend
	entered chan struct{}
	release chan struct{}
}

func (b *slowSet) AccessSet(ctx context.Context, _ wire.ID) (wire.AccessSet, error) {
	b.entered <- struct{}{}
	<-ctx.Done()
	<-b.release
	return wire.AccessSet{}, errors.New("read after the server closed")
}

// Close waits for the work a change notification started (here the access
// set recheck it runs on a goroutine of its own), so the relay process
// closes its database only after the last request to it ended. Before,
// Close returned at once and the recheck read a closed database.
func TestCloseWaitsForBackgroundWork(t *testing.T) {
	t.Parallel()
	ws := wire.ID{1, 2, 3}
	b := &slowSet{fakeBackend: newFake(ws), entered: make(chan struct{}, 1), release: make(chan struct{})}
	s := New(Config{Backend: b, Limits: Limits{RecheckInterval: time.Hour}})
	s.applyChange(Change{Kind: store.ChangeAccessSet, Workspace: ws, Version: 2})
	select {
	case <-b.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the access set change started no recheck")
	}
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while the recheck was still reading the backend")
	case <-time.After(300 * time.Millisecond):
	}
	close(b.release)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after the recheck ended")
	}
	// After Close a notification starts nothing.
	s.applyChange(Change{Kind: store.ChangeAccessSet, Workspace: ws, Version: 3})
	select {
	case <-b.entered:
		t.Fatal("a change after Close started a recheck")
	case <-time.After(300 * time.Millisecond):
	}
}
