package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"weald/backend/health"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/roster"
	"weald/backend/wire"
)

// ownerOf is the directory owner of e's user's live recovery principal.
func ownerOf(t *testing.T, e *Engine) wire.ID {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, ok := e.recoveryKeys()
	if !ok {
		t.Fatal("no recovery principal")
	}
	return wire.ID(rec.ID)
}

// dirAt reads owner's recovery tag directory from the relay as the owner's
// own recovery key would.
func dirAt(t *testing.T, r *testRelay, ws string, owner wire.ID) map[identity.GroupID]wire.DirSlot {
	t.Helper()
	d, err := r.svc.RecoveryDir(testCtx(t), wire.ID(mustHex(t, ws)), wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: owner}, owner)
	if err != nil {
		t.Fatal(err)
	}
	out := map[identity.GroupID]wire.DirSlot{}
	for _, s := range d.Slots {
		out[identity.GroupID(s.Group)] = s
	}
	return out
}

// memberGroups are the groups e holds an active MLS state of.
func memberGroups(e *Engine) map[identity.GroupID]*group {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[identity.GroupID]*group{}
	for id, g := range e.groups {
		if g.mls != nil && g.mls.Active() {
			out[id] = g
		}
	}
	return out
}

// Every wrap a device sends is named in its person's recovery tag
// directory (docs/protocol/lifecycle.md "Recovery tag directory"): the
// creator's three groups and the joiner's, each slot valid and naming the
// device's newest wrap. When the epoch moves and the health check sends a
// fresh wrap, the slot names it and keeps the one before as its fallback,
// both still held.
func TestRecoveryDirectoryNamesEveryWrap(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 230)
	sam := joinWith(t, r, invite(t, dana), "sam", 231)
	for _, e := range []*Engine{dana, sam} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ws := dana.WorkspaceID()
	for _, e := range []*Engine{dana, sam} {
		dir := dirAt(t, r, ws, ownerOf(t, e))
		groups := memberGroups(e)
		if len(groups) < 3 || len(dir) != len(groups) {
			t.Fatalf("%d slots for %d groups", len(dir), len(groups))
		}
		for id, g := range groups {
			s, ok := dir[id]
			if !ok || !s.Valid() || s.Current.Seq != g.rec.Health.DirWant || g.rec.Health.DirPut != g.rec.Health.DirWant {
				t.Fatalf("slot %+v, the device's newest wrap %d (named %d)", s, g.rec.Health.DirWant, g.rec.Health.DirPut)
			}
		}
	}
	general := identity.GroupID(mustHex(t, chanID(t, dana, "general")))
	before := dirAt(t, r, ws, ownerOf(t, sam))[general]
	// Lee joins #general: sam's wrap there is stale; the check sends a new one.
	joinWith(t, r, invite(t, dana), "lee", 232)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rep := runHealth(t, sam)
	finding(t, rep, health.RecoveryWrap, health.StateRepaired)
	finding(t, rep, health.RecoveryDirectory, health.StateOK)
	after := dirAt(t, r, ws, ownerOf(t, sam))[general]
	if after.Current.Seq <= before.Current.Seq || after.Current.Epoch <= before.Current.Epoch || !after.Current.Present ||
		after.Fallback != before.Current {
		t.Fatalf("hand-off: before %+v, after %+v", before, after)
	}
}

// dirRefusing is a relay that does not keep recovery directory slots
// while refuse is set (a store failure, say): every put fails.
type dirRefusing struct {
	server.Backend
	refuse *atomic.Bool
}

func (b *dirRefusing) RecoveryDirPut(ctx context.Context, ws wire.ID, p wire.AuthOK, items []wire.DirPut) error {
	if b.refuse.Load() {
		return wire.Errorf(wire.CodeInternal, "the directory is not kept")
	}
	return b.Backend.RecoveryDirPut(ctx, ws, p, items)
}

