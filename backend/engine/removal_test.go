package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/internal/racetest"
	"weald/backend/lifecycle"
	"weald/backend/roster"
	"weald/backend/wire"
)

// removalScene: dana (admin) created the workspace; sam and lee joined by
// invite and are in #general; sam has a second device in the roster (in
// no group until added to an explicit channel by Welcome).
func removalScene(t *testing.T, r *testRelay, dana *Engine, seed byte) (sam, sam2, lee *Engine) {
	t.Helper()
	ctx := testCtx(t)
	sam = joinWith(t, r, invite(t, dana), "sam", seed)
	lee = joinWith(t, r, invite(t, dana), "lee", seed+1)
	sam2 = secondDevice(t, r, dana, sam, seed+2)
	for _, e := range []*Engine{sam, sam2, lee, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return sam, sam2, lee
}

// wrapsBy counts the recovery.wrap envelopes in group's log authored by
// any of the engines.
func wrapsBy(t *testing.T, reader *Engine, group string, by ...*Engine) int {
	t.Helper()
	reader.mu.Lock()
	defer reader.mu.Unlock()
	envs, err := reader.fetchAll(testCtx(t), wire.ID(mustHex(t, group)), 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, env := range envs {
		for _, e := range by {
			if env.Envelope.Kind == wire.KindRecoveryWrap && env.Envelope.Author == wire.ID(e.devID) {
				n++
			}
		}
	}
	return n
}

// readsLast syncs e and checks the newest message of channel.
func readsLast(t *testing.T, e *Engine, channel, text string) {
	t.Helper()
	ctx := testCtx(t)
	if _, err := e.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := e.Messages(ctx, channel, 0)
	if err != nil || len(ms) == 0 || ms[len(ms)-1].Text != text {
		t.Fatalf("%s reads %+v in #%s (%v), want %q last", e.DeviceID().ShortString(), ms, channel, err, text)
	}
}

// spec/lifecycle.md "Removing a person": one action revokes every device
// of the person, rotates every group they were in, deletes their recovery
// wraps, publishes an access set without them and writes one receipt; the
// removed person's running client is cut off and cannot fetch, and the
// others go on.
func TestRemovePersonEndToEnd(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 120)
	sam, sam2, lee := removalScene(t, r, dana, 121)
	general := chanID(t, dana, "general")
	if wrapsBy(t, dana, general, sam, sam2) == 0 {
		t.Fatal("sam's devices sent no recovery wrap to #general: nothing to delete")
	}
	samOwner, lee0 := ownerOf(t, sam), len(dirAt(t, r, dana.WorkspaceID(), ownerOf(t, lee)))
	if len(dirAt(t, r, dana.WorkspaceID(), samOwner)) == 0 {
		t.Fatal("sam has no recovery directory: nothing to drop")
	}
	phrase, err := sam.TakeRecoveryPhrase(ctx) // sam's card in a drawer
	if err != nil || phrase == "" {
		t.Fatalf("sam's phrase: %q, %v", phrase, err)
	}
	g := dana.groups[identity.GroupID(mustHex(t, general))]
	before := g.mls.Epoch()
	var progress []string
	dana.opts.OnEvent = func(ev Event) {
		if ev.Kind == EventProgress && strings.HasPrefix(ev.Task, "removal/") {
			progress = append(progress, ev.Task)
		}
	}
	op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if op.State != lifecycle.StateDone || op.Receipt == nil {
		t.Fatalf("state %s receipt %v", op.State, op.Receipt)
	}
	rc := op.Receipt
	if rc.DevicesRevoked != 2 || rc.Operation != op.ID || len(rc.Groups) == 0 || rc.AccessVersion == 0 {
		t.Fatalf("receipt %+v", rc)
	}
	if g.mls.Epoch() <= before {
		t.Fatal("#general was not rotated")
	}
	if len(progress) == 0 {
		t.Fatal("no progress reported")
	}
	// The recovery wraps sealed to sam's recovery key are gone.
	if n := wrapsBy(t, dana, general, sam, sam2); n != 0 {
		t.Fatalf("%d of sam's wraps left in #general", n)
	}
	// Sam is dropped from the recovery tag directory; lee keeps every slot.
	if d := dirAt(t, r, dana.WorkspaceID(), samOwner); len(d) != 0 {
		t.Fatalf("sam keeps %d directory slots", len(d))
	}
	if n := len(dirAt(t, r, dana.WorkspaceID(), ownerOf(t, lee))); n != lee0 {
		t.Fatalf("lee's directory went from %d to %d slots", lee0, n)
	}
	// Roster: user and devices revoked, one receipt, seen by lee too.
	if u, _ := dana.roster.User(identity.UserID(sam.meta.User)); u.RevokedAt == nil {
		t.Fatal("sam not revoked")
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := lee.Receipts(); len(got) != 1 || got[0].Operation != op.ID {
		t.Fatalf("lee sees receipts %+v", got)
	}
	// sam's running client is cut off: its connection closes and a
	// reconnect is refused, so it cannot fetch.
	deadline := time.Now().Add(10 * time.Second)
	for {
		sam.mu.Lock()
		var ferr error
		if sam.client != nil {
			_, ferr = sam.client.Fetch(ctx, wire.ID(mustHex(t, general)), 0, 10)
		} else {
			ferr = errors.New("no client")
		}
		sam.mu.Unlock()
		if ferr != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("sam's client still fetches after the new access set")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := sam2.Sync(ctx); err == nil {
		t.Fatal("sam's second device synced after the removal")
	}
	// Sam's recovery phrase stops being a way back in at the same moment
	// (spec/lifecycle.md step 4): it recovers nothing onto a new device.
	if thief, _, err := Recover(ctx, r.options(t, "sam-recovered", 124), r.URL, dana.WorkspaceID(), phrase); err == nil {
		thief.Close()
		t.Fatal("sam's phrase recovered a device after the removal")
	} else {
		t.Logf("sam's phrase after the removal: %v", err)
	}
	// The others go on: lee reads dana's message in #general.
	if _, err := dana.Send(ctx, "general", "after sam"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, lee, "general", "after sam")
	// Run again: the operation is done, nothing new is written.
	if again, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); err != nil || again.ID != op.ID {
		t.Fatalf("removing sam again: %v", err)
	}
	if n := len(dana.Receipts()); n != 1 {
		t.Fatalf("%d receipts", n)
	}
}

// The removing client stopped after each step, and inside its first Remove
// commit (commit/*: persisted, sent, merged), resumes, in a new engine on
// the same store, into the same operation and exactly one receipt.
//
// Each step is the same scene stopped at another point: under the race
// detector every third step runs (a minute of instrumented work less), and
// make test runs all eleven without -race (racetest).
func TestRemovalResumesAfterCrashAtEachStep(t *testing.T) {
	t.Parallel()
	steps := []string{"removal/revoke", "commit/staged", "commit/sent", "commit/merged", "removal/rotate/0",
		"removal/rotate/1", "removal/rotate", "removal/wraps", "removal/invites", "removal/access", "removal/receipt"}
	for i, step := range steps {
		t.Run(strings.ReplaceAll(step, "/", "_"), func(t *testing.T) {
			if racetest.Enabled && i%3 != 0 {
				t.Skip("-race runs every third step; make test runs this one without it")
			}
			r := startRelay(t)
			ctx := testCtx(t)
			crash := errors.New("simulated crash")
			armed := false
			opts := r.options(t, "creator", byte(130+2*i))
			opts.Crash = func(s string) error {
				if armed && s == step {
					return crash
				}
				return nil
			}
			dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
			if err != nil {
				t.Fatal(err)
			}
			sam, _, lee := removalScene(t, r, dana, byte(150+4*i))
			armed = true
			first, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
			if !errors.Is(err, crash) {
				t.Fatalf("remove: %v", err)
			}
			dana.Close()
			opts.Crash = nil
			dana, err = Open(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer dana.Close()
			op, err := dana.Remove(ctx, sam.meta.User.hex()[:12], RemoveOptions{})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if op.ID != first.ID || op.State != lifecycle.StateDone {
				t.Fatalf("resumed %s (%s), started %s", op.ID.Hex()[:8], op.State, first.ID.Hex()[:8])
			}
			ops, err := dana.Removals(ctx)
			if err != nil || len(ops) != 1 {
				t.Fatalf("%d operations stored (%v)", len(ops), err)
			}
			if got := dana.Receipts(); len(got) != 1 || got[0].Operation != first.ID {
				t.Fatalf("receipts %+v", got)
			}
			if revokes := rosterOpsOf(t, dana, roster.OpRevoke); revokes != 1 {
				t.Fatalf("%d roster.revoke operations, want 1", revokes)
			}
			// Every group sam was in is on the receipt, and no group forked:
			// lee is in dana's epochs and reads her.
			if n := len(dana.Receipts()[0].Groups); n != 3 {
				t.Fatalf("%d groups rotated on the receipt, want 3", n)
			}
			if _, err := dana.Send(ctx, "general", "after "+step); err != nil {
				t.Fatal(err)
			}
			readsLast(t, lee, "general", "after "+step)
			if d, l := epochs(dana), epochs(lee); !sameEpochs(d, l) {
				t.Fatalf("epochs: dana %v, lee %v", d, l)
			}
		})
	}
}

// Another admin's change between the revocation and the first commit
// pauses the operation with the change named; approved again, it finishes
// into one receipt.
func TestRemovalPausesWhenAnotherAdminActs(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	var lee *Engine
	opts := r.options(t, "creator", 170)
	opts.Crash = func(s string) error {
		if s == "removal/revoke" && lee != nil {
			if _, err := lee.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour); err != nil {
				return err
			}
		}
		return nil
	}
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dana.Close() })
	sam, _, l := removalScene(t, r, dana, 171)
	if err := dana.Promote(ctx, l.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	lee = l
	op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
	if !errors.Is(err, lifecycle.ErrPaused) || op.State != lifecycle.StateNeedsReapproval {
		t.Fatalf("remove: %v, state %v", err, op)
	}
	if len(op.Intervening) != 1 || !strings.Contains(op.Intervening[0], "invite") {
		t.Fatalf("intervening %q", op.Intervening)
	}
	// Run again without approval: still paused, nothing committed.
	if again, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); !errors.Is(err, lifecycle.ErrPaused) || again.ID != op.ID {
		t.Fatalf("unapproved rerun: %v", err)
	}
	lee = nil
	done, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{Reapprove: true})
	if err != nil || done.ID != op.ID || done.State != lifecycle.StateDone {
		t.Fatalf("reapproved: %v", err)
	}
	if n := len(dana.Receipts()); n != 1 {
		t.Fatalf("%d receipts", n)
	}
}

