package engine

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"slices"
	"strconv"
	"testing"

	"weald/backend/health"
	"weald/backend/retention"
	"weald/backend/wire"
)

// Issue 14, from the attacker's side (docs/protocol/retention.md "A
// fabricated successor"): sam, a member of the chain key's epoch, publishes
// its successor to a key he made up before any honest member extends the
// chain, and is removed. Nothing contests it, so the chain does not freeze
// and its head is a key no member derives. dana's compaction finds that
// out, contests it (retention/contested) and the chain freezes; dana's
// resolve keeps the line she derives and discards sam's key: a checkpoint
// or a drop signed with it is refused by the relay, compaction deletes
// again and the health row is OK.
func TestContestForgedSuccessor(t *testing.T) {
	t.Parallel()
	contestProof(t, startRelay(t), false)
}

// The same on a PostgreSQL relay, with the weekly health check finding
// and contesting the fabricated key instead of the compaction.
func TestContestForgedSuccessorOnPostgres(t *testing.T) {
	t.Parallel()
	contestProof(t, postgresRelay(t), true)
}

// forgedSuccessor has sam publish a successor of #general's chain head
// (its root, which dana's compact-now published) to a key he made up,
// claiming the next epoch, and then dana remove him. It returns dana, the
// root key and the made-up key.
func forgedSuccessor(t *testing.T, r *testRelay, seed byte) (dana *Engine, root []byte, forged ed25519.PrivateKey) {
	t.Helper()
	dana, sam := compactionPairOn(t, r, seed)
	ctx := testCtx(t)
	settle(t, dana, sam)
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	settle(t, dana, sam)
	c, epoch := generalChain(t, sam)
	if len(c.Keys) != 1 || c.Head() == nil || c.Head().Epoch != epoch {
		t.Fatalf("sam's chain at epoch %d after the first compaction: %+v", epoch, c.Keys)
	}
	root = c.Head().Key
	forged = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{0x5a}, 32))
	sam.mu.Lock()
	gi, _ := sam.resolveChannel("general")
	prev, err := retention.Key(sam.groups[gi.Policy.Group].rec.Retention.Seeds[strconv.FormatUint(epoch, 10)])
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	publishThenRemove(t, dana, sam, retention.Successor(wire.ID(gi.Policy.Group), epoch+1, prev, forged))
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	c, now := generalChain(t, dana)
	if c.Frozen || c.Head() == nil || !bytes.Equal(c.Head().Key, retention.Pub(forged)) || now <= epoch {
		t.Fatalf("the made-up key is not the uncontested head at dana (epoch %d → %d): %+v", epoch, now, c)
	}
	return dana, root, forged
}

func contestProof(t *testing.T, r *testRelay, viaHealth bool) {
	t.Helper()
	dana, root, forged := forgedSuccessor(t, r, 214)
	ctx := testCtx(t)
	if viaHealth {
		f := finding(t, runHealth(t, dana), health.FrozenChain, health.StateAction)
		if f.Action.ID != "resolve_chain" || !slices.Contains(f.Groups, "general") {
			t.Fatalf("frozen chain row after the health check's contest: %+v", f)
		}
	} else if _, err := dana.Compact(ctx, "general", true); !errors.Is(err, ErrContested) {
		t.Fatalf("compacting under the made-up head: %v", err)
	}
	c, epoch := generalChain(t, dana)
	if !c.Frozen || !c.Has(retention.Pub(forged)) {
		t.Fatalf("the contest did not freeze dana's chain: %+v", c)
	}
	if !hasAlertCode(dana, "retention/contested") {
		t.Fatal("no retention/contested alert")
	}
	// Frozen at the relay too: compaction says so, nothing is contested
	// twice, and the row offers the resolve.
	if _, err := dana.Compact(ctx, "general", true); !errors.Is(err, retention.ErrChainFrozen) {
		t.Fatalf("compacting the contested chain: %v", err)
	}
	if c2, _ := generalChain(t, dana); len(c2.Keys) != len(c.Keys) {
		t.Fatalf("contested again: %d keys, then %d", len(c.Keys), len(c2.Keys))
	}
	f := finding(t, runHealth(t, dana), health.FrozenChain, health.StateAction)
	if f.Action.ID != "resolve_chain" || !slices.Contains(f.Groups, "general") {
		t.Fatalf("frozen chain row: %+v", f)
	}

	res, err := dana.ResolveRetentionChain(ctx, "general")
	if err != nil {
		t.Fatal(err)
	}
	if res.Epoch != epoch || res.Discarded != 1 {
		t.Fatalf("resolution: %+v (epoch %d)", res, epoch)
	}
	c, _ = generalChain(t, dana)
	if c.Frozen || c.Has(retention.Pub(forged)) || !c.Has(root) {
		t.Fatalf("chain after the resolution: %+v", c)
	}

	discardedKeySignsNothing(t, dana, forged)

	compactsAgain(t, dana) // and the row clears
}

