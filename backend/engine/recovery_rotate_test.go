package engine

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// recoverWith signs a recover-device of user with the phrase's recovery
// key for a fresh device and appends it at the relay as that recovery
// principal would; it returns the relay's answer.
func recoverWith(t *testing.T, r *testRelay, e *Engine, words string, user identity.UserID, seed byte) (identity.DevicePrivate, error) {
	t.Helper()
	ctx := testCtx(t)
	rk := mustRecoveryKeys(t, words)
	dev, pop := newRecoveredDevice(t, e, user, seed)
	if _, err := e.syncRoster(ctx); err != nil {
		t.Fatal(err)
	}
	op, err := roster.Sign(roster.RecoverySigner(rk.Signature), e.roster.Head(), time.Now(),
		&roster.RecoverDevice{User: user, Device: dev.Public(), Possession: pop})
	if err != nil {
		t.Fatal(err)
	}
	rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
	_, err = r.svc.RosterAppend(ctx, wire.ID(e.meta.Workspace), rec, wire.ID(e.roster.Head()), op.Bytes())
	return dev, err
}

// TestRecoveryRotationRevokesTheLeakedPhrase (spec/lifecycle.md "Key
// compromise": a recovery phrase leaks): Sam rotates his phrase. The old
// recovery principal is revoked in the roster and gone from the access
// set, so whoever holds the old phrase can no longer admit a device with
// it (the relay refuses the recover-device); every group Sam is in has a
// recovery.wrap for the new key at its current epoch, which the new phrase
// opens; a second rotation replaces the new phrase in turn. On the main
// this started from there was no rotation: the old phrase admitted a
// device.
func TestRecoveryRotationRevokesTheLeakedPhrase(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 130)
	sam := inviteAndJoin(t, r, dana, "sam", 131)
	old, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil || old == "" {
		t.Fatalf("phrase: %v", err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	oldRec, _ := sam.recoveryKeys()
	res, err := sam.RotateRecovery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Phrase == "" || res.Phrase == old || len(strings.Fields(res.Phrase)) != 24 || res.Revoked != oldRec.ID.String() || res.Rewrapped < 2 {
		t.Fatalf("rotation: %+v", res)
	}
	if res.AccessVersion != 0 {
		t.Fatalf("a member published the access set: %d", res.AccessVersion)
	}
	if _, err := dana.Sync(ctx); err != nil { // the admin's duty publishes it
		t.Fatal(err)
	}
	set, err := r.svc.AccessSet(ctx, wire.ID(dana.meta.Workspace))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range set.Recovery {
		if bytes.Equal(k, oldRec.Public.Bytes()) {
			t.Fatal("the access set still lists the old recovery key")
		}
	}
	// The thief with the old phrase.
	if _, err := recoverWith(t, r, dana, old, identity.UserID(sam.meta.User), 132); err == nil {
		t.Fatal("the old phrase admitted a device after the rotation")
	} else if we := (*wire.Error)(nil); !errors.As(err, &we) || !strings.Contains(err.Error(), "roster/actor_revoked") {
		t.Fatalf("the old phrase's recover-device: %v", err)
	}
	// The new phrase opens a wrap of #general at its current epoch.
	ph, err := identity.ParseRecoveryPhrase(res.Phrase)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := identity.DeriveRecoveryKeys(ph)
	priv, _ := keys.HPKE.Key().Bytes()
	general := roster.GeneralGroupID(sam.wsID())
	sam.mu.Lock()
	envs, err := sam.fetchAll(ctx, wire.ID(general), 0)
	epoch := sam.groups[general].mls.Epoch()
	sam.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	current := false
	for _, se := range envs {
		if se.Envelope.Kind != wire.KindRecoveryWrap || se.Envelope.Author != wire.ID(sam.DeviceID()) {
			continue
		}
		w, err := groups.DecodeRecoveryWrap(se.Envelope.CT)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := groups.OpenRecoveryWrap(priv, [32]byte(general), &w); err == nil && p.Epoch == epoch {
			current = true
		}
	}
	if !current {
		t.Fatalf("no wrap of #general at epoch %d opens with the new phrase", epoch)
	}
	// Dana was told (a revocation she did not perform).
	if a := alertsWith(dana, AlertRosterChange); len(a) != 1 || !strings.Contains(a[0].Message, "revoked the recovery phrase") {
		t.Fatalf("Dana's roster-change alerts: %+v", dana.Status().Alerts)
	}
	again, err := sam.RotateRecovery(ctx)
	if err != nil || again.Phrase == res.Phrase || again.Revoked != res.Recovery {
		t.Fatalf("a second rotation: %+v %v", again, err)
	}
}

// A Revoke's revoked_at is read while its body is built; the operation's
// own time must not be older (roster refuses "revoked_at is after the
// operation's own time"). With a clock that moves a millisecond per read,
// 009c259's order (operation time read before the body) refused every
// revocation; it showed as a flake in -race runs, where reads straddled a
// millisecond.
func TestRevokeIsSignedNoEarlierThanItsRevokedAt(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 150)
	sam := inviteAndJoin(t, r, dana, "sam", 151)
	if _, err := sam.TakeRecoveryPhrase(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tick := time.Now()
	sam.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tick = tick.Add(time.Millisecond)
		return tick
	}
	if _, err := sam.RotateRecovery(ctx); err != nil {
		t.Fatal(err)
	}
}
