package engine

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/roster"
	"weald/backend/wire"
)

// inject writes roster operations into the relay's store directly, past
// its append checks, as a hostile relay (or its database's owner) serves
// them.
func (r *testRelay) inject(t *testing.T, ws wire.ID, ops ...[]byte) {
	t.Helper()
	ctx := testCtx(t)
	err := r.svc.Store().Update(ctx, func(tx store.Tx) error {
		w, err := tx.LockWorkspace(ctx, ws)
		if err != nil {
			return err
		}
		for i, op := range ops {
			if err := tx.RosterAppend(ctx, ws, w.RosterIndex+uint64(i)+1, sha256.Sum256(op), op); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHostileRelayInjectsInvalidRosterOp is written from a hostile relay's
// side (issue 11 finding 2): it serves a roster with an operation signed by
// a key the roster never admitted, followed by one properly signed by the
// admin that chains onto it. Each client alerts once naming the operation,
// keeps the valid prefix, and Sync, the join loop and sending keep working;
// writing to the roster is refused with roster/untrusted. On the main before
// this change, Sync failed from then on.
func TestHostileRelayInjectsInvalidRosterOp(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	dana := createWorkspace(t, r, 70)
	ctx := testCtx(t)
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 71)
	if _, err := dana.CreateChannel(ctx, "design", roster.AdmissionParent); err != nil {
		t.Fatal(err)
	}
	valid := dana.roster.Len()

	mallory, err := identity.GenerateKey[identity.Device](seededRand(72))
	if err != nil {
		t.Fatal(err)
	}
	root := dana.roster.RootGroup()
	evil, err := roster.Sign(roster.DeviceSigner(mallory), dana.roster.Head(), time.Now(), &roster.RenameGroup{Group: root, Name: "Mallory's"})
	if err != nil {
		t.Fatal(err)
	}
	after, err := roster.Sign(roster.DeviceSigner(dana.dev), evil.Head(), time.Now(), &roster.RenameGroup{Group: root, Name: "After"})
	if err != nil {
		t.Fatal(err)
	}
	ws := wire.ID(dana.meta.Workspace)
	r.inject(t, ws, evil.Bytes(), after.Bytes())
	evilHead := evil.Head()

	for _, e := range []*Engine{sam, dana} {
		rep, err := e.Sync(ctx)
		if err != nil {
			t.Fatalf("sync after the injection: %v", err)
		}
		if e == sam && len(rep.Joined.Joined) != 1 {
			t.Errorf("sam's join loop joined %+v, want #design", rep.Joined)
		}
		if e.roster.Len() != valid {
			t.Fatalf("roster length %d, want the valid prefix of %d", e.roster.Len(), valid)
		}
		al := alertsBut(e, AlertRosterChange)
		if len(al) != 1 || al[0].Code != "roster/invalid_op" || al[0].Op == nil || al[0].Op.Index != valid ||
			al[0].Op.Head != hex.EncodeToString(evilHead[:]) || al[0].Actor != identity.DevicePrincipal(identity.DeviceIDOf(mallory.Public())).String() {
			t.Fatalf("alerts %+v", al)
		}
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(alertsBut(e, AlertRosterChange)); n != 1 {
			t.Fatalf("%d alerts after syncing again, want the one", n)
		}
	}
	if _, err := sam.Send(ctx, "design", "still here"); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Send(ctx, "general", "and here"); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ms, err := sam.Messages(ctx, "general", 0); err != nil || len(ms) != 1 || ms[0].Text != "and here" {
		t.Fatalf("sam reads %+v, %v", ms, err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if ms, err := dana.Messages(ctx, "design", 0); err != nil || len(ms) != 1 || ms[0].Text != "still here" {
		t.Fatalf("dana reads %+v, %v", ms, err)
	}
	for _, c := range sam.Channels() {
		if c.Name == "After" || c.Name == "Mallory's" {
			t.Fatalf("a rename past the invalid operation was applied: %+v", c)
		}
	}
	if _, err := dana.CreateChannel(ctx, "later", roster.AdmissionParent); !errors.Is(err, ErrRosterUntrusted) {
		t.Fatalf("roster write past an invalid operation: %v, want roster/untrusted", err)
	}
	// The alert is kept across a restart.
	opts := sam.opts
	sam.Close()
	sam2, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sam2.Close()
	if al := sam2.Status().Alerts; len(al) != 1 || al[0].Op.Index != valid {
		t.Fatalf("alerts after reopening: %+v", al)
	}
}

// TestProbationaryDeviceIsNoAdmin (issue 11 finding 7): a device recovered
// with the admin's phrase is on probation; the admin's access set lists it
// without admin, and the relay refuses an access set it signs even when a
// set marks it admin (as the main before this change did, letting a stolen
// phrase take the workspace over).
func TestProbationaryDeviceIsNoAdmin(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 80)
	words, err := dana.TakeRecoveryPhrase(ctx)
	if err != nil || words == "" {
		t.Fatalf("phrase: %v", err)
	}
	rk := mustRecoveryKeys(t, words)
	thief, pop := newRecoveredDevice(t, dana, identity.UserID(dana.meta.User), 81)
	op, err := roster.Sign(roster.RecoverySigner(rk.Signature), dana.roster.Head(), time.Now(),
		&roster.RecoverDevice{User: identity.UserID(dana.meta.User), Device: thief.Public(), Possession: pop})
	if err != nil {
		t.Fatal(err)
	}
	ws := wire.ID(dana.meta.Workspace)
	rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
	if _, err := r.svc.RosterAppend(ctx, ws, rec, wire.ID(dana.roster.Head()), op.Bytes()); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil { // the admin's duty publishes the access set
		t.Fatal(err)
	}
	set, err := r.svc.AccessSet(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := set.Device(thief.Public().Bytes())
	if !ok || d.Admin {
		t.Fatalf("the recovered device in the access set: present %v, admin %v", ok, d.Admin)
	}
	// Even a set that marks it admin does not let it publish.
	forged := set
	forged.Version++
	forged.Devices = append([]wire.DeviceKey(nil), set.Devices...)
	for i := range forged.Devices {
		if bytes.Equal(forged.Devices[i].Pub, thief.Public().Bytes()) {
			forged.Devices[i].Admin = true
		}
	}
	wire.SignAccessSet(&forged, dana.edKey)
	if _, err := r.svc.Publish(ctx, ws, forged); err != nil {
		t.Fatal(err)
	}
	takeover := forged
	takeover.Version++
	takeover.Devices = []wire.DeviceKey{{Pub: thief.Public().Bytes(), User: wire.ID(dana.meta.User), Admin: true}}
	wire.SignAccessSet(&takeover, ed25519.NewKeyFromSeed(thief.Seed()))
	_, err = r.svc.Publish(ctx, ws, takeover)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeAuthNotAdmin {
		t.Fatalf("a probationary device published an access set: %v", err)
	}
}

// TestWelcomeJoinerSendsRecoveryWrap (issue 11 finding 7): a device added
// to a closed channel by Welcome sends its user's recovery.wrap for the
// epoch it joined, openable with the phrase, as a self-joiner does (on the
// main before this change it sent none).
func TestWelcomeJoinerSendsRecoveryWrap(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 90)
	if _, err := dana.CreateChannel(ctx, "secret", roster.AdmissionExplicit); err != nil {
		t.Fatal(err)
	}
	sam := inviteAndJoin(t, r, dana, "sam", 91)
	words, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil { // uploads key packages
		t.Fatal(err)
	}
	if _, err := dana.AddMembers(ctx, "secret", []identity.DeviceID{sam.DeviceID()}); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil { // nothing more to send
		t.Fatal(err)
	}
	ph, err := identity.ParseRecoveryPhrase(words)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := identity.DeriveRecoveryKeys(ph)
	priv, _ := keys.HPKE.Key().Bytes()
	gi, err := sam.resolveChannel("secret")
	if err != nil {
		t.Fatal(err)
	}
	id := gi.Policy.Group
	sam.mu.Lock()
	envs, err := sam.fetchAll(ctx, wire.ID(id), 0)
	epoch := sam.groups[id].mls.Epoch()
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	var opened []uint64
	for _, se := range envs {
		if se.Envelope.Kind != wire.KindRecoveryWrap || se.Envelope.Author != wire.ID(sam.DeviceID()) {
			continue
		}
		w, err := groups.DecodeRecoveryWrap(se.Envelope.CT)
		if err != nil {
			t.Fatal(err)
		}
		p, err := groups.OpenRecoveryWrap(priv, [32]byte(id), &w)
		if err != nil || len(p.GroupInfo) == 0 {
			t.Fatalf("wrap: %v", err)
		}
		opened = append(opened, p.Epoch)
	}
	if len(opened) != 1 || opened[0] != epoch {
		t.Fatalf("sam's recovery wraps in the closed channel at epochs %v, want one at %d", opened, epoch)
	}
}

// TestAccessSetRepublishedDaily (issue 11 finding 7): an admin that syncs
// republishes an unchanged access set once the relay's copy is a day old,
// so "access set fresher than 7 days" holds while an admin is online; a
// younger unchanged set is left alone (on the main before this change it
// was never republished).
func TestAccessSetRepublishedDaily(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	r := startRelayWith(t, relay.Config{Clock: clock})
	ctx := testCtx(t)
	opts := r.options(t, "dana", 95)
	opts.Clock = clock
	dana, err := CreateWorkspace(ctx, opts, "Acme", r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer dana.Close()
	ws := wire.ID(dana.meta.Workspace)
	version := func() uint64 {
		cur, err := r.svc.CurrentAccessSet(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		return cur.Set.Version
	}
	v := version()
	advance(23 * time.Hour)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := version(); got != v {
		t.Fatalf("an unchanged set younger than a day was republished: version %d → %d", v, got)
	}
	advance(2 * time.Hour)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	cur, err := r.svc.CurrentAccessSet(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Set.Version != v+1 || int64(cur.AcceptedAt) != clock().Unix() {
		t.Fatalf("after a day: version %d accepted at %d, want %d at %d", cur.Set.Version, cur.AcceptedAt, v+1, clock().Unix())
	}
}
