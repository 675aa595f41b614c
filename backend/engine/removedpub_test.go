package engine

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/wire"
)

// leafOf reports whether e's state of group holds a leaf of device.
func leafOf(e *Engine, group identity.GroupID, device identity.DeviceID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, m := range e.groups[group].mls.Members() {
		if bytes.Equal(m.Credential.Identity, device[:]) {
			return true
		}
	}
	return false
}

// spec/channels.md "Interaction with removal": "the rotated publication
// key means a removed principal cannot unwrap the next GroupInfo even if
// it ignores its own roster state" (spec-coverage row 45). Written from the
// attacker's side: sam is removed, and dana's removal is stopped right
// after its rotations, before the access set drops sam, so sam's device
// (which kept every MLS state and enrolment secret it had and never reads
// the roster again) can still fetch. The next groupinfo.publish and
// history.publish of #general are sealed under a root epoch sam holds no
// secret of, and none of its secrets opens them, even after it runs the
// root's Remove commit through its stale state (which keeps no secret of
// that epoch). Its external commit from the newest GroupInfo it can open
// is stale and changes nobody's group; one from a GroupInfo leaked to it
// is refused before any merge (its leaf is bound to a revoked device). It
// can neither drop nor overwrite dana's recovery directory, nor its own.
// Once the removal finishes, the relay refuses it altogether.
func TestRemovedDeviceCannotOpenTheNextGroupInfo(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 250)
	sam := joinWith(t, r, invite(t, dana), "sam", 251)
	lee := joinWith(t, r, invite(t, dana), "lee", 252)
	for _, e := range []*Engine{sam, lee, dana, sam} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	general := identity.GroupID(mustHex(t, chanID(t, dana, "general")))
	sam.mu.Lock()
	root := sam.roster.RootGroup()
	samRoot := sam.groups[root].mls.Epoch()
	samSecrets := map[string][]byte{}
	for k, v := range sam.groups[root].rec.Enrol {
		samSecrets[k] = v
	}
	sam.mu.Unlock()

	stop := errors.New("stopped after the rotations")
	dana.opts.Crash = func(step string) error {
		if step == "removal/rotate" || step == "removal/wraps" {
			return stop
		}
		return nil
	}
	if _, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); !errors.Is(err, stop) {
		t.Fatalf("remove: %v", err)
	}
	danaOwner := ownerOf(t, dana)
	dana.mu.Lock()
	danaRoot := dana.groups[root].mls.Epoch()
	rotated := dana.groups[general].mls.Epoch()
	leaked, err := dana.groups[general].mls.GroupInfo(true)
	dana.mu.Unlock()
	if err != nil || danaRoot <= samRoot {
		t.Fatalf("the root was not rotated (%d, sam at %d): %v", danaRoot, samRoot, err)
	}

	// Sam, from here on, never reads the roster.
	func() {
		sam.mu.Lock()
		defer sam.mu.Unlock()
		attack(t, sam, general, root, samRoot, samSecrets, leaked, danaOwner)
	}()
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil && !errors.Is(err, stop) {
			t.Fatal(err)
		}
		if leafOf(e, general, sam.devID) {
			t.Fatalf("%s keeps sam's leaf in #general", e.devID.ShortString())
		}
	}
	// The stale join changed nothing; the leaked one was refused before any
	// merge (its leaf is bound to a revoked device), with an alert.
	dana.mu.Lock()
	after := dana.groups[general].mls.Epoch()
	var refused bool
	for _, a := range dana.alerts {
		refused = refused || (a.Code == "leaf/unbound" && strings.Contains(a.Message, sam.devID.ShortString()))
	}
	dana.mu.Unlock()
	if after != rotated || !refused {
		t.Fatalf("epoch %d (%d after the rotation), the leaked join refused with an alert: %v", after, rotated, refused)
	}
	// The removal finishes: the relay refuses sam's key from then on.
	dana.opts.Crash = nil
	if op, err := dana.Remove(ctx, sam.meta.User.hex(), RemoveOptions{}); err != nil || op.Receipt == nil {
		t.Fatalf("resume: %v", err)
	}
	sam.mu.Lock()
	defer sam.mu.Unlock()
	if sam.client != nil {
		sam.client.Close()
		sam.client = nil
	}
	var we *wire.Error
	if err := sam.connect(ctx); !errors.As(err, &we) || we.Code != wire.CodeAuthRevoked {
		t.Fatalf("sam connects after the removal: %v", err)
	}
}