// The health row "Recovery tag directory has a valid current-or-fallback
// slot for every group the user belongs to". Its failing state: the
// directory lost the person's slots and the relay keeps no new one, so a
// recovery from the phrase would find nothing through it; the run tries a
// fresh wrap, cannot name it, and reports every group with the sync action.
// The next sync names what is owed and the row is ok again; and when only
// the slots were lost, one run repairs them itself.
func TestHealthRecoveryDirectoryFailsThenIsRepaired(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	rt := relaytest.StartWrapped(t, relay.Config{}, func(svc *relay.Service) server.Backend {
		return &dirRefusing{Backend: svc, refuse: &refuse}
	})
	r := &testRelay{URL: rt.URL, svc: rt.Service}
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 235)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	finding(t, runHealth(t, dana), health.RecoveryDirectory, health.StateOK)
	owner, ws := ownerOf(t, dana), dana.WorkspaceID()
	lose := func() {
		t.Helper()
		dana.mu.Lock()
		n, err := dana.dropRecoveryDirs(ctx, identity.UserID(dana.meta.User), identity.GroupID{})
		dana.mu.Unlock()
		if err != nil || n != 3 || len(dirAt(t, r, ws, owner)) != 0 {
			t.Fatalf("dropped %d: %v", n, err)
		}
	}
	lose()
	refuse.Store(true)
	f := finding(t, runHealth(t, dana), health.RecoveryDirectory, health.StateAction)
	if len(f.Groups) != 3 || !slices.Contains(f.Groups, "general") || f.Action == nil || f.Action.ID != "sync" {
		t.Fatalf("failing finding %+v", f)
	}
	if len(dirAt(t, r, ws, owner)) != 0 {
		t.Fatal("a slot was kept while the relay refused")
	}
	refuse.Store(false)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	dir := dirAt(t, r, ws, owner)
	for id := range memberGroups(dana) {
		if s, ok := dir[id]; !ok || !s.Valid() {
			t.Fatalf("after the sync: %+v", dir)
		}
	}
	finding(t, runHealth(t, dana), health.RecoveryDirectory, health.StateOK)
	lose()
	f = finding(t, runHealth(t, dana), health.RecoveryDirectory, health.StateRepaired)
	if len(f.Groups) != 3 {
		t.Fatalf("repaired %v", f.Groups)
	}
	finding(t, runHealth(t, dana), health.RecoveryDirectory, health.StateOK)
}

// A recovery reads its phrase's directory: dana's wraps are older in each
// log than erin's (erin rotated her phrase after dana's last wraps), yet
// dana's recovered device, with nobody to add it, opens exactly one wrap
// per group it enters by wrap, the one the directory names (searching the
// logs newest first opened erin's first).
func TestRecoverReadsItsDirectory(t *testing.T) {
	t.Parallel()
	r, shift, clock, dana := clockedWorkspace(t, 240)
	ctx := testCtx(t)
	phrase, _ := dana.TakeRecoveryPhrase(ctx)
	o := r.options(t, "erin", 241)
	o.Clock = clock
	erin, err := Join(ctx, o, invite(t, dana))
	if err != nil {
		t.Fatal(err)
	}
	defer erin.Close()
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	// Erin's join moved the epochs; dana's wraps are current again (the
	// first sync's health run or this one sends them).
	if f := finding(t, runHealth(t, dana), health.RecoveryWrap, health.StateOK); f.State != health.StateOK {
		t.Fatal(f)
	}
	if _, err := dana.Send(ctx, "general", "a note to myself"); err != nil {
		t.Fatal(err)
	}
	if _, err := erin.RotateRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	ws := dana.WorkspaceID()
	dana.Close() // lost; erin goes away
	erin.Close()

	o = r.options(t, "dana2", 242)
	o.Clock = clock
	dana2, _, err := Recover(ctx, o, r.URL, ws, phrase)
	if dana2 == nil {
		t.Fatalf("recover: %v", err)
	}
	defer dana2.Close()
	shift.Store(int64(roster.ProbationWait + time.Minute))
	st, err := dana2.RecoverAgain(ctx)
	if err != nil || !st.Ready {
		t.Fatalf("after the wait: %+v %v", st, err)
	}
	for _, c := range dana2.Channels() {
		if !c.Member {
			t.Fatalf("not in %s", c.Name)
		}
	}
	// The root, #general and #activity, each by its wrap.
	if n := len(memberGroups(dana2)); dana2.wrapOpens != n || n != 3 {
		t.Fatalf("opened %d wraps to enter %d groups", dana2.wrapOpens, n)
	}
	ms, err := dana2.Messages(ctx, "general", 10)
	if err != nil || !containsText(ms, "a note to myself") {
		t.Fatalf("history: %+v %v", ms, err)
	}
}

