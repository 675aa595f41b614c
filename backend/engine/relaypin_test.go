package engine

import (
	"testing"

	"weald/backend/errcode"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// A workspace pins the relay id its relay presented on first contact; a
// relay at the same address presenting another is refused before this
// device signs anything for it (relay/changed, docs/security.md section
// 7), and the pin survives reopening the workspace.
func TestRelayIDIsPinnedOnFirstContact(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	e := createWorkspace(t, r, 61)
	want, err := r.svc.RelayID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	pinned := wire.ID(e.meta.RelayID)
	e.mu.Unlock()
	if pinned != want {
		t.Fatalf("pinned relay id %x, want the relay's %x", pinned, want)
	}
	opts := e.opts
	e.Close()
	if e, err = Open(ctx, opts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if got := wire.ID(e.meta.RelayID); got != want {
		t.Fatalf("pin after reopening: %x, want %x", got, want)
	}

	// Another relay answers at the workspace's address: here, the same
	// relay with the pin changed under it, which is the same comparison.
	e.mu.Lock()
	e.meta.RelayID = hexID{0xBB}
	if e.client != nil {
		e.client.Close()
		e.client = nil
	}
	e.mu.Unlock()
	_, err = e.Sync(ctx)
	if code, _ := errcode.Of(err); code != relayclient.CodeRelayChanged {
		t.Fatalf("sync against a relay with another id: %v, want %s", err, relayclient.CodeRelayChanged)
	}
}