// An honest member never contests a key it derives, nor one it cannot
// prove made up: dana and sam compact #general in turn across epochs (each
// extending the other's key), cora (who joined at an epoch of the chain)
// too, and kim, who joined after the head's epoch and so holds no key of
// the chain, is refused with retention/no_key as before; every health
// check runs; the chain never freezes and nobody raises retention/contested.
func TestHonestMembersNeverContest(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana, sam := compactionPairOn(t, r, 218)
	ctx := testCtx(t)
	members := []*Engine{dana, sam}
	settle(t, members...)
	newEpoch := func(name string, seed byte) *Engine {
		_, before := generalChain(t, dana)
		e := joinWith(t, r, invite(t, dana), name, seed)
		members = append(members, e)
		settle(t, members...)
		if _, now := generalChain(t, dana); now <= before {
			t.Fatalf("%s's join left #general at epoch %d", name, now)
		}
		return e
	}
	compact := func(e *Engine, name string) {
		if _, err := e.Compact(ctx, "general", false); err != nil {
			t.Fatalf("%s compacting: %v", name, err)
		}
		for _, m := range members {
			if _, err := m.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	compact(dana, "dana") // the root
	compact(sam, "sam")   // the same epoch: the same head
	cora := newEpoch("cora", 220)
	compact(sam, "sam") // sam extends dana's root
	compact(dana, "dana")
	compact(cora, "cora")
	newEpoch("lee", 221)
	compact(cora, "cora") // cora extends sam's key of her join epoch
	compact(dana, "dana")
	kim := newEpoch("kim", 222)
	if _, err := kim.Compact(ctx, "general", false); !errors.Is(err, retention.ErrNoKey) {
		t.Fatalf("kim, who holds no key of the chain: %v", err)
	}
	for _, m := range members {
		finding(t, runHealth(t, m), health.FrozenChain, health.StateOK)
	}
	c, _ := generalChain(t, dana)
	if c.Frozen || len(c.Keys) != 3 {
		t.Fatalf("the chain after honest compactions: %+v", c)
	}
	for _, m := range members {
		if mc, _ := generalChain(t, m); mc.Frozen || len(mc.Keys) != len(c.Keys) {
			t.Fatalf("%s's chain: %+v", m.meta.Name, mc)
		}
		if hasAlertCode(m, "retention/contested") {
			t.Fatalf("%s contested an honest key", m.meta.Name)
		}
	}
	// kim's compaction works once a member of the head's epoch extends it.
	compact(dana, "dana")
	if _, err := kim.Compact(ctx, "general", false); err != nil {
		t.Fatalf("kim after dana extended the chain: %v", err)
	}
}

// settle syncs es in turn until they are all at one epoch of #general
// (each member's sync may commit what the others read next; bounded).
func settle(t *testing.T, es ...*Engine) {
	t.Helper()
	ctx := testCtx(t)
	for range 4 {
		for _, e := range es {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
		_, first := generalChain(t, es[0])
		same := true
		for _, e := range es[1:] {
			_, ep := generalChain(t, e)
			same = same && ep == first
		}
		if same {
			return
		}
	}
	t.Fatal("the members of #general did not settle at one epoch")
}
