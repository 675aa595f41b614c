package engine

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"weald/backend/health"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/store/storetest"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/wire"
)

// generalChain returns e's #general group's retention chain and MLS epoch
// (a copy, read under e's lock).
func generalChain(t *testing.T, e *Engine) (retention.Chain, uint64) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel("general")
	if err != nil {
		t.Fatal(err)
	}
	g := e.groups[gi.Policy.Group]
	c := g.rec.Retention.Chain
	c.Keys = slices.Clone(c.Keys)
	return c, g.mls.Epoch()
}

// The attacker's side of design/gaps.md "Retention policy" ("two successor
// retention keys for one epoch freeze the chain … until a member resolves
// it"): sam, a member, signs a second successor of the chain's key with a
// key he made up, and is then removed. The chain freezes; dana, the one
// admin, resolves it to the key she derives from her own epoch; sam's key
// is discarded (the relay refuses a checkpoint or drop signed with it,
// clients drop it from their chain); compaction and the health row
// recover.
func TestResolveFrozenChainDiscardsTheRemovedMembersKey(t *testing.T) {
	t.Parallel()
	resolveProof(t, startRelay(t))
}

// The same proof on a PostgreSQL relay (the relay's resolution discards
// keys in its store).
func TestResolveFrozenChainOnPostgres(t *testing.T) {
	t.Parallel()
	resolveProof(t, postgresRelay(t))
}

// postgresRelay starts a relay on a PostgreSQL store (skipped in -short).
func postgresRelay(t *testing.T) *testRelay {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL cluster (make test runs it)")
	}
	st := storetest.Postgres(t) // closed after the relay has stopped
	rt := relaytest.StartOn(t, relay.Config{}, st)
	return &testRelay{URL: rt.URL, svc: rt.Service}
}