// Partial removal from an explicit channel leaves the person in the
// workspace and every other channel; a parent channel refuses it.
func TestPartialRemovalFromExplicitChannel(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 180)
	sam, sam2, lee := removalScene(t, r, dana, 181)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex(), lee.meta.User.hex()}); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "secret")
	generalID := identity.GroupID(mustHex(t, chanID(t, dana, "general")))
	secretID := identity.GroupID(mustHex(t, chanID(t, dana, "secret")))
	samOwner := ownerOf(t, sam)
	if d := dirAt(t, r, dana.WorkspaceID(), samOwner); !d[secretID].Valid() || !d[generalID].Valid() {
		t.Fatalf("sam's directory before: %+v", d)
	}
	var inGeneral []*Engine // sam's devices in #general before the removal
	for _, e := range []*Engine{sam, sam2} {
		if e.member(generalID) {
			inGeneral = append(inGeneral, e)
		}
	}
	if len(inGeneral) == 0 {
		t.Fatal("no device of sam is in #general")
	}
	if _, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{Channel: "general"}); !errors.Is(err, lifecycle.ErrParentChannel) {
		t.Fatalf("parent channel: %v", err)
	}
	op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{Channel: "secret"})
	if err != nil || op.State != lifecycle.StateDone || op.Receipt == nil || op.Receipt.Channel.IsZero() {
		t.Fatalf("partial: %v %+v", err, op)
	}
	if op.Receipt.DevicesRevoked != 0 || op.Receipt.AccessVersion != 0 {
		t.Fatalf("a partial removal revoked or republished: %+v", op.Receipt)
	}
	// Only #secret's slot of sam's directory goes.
	if d := dirAt(t, r, dana.WorkspaceID(), samOwner); len(d) == 0 || !d[generalID].Valid() {
		t.Fatalf("sam's directory after: %+v", d)
	} else if _, ok := d[secretID]; ok {
		t.Fatal("sam keeps a directory slot of #secret")
	}
	if u, _ := dana.roster.User(identity.UserID(sam.meta.User)); u.RevokedAt != nil {
		t.Fatal("sam revoked by a partial removal")
	}
	if _, err := dana.Send(ctx, "secret", "without sam"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "sam still here"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, lee, "secret", "without sam")
	for _, e := range inGeneral {
		readsLast(t, e, "general", "sam still here")
	}
	for _, e := range []*Engine{sam, sam2} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if e.member(identity.GroupID(mustHex(t, chanID(t, dana, "secret")))) {
			t.Fatal("sam's device is still in #secret")
		}
	}
}