// A recovery-phrase rotation drops the old phrase's recovery tag directory
// (written from the side of whoever holds the leaked phrase): before it,
// the old phrase's directory maps a wrap in every group Sam is in; after
// it, the old phrase finds no slot at all, while the new phrase finds a
// valid slot naming a held wrap in each of those groups. A second run of
// the drop (a resumed rotation) finds nothing more to drop.
func TestRecoveryRotationDropsTheOldPhrasesDirectory(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 240)
	sam := joinWith(t, r, invite(t, dana), "sam", 241)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ws := dana.WorkspaceID()
	old := ownerOf(t, sam)
	groups := memberGroups(sam)
	if n := len(dirAt(t, r, ws, old)); n < 3 || n != len(groups) {
		t.Fatalf("before the rotation the old phrase has %d slots for %d groups", n, len(groups))
	}
	if _, err := sam.RotateRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	if d := dirAt(t, r, ws, old); len(d) != 0 {
		t.Fatalf("after the rotation the old phrase still finds %d slots", len(d))
	}
	cur := ownerOf(t, sam)
	if cur == old {
		t.Fatal("the rotation kept the old recovery principal")
	}
	dir := dirAt(t, r, ws, cur)
	for id := range groups {
		if s, ok := dir[id]; !ok || !s.Valid() || !s.Current.Present {
			t.Fatalf("the new phrase's slot of %x: %+v", id[:4], s)
		}
	}
	sam.mu.Lock()
	n, err := sam.dropOldRecoveryDirs(ctx, identity.RecoveryID(cur))
	sam.mu.Unlock()
	if err != nil || n != 0 {
		t.Fatalf("a resumed drop dropped %d slots (%v)", n, err)
	}
}

// spec/lifecycle.md "Ongoing health": a stale recovery wrap is "repaired on
// next commit". Lee's join moves #general's epoch, so Sam's wrap there is
// stale; Sam's own next commit in #general sends his wrap for the epoch it
// makes, named in his directory, so the health check that follows has
// nothing to repair in #general (on the main this started from, only the
// check re-wrapped, and it listed #general among the repaired).
func TestOwnCommitRepairsTheCommittersRecoveryWrap(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 250)
	sam := joinWith(t, r, invite(t, dana), "sam", 251)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	joinWith(t, r, invite(t, dana), "lee", 252)
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	general := identity.GroupID(mustHex(t, chanID(t, dana, "general")))
	sam.mu.Lock()
	g := sam.groups[general]
	stale := g.rec.Health.WrapEpoch < g.mls.Epoch()
	err := sam.commit(ctx, g, mls.CommitOptions{})
	epoch, wrapEpoch := g.mls.Epoch(), g.rec.Health.WrapEpoch
	sam.mu.Unlock()
	if err != nil || !stale {
		t.Fatalf("commit: %v (sam's wrap stale before it: %v)", err, stale)
	}
	if wrapEpoch != epoch {
		t.Fatalf("after sam's own commit his wrap is at epoch %d, the group at %d", wrapEpoch, epoch)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if s := dirAt(t, r, sam.WorkspaceID(), ownerOf(t, sam))[general]; s.Current.Epoch != epoch || !s.Current.Present {
		t.Fatalf("sam's slot of #general %+v, want epoch %d", s, epoch)
	}
	// Lee's join moved the root and #activity too, where Sam did not
	// commit: the check re-wraps those two, not #general.
	rep := runHealth(t, sam)
	if f := finding(t, rep, health.RecoveryWrap, health.StateRepaired); slices.Contains(f.Groups, "general") || len(f.Groups) != 2 {
		t.Fatalf("the check re-wrapped %v", f.Groups)
	}
	finding(t, rep, health.RecoveryDirectory, health.StateOK)
}
