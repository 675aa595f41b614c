package engine

import (
	"errors"
	"testing"
	"time"

	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// A root commit whose committer did not re-seal anything (a crash right
// after it) leaves the invite bundle and the channel bundles on an old root
// epoch; the next sync of any member repairs them, and the invitee gets in.
func TestStaleBundlesRepairedOnSync(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 95)
	if _, err := dana.Send(ctx, "general", "before the crash"); err != nil {
		t.Fatal(err)
	}
	link, err := dana.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// A bare root commit: no re-sealing, no invite bundle refresh.
	dana.mu.Lock()
	root := dana.groups[dana.roster.RootGroup()]
	base := root.mls.Epoch()
	sc, err := root.mls.Commit(mls.CommitOptions{ForcePath: true})
	if err != nil {
		t.Fatal(err)
	}
	root.pending = &pendingCommit{staged: sc, msg: sc.Message, base: base}
	if _, err := dana.sendCT(ctx, root, wire.KindMLSCommit, sc.Message); err != nil {
		t.Fatal(err)
	}
	if err := dana.catchUp(ctx, root); err != nil || root.mls.Epoch() != base+1 {
		t.Fatalf("bare commit: epoch %d, %v", root.mls.Epoch(), err)
	}
	dana.mu.Unlock()

	// The invite bundle is stale: redemption cannot complete yet.
	sam, err := Join(ctx, r.options(t, "sam", 96), link)
	if !errors.Is(err, ErrStaleBundle) {
		t.Fatalf("redemption against a stale bundle: %v", err)
	}
	t.Logf("before repair: %v", err)
	defer sam.Close()

	if _, err := dana.Sync(ctx); err != nil { // repairs
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil { // resumes the redemption
		t.Fatal(err)
	}
	if !sam.Ready() {
		t.Fatal("sam not ready after the repair")
	}
	ms, err := sam.Messages(ctx, "general", 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("sam reads %+v %v", ms, err)
	}
}