// attack is the removed device's part (e.mu held): see
// TestRemovedDeviceCannotOpenTheNextGroupInfo.
func attack(t *testing.T, sam *Engine, general, root identity.GroupID, samRoot uint64, samSecrets map[string][]byte, leaked []byte, danaOwner wire.ID) {
	t.Helper()
	ctx := testCtx(t)
	if err := sam.connect(ctx); err != nil {
		t.Fatal(err)
	}
	// The next bundles of #general: sealed under the new root epoch, which
	// no secret of sam's opens.
	lt, err := sam.client.FetchLatest(ctx, wire.ID(general), wire.KindGroupInfoPublish, wire.KindHistoryPublish)
	if err != nil || len(lt.Envelopes) != 2 {
		t.Fatalf("sam fetches the next bundles: %+v %v", lt, err)
	}
	var danaRoot uint64
	for _, se := range lt.Envelopes {
		sb, err := groups.DecodeSealedBundle(se.Envelope.CT)
		if err != nil || sb.RootEpoch <= samRoot {
			t.Fatalf("%s sealed under root epoch %d (sam at %d): %v", se.Envelope.Kind, sb.RootEpoch, samRoot, err)
		}
		danaRoot = sb.RootEpoch
		kind := groups.BundleGroupInfo
		if se.Envelope.Kind == wire.KindHistoryPublish {
			kind = groups.BundleHistory
		}
		for epoch, secret := range samSecrets {
			if _, err := groups.OpenBundle(kind, secret, [32]byte(general), sb); err == nil {
				t.Fatalf("sam's root epoch %s secret opens the next %s", epoch, se.Envelope.Kind)
			}
		}
	}
	// Sam runs the root's log, its Remove commit included, through its
	// stale state: still no secret of the new epoch, and the newest bundles
	// it can open are from before the removal.
	_ = sam.catchUp(ctx, sam.groups[root])
	if sam.groups[root].mls.Active() {
		t.Fatal("the removed device still holds an active root state")
	}
	if _, ok := sam.enrolSecret(danaRoot); ok {
		t.Fatal("the removed device keeps an enrolment secret of the epoch that removed it")
	}
	b, err := sam.allBundles(ctx, general)
	if err != nil {
		t.Fatal(err)
	}
	for _, ob := range []*openedBundle{b.info, b.history} {
		if ob != nil && ob.rootEpoch > samRoot {
			t.Fatalf("sam opened a bundle of root epoch %d", ob.rootEpoch)
		}
	}
	if b.info == nil {
		t.Fatal("sam opens no GroupInfo at all: the stale external commit is not tried")
	}
	pol, _ := sam.roster.Group(general)
	// Back in by external commit from the newest GroupInfo it can open: that
	// epoch is taken by the rotation, the join loses.
	gip, err := groups.DecodeGroupInfoPlain(b.info.plain)
	if err != nil {
		t.Fatal(err)
	}
	g := &group{rec: sam.groups[general].rec}
	m, msg, err := sam.externalJoin(general, gip.GroupInfo, groups.PathSelfJoin, &pol.Policy)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := sam.sendJoin(ctx, g, msg, m, nil, nil)
	if err != nil {
		t.Fatalf("the relay still takes sam's envelopes before the access set: %v", err)
	}
	if lost, err := sam.lostRace(ctx, general, nil, 0, seq, m.Epoch()-1); err != nil || !lost {
		t.Fatalf("sam's stale join did not lose: %v %v", lost, err)
	}
	// From a GroupInfo of the current epoch leaked to it: the join lands
	// in the log; the members refuse it (checked by the caller).
	m2, msg2, err := sam.externalJoin(general, leaked, groups.PathSelfJoin, &pol.Policy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.sendJoin(ctx, g, msg2, m2, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Dana's recovery directory, and its own: sam can neither name its
	// wrap in them nor drop them.
	rec, _ := sam.recoveryKeys() // its stale roster still holds it live
	for _, owner := range []wire.ID{danaOwner, wire.ID(rec.ID)} {
		err := sam.client.RecoveryDirPut(ctx, []wire.DirPut{{Owner: owner, Group: wire.ID(general), Seq: seq + 1}})
		if !errors.As(err, new(*wire.Error)) || err.(*wire.Error).Code != wire.CodeDirNotOwner {
			t.Fatalf("sam names its wrap in a directory: %v", err)
		}
		d := wire.RecoveryDirDrop{Workspace: wire.ID(sam.meta.Workspace), Owner: owner}
		d.Sign(sam.edKey)
		if _, err := sam.client.RecoveryDirDrop(ctx, d); !errors.As(err, new(*wire.Error)) || err.(*wire.Error).Code != wire.CodeDirNotAllowed {
			t.Fatalf("sam drops a directory: %v", err)
		}
	}
}