// Removing the last admin is refused before anything runs; so is
// demoting them; promoting someone first makes both possible.
func TestLastAdminRefusedBeforeAnythingRuns(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 190)
	_, _, lee := removalScene(t, r, dana, 191)
	head := dana.roster.Head()
	if _, err := dana.Remove(ctx, dana.meta.User.hex(), RemoveOptions{}); !errors.Is(err, lifecycle.ErrLastAdmin) {
		t.Fatalf("remove the last admin: %v", err)
	}
	if err := dana.Demote(ctx, dana.meta.User.hex()); !errors.Is(err, lifecycle.ErrLastAdmin) {
		t.Fatalf("demote the last admin: %v", err)
	}
	if ops, _ := dana.Removals(ctx); len(ops) != 0 || dana.roster.Head() != head {
		t.Fatalf("a refused removal left %d operations or moved the roster", len(ops))
	}
	if _, err := lee.Remove(ctx, dana.meta.User.hex(), RemoveOptions{}); !errors.Is(err, lifecycle.ErrNotAdmin) {
		t.Fatalf("a member removes: %v", err)
	}
	if err := dana.Promote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Remove(ctx, dana.meta.User.hex(), RemoveOptions{}); !errors.Is(err, lifecycle.ErrSelf) {
		t.Fatalf("remove oneself: %v", err)
	}
	if err := dana.Demote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatalf("demote the second admin: %v", err)
	}
}