// frozenGeneral freezes #general's retention chain the way an attacker
// would: sam, a member, signs a second successor of the chain's root key
// with a key he made up (forged) and is then removed. It returns dana (the
// admin), cora (a member who joined at the legitimate successor's epoch),
// the legitimate tip and the forged key.
func frozenGeneral(t *testing.T, r *testRelay) (dana, cora *Engine, head *retention.ChainKey, forged ed25519.PrivateKey) {
	t.Helper()
	dana, sam := compactionPairOn(t, r, 200)
	ctx := testCtx(t)
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	root, epoch := generalChain(t, dana)
	if len(root.Keys) != 1 {
		t.Fatalf("chain after the first compaction: %+v", root.Keys)
	}
	// cora joins: a new epoch, whose key dana publishes as the successor.
	cora = joinWith(t, r, invite(t, dana), "cora", 202)
	for range 3 { // each member's sync may commit what the others read next
		for _, e := range []*Engine{dana, sam, cora} {
			if _, err := e.Sync(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, now := generalChain(t, dana); now <= epoch {
		_, ce := generalChain(t, cora)
		_, se := generalChain(t, sam)
		t.Fatalf("cora's join left #general at epoch %d (was %d; cora %d, sam %d)", now, epoch, ce, se)
	}
	if _, err := dana.Compact(ctx, "general", true); err != nil {
		t.Fatal(err)
	}
	legit, _ := generalChain(t, dana)
	head = legit.Head()
	if len(legit.Keys) != 2 || head == nil {
		t.Fatalf("chain after the second compaction: %+v", legit.Keys)
	}
	if _, err := dana.ResolveRetentionChain(ctx, "general"); !errors.Is(err, ErrChainNotFrozen) {
		t.Fatalf("resolving a live chain: %v", err)
	}

	// sam, a member of the root's epoch, signs a second successor of it
	// (every member of an epoch derives its key; the seed is read from
	// dana's record, the same bytes sam's client derived then).
	forged = ed25519.NewKeyFromSeed(make([]byte, 32))
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	prev, err := retention.Key(dana.groups[gi.Policy.Group].rec.Retention.Seeds[strconv.FormatUint(root.Keys[0].Epoch, 10)])
	dana.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	publishThenRemove(t, dana, sam, retention.Successor(wire.ID(gi.Policy.Group), head.Epoch, prev, forged))
	for _, e := range []*Engine{dana, cora} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := generalChain(t, dana); !c.Frozen {
		t.Fatalf("the fork did not freeze dana's chain: %+v", c.Keys)
	}
	return dana, cora, head, forged
}

func resolveProof(t *testing.T, r *testRelay) {
	t.Helper()
	dana, cora, head, forged := frozenGeneral(t, r)
	ctx := testCtx(t)
	if _, err := dana.Compact(ctx, "general", true); !errors.Is(err, retention.ErrChainFrozen) {
		t.Fatalf("compacting the frozen chain: %v", err)
	}
	f := finding(t, runHealth(t, dana), health.FrozenChain, health.StateAction)
	if f.Action.ID != "resolve_chain" || !slices.Contains(f.Groups, "general") {
		t.Fatalf("frozen chain: %+v", f)
	}

	// Refusals leave the chain frozen: cora is no admin; dana without the
	// seeds of her epochs cannot tell the lines apart.
	if _, err := cora.ResolveRetentionChain(ctx, "general"); !errors.Is(err, retention.ErrNotAdmin) {
		t.Fatalf("cora resolving: %v", err)
	}
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	dg := dana.groups[gi.Policy.Group]
	seeds := dg.rec.Retention.Seeds
	dg.rec.Retention.Seeds = nil
	dana.mu.Unlock()
	_, err := dana.ResolveRetentionChain(ctx, "general")
	dana.mu.Lock()
	dg.rec.Retention.Seeds = seeds
	dana.mu.Unlock()
	if !errors.Is(err, ErrUnknownLine) {
		t.Fatalf("resolving without the seeds: %v", err)
	}
	if c, _ := generalChain(t, dana); !c.Frozen {
		t.Fatal("a refused resolution unfroze the chain")
	}

	res, err := dana.ResolveRetentionChain(ctx, "general")
	if err != nil {
		t.Fatal(err)
	}
	if res.Channel != "general" || res.Epoch != head.Epoch || res.Discarded != 1 {
		t.Fatalf("resolution: %+v", res)
	}
	if _, err := cora.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, cora} {
		c, _ := generalChain(t, e)
		if c.Frozen || c.Has(retention.Pub(forged)) || !c.Has(head.Key) {
			t.Fatalf("chain after the resolution: frozen %v, forged key live %v", c.Frozen, c.Has(retention.Pub(forged)))
		}
	}
	if _, err := dana.ResolveRetentionChain(ctx, "general"); !errors.Is(err, ErrChainNotFrozen) {
		t.Fatalf("resolving twice: %v", err)
	}

	discardedKeySignsNothing(t, dana, forged)

	compactsAgain(t, dana)
}

// Issue 14, several admins: resolving #general's frozen chain needs both
// admins' approvals. From the attacker's side: dana alone gets no
// one-signature resolution past the relay; cora proposes keeping the forged
// key and dana's client refuses to approve it (it derives the other tip),
// while dana's resolve proposes her own line beside it (pending, nothing
// discarded); dana cannot approve twice; cora's roster approvals over the
// forged key or with dana's signature copied are refused. cora's approval publishes the
// resolution with both signatures: the forged key is discarded everywhere
// and compaction resumes.
func TestTwoAdminsResolveFrozenChain(t *testing.T) {
	t.Parallel()
	twoAdminResolveProof(t, startRelay(t))
}

// The same on a PostgreSQL relay.
func TestTwoAdminsResolveFrozenChainOnPostgres(t *testing.T) {
	t.Parallel()
	twoAdminResolveProof(t, postgresRelay(t))
}

func twoAdminResolveProof(t *testing.T, r *testRelay) {
	t.Helper()
	dana, cora, head, forged := frozenGeneral(t, r)
	ctx := testCtx(t)
	if err := dana.Promote(ctx, cora.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, cora, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	frozen := func(e *Engine) bool { c, _ := generalChain(t, e); return c.Frozen }

	// dana alone, at the relay.
	dana.mu.Lock()
	gi, _ := dana.resolveChannel("general")
	g := dana.groups[gi.Policy.Group]
	alone := wire.RetentionResolution{Group: wire.ID(g.rec.ID), Key: slices.Clone(head.Key)}
	alone.Approve(dana.edKey)
	_, err := dana.sendCT(ctx, g, wire.KindRetentionResolution, alone.Encode())
	dana.mu.Unlock()
	if c := codeOf(err); c != string(wire.CodeRetentionThreshold) {
		t.Fatalf("one admin's resolution at the relay: %v", err)
	}

	// cora proposes keeping the forged key (a mistaken or hostile admin:
	// the roster cannot see the chain). dana's client refuses to approve
	// it, and her resolve proposes her own line beside it.
	overForged := wire.RetentionResolution{Group: wire.ID(g.rec.ID), Key: retention.Pub(forged)}
	cora.mu.Lock()
	overForged.Approve(cora.edKey)
	err = cora.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.RetentionResolve{Group: gi.Policy.Group, Key: retention.Pub(forged), Relay: &overForged.Approvals[0]}, nil
	})
	wrongID := hexHead(cora.roster.Head())
	cora.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ps := dana.PendingRetentions(); len(ps) != 1 || ps[0].ID != wrongID || ps[0].Approvable || !ps[0].Resolve {
		t.Fatalf("dana is offered to approve the forged key: %+v", ps)
	}
	headBefore := rosterHead(dana)
	if _, err := dana.ApproveRetention(ctx, wrongID); !errors.Is(err, ErrResolveDisagrees) {
		t.Fatalf("dana approving the forged key: %v", err)
	}
	if rosterHead(dana) != headBefore {
		t.Fatal("a refused approval wrote to the roster")
	}

	res, err := dana.ResolveRetentionChain(ctx, "general")
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending == "" || res.Pending == wrongID || res.Approvals != 1 || res.Threshold != 2 || res.Discarded != 0 || !frozen(dana) {
		t.Fatalf("the first admin's resolve: %+v", res)
	}
	if _, err := dana.ResolveRetentionChain(ctx, "general"); !errors.Is(err, ErrResolveAlreadyApproved) {
		t.Fatalf("dana resolving twice: %v", err)
	}
	if _, err := dana.ApproveRetention(ctx, res.Pending); !errors.Is(err, ErrResolveAlreadyApproved) && !errors.Is(err, roster.ErrDuplicate) {
		t.Fatalf("dana approving her own resolution: %v", err)
	}

	if _, err := cora.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var mine *PendingRetention
	ps := cora.PendingRetentions()
	for i := range ps {
		if ps[i].ID == res.Pending {
			mine = &ps[i]
		}
	}
	if len(ps) != 2 || mine == nil || !mine.Resolve || !mine.Approvable || mine.Channel != "general" || mine.ResolveEpoch != head.Epoch {
		t.Fatalf("cora's pending list: %+v", ps)
	}
	// A day after they were proposed, neither resolution is listed at cora
	// and approving dana's is refused, as an expired compact-now is.
	cora.mu.Lock()
	clock := cora.now
	cora.now = func() time.Time { return clock().Add(roster.ResolveWindow + time.Minute) }
	cora.mu.Unlock()
	late := cora.PendingRetentions()
	_, err = cora.ApproveRetention(ctx, res.Pending)
	cora.mu.Lock()
	cora.now = clock
	cora.mu.Unlock()
	if len(late) != 0 || !errors.Is(err, ErrNoProposal) {
		t.Fatalf("a day later cora lists %+v and approving dana's resolution gives %v", late, err)
	}
	if mine.Expires.IsZero() || !frozen(dana) {
		t.Fatalf("the pending resolution shows no expiry: %+v", mine)
	}

	var proposal roster.Head
	b, _ := hex.DecodeString(res.Pending)
	copy(proposal[:], b)
	cora.mu.Lock()
	refusals := map[string]*wire.Approval{"over the forged key": &overForged.Approvals[0], "dana's, copied": &alone.Approvals[0]}
	for name, a := range refusals {
		err := cora.appendRoster(ctx, func() (roster.Body, error) { return &roster.RetentionApprove{Proposal: proposal, Relay: a}, nil })
		if !errors.Is(err, roster.ErrBadRetention) {
			cora.mu.Unlock()
			t.Fatalf("cora's approval %s: %v", name, err)
		}
	}
	cora.mu.Unlock()
	if !frozen(dana) || !frozen(cora) {
		t.Fatal("a refused approval unfroze a chain")
	}

	ch, err := cora.ApproveRetention(ctx, res.Pending)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Active || !ch.Published {
		t.Fatalf("the second admin's approval: %+v", ch)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{dana, cora} {
		c, _ := generalChain(t, e)
		if c.Frozen || c.Has(retention.Pub(forged)) || !c.Has(head.Key) {
			t.Fatalf("chain after the resolution: frozen %v, forged key live %v", c.Frozen, c.Has(retention.Pub(forged)))
		}
		if ps := e.PendingRetentions(); len(ps) != 0 {
			t.Fatalf("still pending after the resolution: %+v", ps)
		}
	}
	if _, err := dana.ResolveRetentionChain(ctx, "general"); !errors.Is(err, ErrChainNotFrozen) {
		t.Fatalf("resolving after the resolution: %v", err)
	}
	// The forged line's proposal is still in the roster, unlisted; an
	// approval of it now is refused: nothing is frozen.
	if _, err := dana.ApproveRetention(ctx, wrongID); !errors.Is(err, ErrChainNotFrozen) {
		t.Fatalf("approving the forged key after the resolution: %v", err)
	}
	// Compaction resumes: a checkpoint is written (the drop then waits
	// for the second admin, as every compact-now with two admins does).
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil || rep.Checkpoint == 0 {
		t.Fatalf("compacting after the resolution: %+v %v", rep, err)
	}
	finding(t, runHealth(t, dana), health.FrozenChain, health.StateOK)
}

func rosterHead(e *Engine) roster.Head {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.roster.Head()
}

// discardedKeySignsNothing checks the relay refuses a checkpoint of
// dana's #general signed with key (discarded by a resolution) and a drop
// signed with it below an honest checkpoint.
func discardedKeySignsNothing(t *testing.T, dana *Engine, key ed25519.PrivateKey) {
	t.Helper()
	ctx := testCtx(t)
	_, err := writeTampered(t, dana, func(stage string, d *checkpointDraft) {
		if stage == "manifest" {
			d.key = key
		}
	})
	if c := codeOf(err); c != string(wire.CodeBadObject) {
		t.Fatalf("a checkpoint signed with the discarded key: %v", err)
	}
	honest, err := writeTampered(t, dana, nil)
	if err != nil {
		t.Fatal(err)
	}
	dana.mu.Lock()
	defer dana.mu.Unlock()
	gi, _ := dana.resolveChannel("general")
	gid := wire.ID(dana.groups[gi.Policy.Group].rec.ID)
	now := uint64(dana.now().Unix())
	d := wire.DropBefore{Group: gid, Checkpoint: honest.cp.Ref, ManifestHash: honest.cp.ManifestHash,
		Snapshots: slices.Clone(honest.cp.Snapshots), Authorization: wire.AuthorizedByDestruction,
		Destruction: wire.RetentionDestruction{Group: gid, Checkpoint: honest.cp.Ref, NotBefore: now - 60, NotAfter: now + 600}}
	d.Destruction.Approve(dana.edKey)
	d.Sign(key)
	if _, err := dana.client.DropBefore(ctx, d); codeOf(err) != string(wire.CodeDropStaleKey) {
		t.Fatalf("a drop signed with the discarded key: %v", err)
	}
}

// compactsAgain checks dana's compact-now of #general deletes envelopes on
// the relay, and the health row and the retention view show no frozen
// chain.
func compactsAgain(t *testing.T, dana *Engine) {
	t.Helper()
	ctx := testCtx(t)
	before, err := dana.Storage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := dana.Compact(ctx, "general", true)
	if err != nil || rep.Checkpoint == 0 || !rep.Dropped || rep.Envelopes == 0 {
		t.Fatalf("compacting after the resolution: %+v %v", rep, err)
	}
	if after, _ := dana.Storage(ctx); after.Envelopes >= before.Envelopes {
		t.Fatalf("the drop after the resolution deleted nothing: %d → %d", before.Envelopes, after.Envelopes)
	}
	finding(t, runHealth(t, dana), health.FrozenChain, health.StateOK)
	if info, _ := dana.Retention("general"); info.ChainFrozen {
		t.Fatalf("retention view: %+v", info)
	}
}

// publishThenRemove has sam publish the retention transition t in
// #general, then dana remove him from the workspace.
func publishThenRemove(t *testing.T, dana, sam *Engine, tr wire.RetentionTransition) {
	t.Helper()
	ctx := testCtx(t)
	sam.mu.Lock()
	gi, _ := sam.resolveChannel("general")
	_, err := sam.sendCT(ctx, sam.groups[gi.Policy.Group], wire.KindRetentionTransition, tr.Encode())
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
}
