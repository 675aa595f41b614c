package engine

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// TestProbationaryTakeoverIsRefusedAndAdminsAlerted (spec/lifecycle.md
// "Key compromise" and "Detection"), from the attacker's side: a thief
// holding Sam's recovery phrase admits a device of theirs (on probation),
// connects to the relay with it once an admin's client published it, and
// publishes an access set making itself the only admin. The relay refuses
// it (auth/not_admin) and keeps it; both pre-existing admins' clients read
// it on their next sync and raise access/takeover naming the device and
// the recovery principal spent; a member is not told (it cannot act), and
// the access set did not move. On the main this started from the
// publication was refused but nobody was told.
func TestProbationaryTakeoverIsRefusedAndAdminsAlerted(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 140)
	var sam, lee *Engine
	for i, name := range []string{"sam", "lee"} {
		e := inviteAndJoin(t, r, dana, name, 141+byte(i))
		if i == 0 {
			sam = e
		} else {
			lee = e
		}
	}
	words, err := sam.TakeRecoveryPhrase(ctx)
	if err != nil || words == "" {
		t.Fatalf("phrase: %v", err)
	}
	if err := dana.Promote(ctx, sam.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	thief, err := recoverWith(t, r, dana, words, identity.UserID(sam.meta.User), 143)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil { // publishes the access set with the thief's device
		t.Fatal(err)
	}
	ws := wire.ID(dana.meta.Workspace)
	before, err := r.svc.AccessSet(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(thief.Seed())
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: r.URL, Workspace: ws, Credential: relayclient.KeyCredential(key, wire.PrincipalDevice)})
	if err != nil {
		t.Fatalf("the recovered device cannot connect: %v", err)
	}
	defer c.Close()
	takeover := wire.AccessSet{Workspace: ws, Version: before.Version + 1,
		Devices: []wire.DeviceKey{{Pub: thief.Public().Bytes(), User: wire.ID(sam.meta.User), Admin: true}}}
	wire.SignAccessSet(&takeover, key)
	_, err = c.PublishAccessSet(ctx, takeover)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeAuthNotAdmin {
		t.Fatalf("the takeover set: %v", err)
	}
	if after, _ := r.svc.AccessSet(ctx, ws); after.Version != before.Version {
		t.Fatalf("the access set moved to %d", after.Version)
	}
	did := identity.DeviceIDOf(thief.Public())
	rec := identity.RecoveryIDOf(mustRecoveryPub(t, words))
	for _, e := range []*Engine{dana, sam} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		got := alertsWith(e, AlertTakeover)
		if len(got) != 1 || got[0].Actor != identity.DevicePrincipal(did).String() ||
			!strings.Contains(got[0].Message, did.ShortString()) || !strings.Contains(got[0].Message, rec.ShortString()) ||
			!strings.Contains(got[0].Message, "attempted takeover") {
			t.Fatalf("%s's takeover alerts: %+v", e.meta.Name, got)
		}
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(alertsWith(e, AlertTakeover)); n != 1 {
			t.Fatalf("%s: %d takeover alerts after another sync, want 1", e.meta.Name, n)
		}
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(alertsWith(lee, AlertTakeover)); n != 0 {
		t.Fatalf("a member got %d takeover alerts", n)
	}
	// A set signed by a key that is no device of the workspace is not kept.
	stranger := ed25519.NewKeyFromSeed(make([]byte, 32))
	junk := takeover
	wire.SignAccessSet(&junk, stranger)
	if _, err := c.PublishAccessSet(ctx, junk); err == nil {
		t.Fatal("a stranger's set was accepted")
	}
	if ref, err := r.svc.AccessRefusals(ctx, ws, 0); err != nil || len(ref.Refusals) != 1 {
		t.Fatalf("refusals kept: %+v %v", ref, err)
	}
}

func mustRecoveryPub(t *testing.T, words string) identity.RecoveryPublic {
	t.Helper()
	return mustRecoveryKeys(t, words).Signature.Public()
}

// TestDemotedAdminsCrossedPublicationIsNoTakeover: an admin's device that
// publishes an access set from the roster it holds, after its person was
// demoted at the relay but before it read that, is refused (the relay's
// roster says it is no admin) and the refusal is kept. That is a
// publication that crossed a demotion, not a takeover: the other admins are
// not told of one. A member's device that never held admin authority and
// publishes a set making itself the admin is still an attempted takeover
// (seen from the attacker's side: the set the relay kept is checked by
// every admin against the roster it holds). On the main this started from,
// Dana was told Lee's device attempted a takeover (an app test met it).
func TestDemotedAdminsCrossedPublicationIsNoTakeover(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 150)
	lee := inviteAndJoin(t, r, dana, "lee", 151)
	kim := inviteAndJoin(t, r, dana, "kim", 152)
	leeUser := lee.meta.User.hex()
	if err := dana.Promote(ctx, leeUser); err != nil {
		t.Fatal(err)
	}
	if _, err := lee.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !lee.roster.IsAdmin(lee.devID) {
		t.Fatal("lee is no admin after the promotion")
	}
	if err := dana.Demote(ctx, leeUser); err != nil {
		t.Fatal(err)
	}
	// Lee's device has not read the demotion: its set lists itself as an
	// admin, and the relay refuses it.
	var we *wire.Error
	if err := lee.publishAccessSet(ctx); !errors.As(err, &we) || we.Code != wire.CodeAuthNotAdmin {
		t.Fatalf("lee's set after the demotion: %v", err)
	}
	ws := wire.ID(dana.meta.Workspace)
	if ref, err := r.svc.AccessRefusals(ctx, ws, 0); err != nil || len(ref.Refusals) != 1 {
		t.Fatalf("refusals kept: %+v %v", ref, err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := alertsWith(dana, AlertTakeover); len(got) != 0 {
		t.Fatalf("dana was told of a takeover by the demoted admin's device: %+v", got)
	}

	// Kim's device, which never held admin authority, signs a set that
	// makes it the only admin.
	before, err := r.svc.AccessSet(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(kim.meta.DeviceSeed)
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: r.URL, Workspace: ws, Credential: relayclient.KeyCredential(key, wire.PrincipalDevice)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	takeover := wire.AccessSet{Workspace: ws, Version: before.Version + 1,
		Devices: []wire.DeviceKey{{Pub: key.Public().(ed25519.PublicKey), User: wire.ID(kim.meta.User), Admin: true}}}
	wire.SignAccessSet(&takeover, key)
	if _, err := c.PublishAccessSet(ctx, takeover); !errors.As(err, &we) || we.Code != wire.CodeAuthNotAdmin {
		t.Fatalf("kim's takeover set: %v", err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := alertsWith(dana, AlertTakeover)
	if len(got) != 1 || got[0].Actor != identity.DevicePrincipal(kim.devID).String() || !strings.Contains(got[0].Message, "attempted takeover") {
		t.Fatalf("dana's takeover alerts after kim's set: %+v", got)
	}
}
