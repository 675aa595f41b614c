package engine

import (
	"strconv"
	"testing"

	"weald/backend/identity"
	"weald/backend/mls"
)

// A channel that goes through more epochs between two checkpoints than a
// member keeps epoch seeds for (64: people and agents joining and leaving)
// still compacts: the next checkpoint's transition is signed by the chain
// head's key, so the head's seed is kept however old it is. Before, it was
// pruned with the rest, and every later compaction failed with
// retention/no_key for good.
func TestCompactionAfterMoreEpochsThanSeedsKept(t *testing.T) {
	t.Parallel()
	_, dana, _ := compactionPair(t, 176)
	ctx := testCtx(t)
	first, err := dana.Compact(ctx, "general", true)
	if err != nil || first.Checkpoint == 0 {
		t.Fatalf("first compaction: %+v, %v", first, err)
	}
	general := identity.GroupID(mustHex(t, chanID(t, dana, "general")))
	dana.mu.Lock()
	if err := dana.connect(ctx); err != nil {
		dana.mu.Unlock()
		t.Fatal(err)
	}
	g := dana.groups[general]
	head := g.rec.Retention.Chain.Head().Epoch
	for i := 0; i < 70 && err == nil; i++ {
		err = dana.commit(ctx, g, mls.CommitOptions{})
	}
	epoch, seeds := g.mls.Epoch(), len(g.rec.Retention.Seeds)
	_, kept := g.rec.Retention.Seeds[strconv.FormatUint(head, 10)]
	dana.mu.Unlock()
	if err != nil || epoch < head+70 {
		t.Fatalf("70 commits from epoch %d: at epoch %d, %v", head, epoch, err)
	}
	if !kept || seeds > 66 {
		t.Fatalf("at epoch %d: the head's seed (epoch %d) kept: %v; %d seeds kept", epoch, head, kept, seeds)
	}
	second, err := dana.Compact(ctx, "general", true)
	if err != nil || second.Checkpoint <= first.Checkpoint {
		t.Fatalf("compaction 70 epochs later: %+v, %v", second, err)
	}
	dana.mu.Lock()
	now := g.rec.Retention.Chain.Head().Epoch
	dana.mu.Unlock()
	if now != epoch {
		t.Fatalf("the chain's head is at epoch %d, the group at %d", now, epoch)
	}
}