// A lost device is revoked from another device of the same user: the
// roster revokes it, the groups it was in rotate, and once an admin's
// client publishes the access set it can no longer sync. This device
// cannot revoke itself, and a member cannot revoke another's device.
func TestRevokeLostDevice(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 200)
	sam, sam2, lee := removalScene(t, r, dana, 201)
	// sam's second device has a leaf in #secret (added by Welcome).
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.AddPeople(ctx, "secret", []string{sam.meta.User.hex()}); err != nil {
		t.Fatal(err)
	}
	readsOnly(t, sam, "secret")
	readsOnly(t, sam2, "secret")
	if _, err := sam.RevokeDevice(ctx, hexID(sam.devID).hex()); !errors.Is(err, ErrRevokeSelf) {
		t.Fatalf("revoke self: %v", err)
	}
	if _, err := lee.RevokeDevice(ctx, hexID(sam2.devID).hex()[:10]); !errors.Is(err, ErrNotYourDevice) {
		t.Fatalf("lee revokes sam's device: %v", err)
	}
	res, err := sam.RevokeDevice(ctx, hexID(sam2.devID).hex()[:10])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 || res.Groups[0] != "secret" || res.AccessVersion != 0 {
		t.Fatalf("revocation %+v", res)
	}
	if d, _ := dana.roster.Device(sam2.devID); d.RevokedAt != nil {
		t.Fatal("dana saw the revocation before syncing")
	}
	if _, err := dana.Sync(ctx); err != nil { // publishes the access set
		t.Fatal(err)
	}
	if d, _ := dana.roster.Device(sam2.devID); d.RevokedAt == nil {
		t.Fatal("sam2 not revoked")
	}
	if _, err := sam2.Sync(ctx); err == nil {
		t.Fatal("the revoked device synced")
	}
	if _, err := dana.Send(ctx, "general", "sam keeps one device"); err != nil {
		t.Fatal(err)
	}
	readsLast(t, lee, "general", "sam keeps one device")
	if n := len(sam.Devices()); n != 2 {
		t.Fatalf("sam lists %d devices", n)
	}
	// Again: nothing more to do.
	if again, err := sam.RevokeDevice(ctx, hexID(sam2.devID).hex()); err != nil || len(again.Groups) != 0 {
		t.Fatalf("again: %+v %v", again, err)
	}
}

// "Provisional grants die here too": an invite the removed person created
// is revoked by the removal, so its link no longer joins anybody.
func TestRemovalRevokesTheirInvites(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 230)
	sam, _, _ := removalScene(t, r, dana, 231)
	if err := dana.Promote(ctx, sam.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	link := invite(t, sam) // sam's invite, not yet used
	op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{})
	if err != nil || len(op.Invites) != 1 {
		t.Fatalf("remove: %v, invites %d", err, len(op.Invites))
	}
	inv, ok := dana.roster.Invite(roster.InviteID(op.Invites[0]))
	if !ok || !inv.Revoked {
		t.Fatal("sam's invite is not revoked")
	}
	if _, err := Join(ctx, r.options(t, "late", 235), link); err == nil {
		t.Fatal("sam's invite link joined somebody after sam's removal")
	}
}
