package engine

import (
	"strings"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// viewsWith lists e's alert views with code.
func viewsWith(t *testing.T, e *Engine, code string) []AlertView {
	t.Helper()
	var out []AlertView
	for _, v := range e.AlertViews(testCtx(t)) {
		if v.Code == code {
			out = append(out, v)
		}
	}
	return out
}

// TestAlertViewTone (docs/protocol/desktop-ui.md "Security"): the tone of
// a roster-change alert follows what the operation shows. A join by
// another admin's invite and a device paired by its own person are
// notices naming who admitted whom, and so is a person replacing their
// own recovery phrase; a role change stays a security alert.
// A device recovered with a phrase is one approval request (the
// roster-change alert of the same operation folded into it) that an admin
// admitted before it can approve and revoke, and that asks the phrase's
// owner to rotate it; once approved, Approve is gone.
func TestAlertViewTone(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 140)
	sam := inviteAndJoin(t, r, dana, "sam", 141)
	if err := sam.SetDisplayName(ctx, "Sam"); err != nil {
		t.Fatal(err)
	}
	if err := dana.Promote(ctx, sam.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if vs := viewsWith(t, sam, string(AlertRosterChange)); len(vs) != 1 || vs[0].Tone != ToneAlert || vs[0].ActorDevice != hexID(dana.devID).hex() {
		t.Fatalf("Sam's view of his promotion by Dana: %+v", vs)
	}

	// Sam pairs a second device: Dana is told, as a notice.
	p, err := sam.PairDevice(ctx, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	sam2 := joinWith(t, r, p.Link, "sam-laptop", 142)
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	vs := viewsWith(t, dana, string(AlertRosterChange))
	if len(vs) != 1 || vs[0].Tone != ToneNotice || !strings.Contains(vs[0].Summary, "Sam added a new device ("+sam2.devID.ShortString()+")") ||
		vs[0].ActorName != "Sam" {
		t.Fatalf("Dana's view of Sam's pairing: %+v", vs)
	}

	// Sam invites Lee: a notice for Dana naming both. Before Lee's name
	// reaches Dana it names Lee by id and says that a name is pending;
	// after, it names Lee and nothing is pending.
	lee := inviteAndJoin(t, r, sam, "lee", 143)
	joinedView := func() *AlertView {
		t.Helper()
		if _, err := dana.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		vs = viewsWith(t, dana, string(AlertRosterChange))
		for i := range vs {
			if strings.Contains(vs[i].Summary, "admitted by Sam's invite") {
				return &vs[i]
			}
		}
		t.Fatalf("Dana's view of Lee's join by Sam's invite: %+v", vs)
		return nil
	}
	unnamed := "user " + lee.meta.User.hex()[:8] + " joined, admitted by Sam's invite."
	if j := joinedView(); j.Summary != unnamed || !j.NamesPending {
		t.Fatalf("before Lee's name: %+v, want %q and a name pending", j, unnamed)
	}
	if err := lee.SetDisplayName(ctx, "Lee"); err != nil {
		t.Fatal(err)
	}
	joined := joinedView()
	if joined.Summary != "Lee joined, admitted by Sam's invite." || joined.NamesPending || joined.Tone != ToneNotice || joined.ActorDevice != hexID(lee.devID).hex() {
		t.Fatalf("Dana's view of Lee's join by Sam's invite: %+v", joined)
	}

	// Sam makes Lee an admin: a security alert for Dana.
	if err := sam.Promote(ctx, lee.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	promoted := 0
	for _, v := range viewsWith(t, dana, string(AlertRosterChange)) {
		if v.Summary == "Sam made Lee an admin." {
			promoted++
			if v.Tone != ToneAlert || v.ActorName != "Sam" {
				t.Fatalf("a role change by another admin: %+v", v)
			}
		}
	}
	if promoted != 1 {
		t.Fatalf("Dana's views after Sam promoted Lee: %+v", dana.AlertViews(ctx))
	}

	// Sam rotates his recovery phrase: a notice for Dana.
	if _, err := sam.RotateRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	rotated := 0
	for _, v := range viewsWith(t, dana, string(AlertRosterChange)) {
		if strings.HasPrefix(v.Summary, "Sam replaced their recovery phrase") && v.Tone == ToneNotice {
			rotated++
		}
	}
	if rotated != 1 {
		t.Fatalf("Dana's views after Sam rotated his phrase: %+v", dana.AlertViews(ctx))
	}

	// Somebody holding Lee's phrase admits a device of theirs.
	words, err := lee.TakeRecoveryPhrase(ctx)
	if err != nil || words == "" {
		t.Fatalf("phrase: %q %v", words, err)
	}
	ph, err := identity.ParseRecoveryPhrase(words)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := identity.DeriveRecoveryKeys(ph)
	if err != nil {
		t.Fatal(err)
	}
	thief, err := identity.GenerateKey[identity.Device](seededRand(144))
	if err != nil {
		t.Fatal(err)
	}
	pop, err := roster.DevicePossession(dana.wsID(), identity.UserID(lee.meta.User), thief)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dana.syncRoster(ctx); err != nil {
		t.Fatal(err)
	}
	op, err := roster.Sign(roster.RecoverySigner(rk.Signature), dana.roster.Head(), time.Now(),
		&roster.RecoverDevice{User: identity.UserID(lee.meta.User), Device: thief.Public(), Possession: pop})
	if err != nil {
		t.Fatal(err)
	}
	rec := wire.AuthOK{Kind: wire.PrincipalRecovery, Principal: wire.KeyID(rk.Signature.Public().Bytes())}
	if _, err := r.svc.RosterAppend(ctx, wire.ID(dana.meta.Workspace), rec, wire.ID(dana.roster.Head()), op.Bytes()); err != nil {
		t.Fatal(err)
	}
	did := hexID(identity.DeviceIDOf(thief.Public())).hex()
	for _, e := range []*Engine{dana, lee} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	req := viewsWith(t, dana, string(AlertRecoveredDevice))
	if len(req) != 1 || !req[0].Approve || !req[0].Revoke || req[0].Rotate || req[0].Device != did || req[0].DeviceName != "Lee" ||
		req[0].ActorName != "Lee's recovery phrase" || req[0].Tone != ToneAlert {
		t.Fatalf("Dana's approval request: %+v", req)
	}
	for _, v := range viewsWith(t, dana, string(AlertRosterChange)) {
		if v.Device == did {
			t.Fatalf("the roster change of the recovery is shown beside its approval request: %+v", v)
		}
	}
	if !dana.ProbationApprovable()[did] || len(sam2.ProbationApprovable()) != 0 {
		t.Fatalf("approvable: by Dana %v, by Sam's unsynced laptop %v", dana.ProbationApprovable(), sam2.ProbationApprovable())
	}
	// Lee, an admin admitted before the device, may approve it too (the roster's rule).
	var mine *AlertView
	for _, v := range lee.AlertViews(ctx) {
		if v.Device == did {
			mine = &v
		}
	}
	if mine == nil || !mine.Rotate || !mine.Revoke || !mine.Approve || !strings.HasPrefix(mine.Summary, "Your recovery phrase was used") {
		t.Fatalf("Lee's view of his phrase spent: %+v", lee.AlertViews(ctx))
	}

	if _, err := dana.ApproveDevice(ctx, did); err != nil {
		t.Fatal(err)
	}
	if req := viewsWith(t, dana, string(AlertRecoveredDevice)); len(req) != 1 || req[0].Approve || !req[0].Revoke || req[0].ID == "" {
		t.Fatalf("the request once approved: %+v", req)
	}
	if dana.ProbationApprovable()[did] {
		t.Fatal("still approvable once approved")
	}
}

// TestRemovalIsANoticeForMembers (docs/protocol/desktop-ui.md "Security",
// tone): Dana, an admin, removes Lee. Sam, a member, is told with a notice
// naming both; Ada, another admin, keeps the security alert (an admin's
// removal is what a compromised admin device would do too).
func TestRemovalIsANoticeForMembers(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 246)
	sam := inviteAndJoin(t, r, dana, "sam", 247)
	lee := inviteAndJoin(t, r, dana, "lee", 248)
	ada := inviteAndJoin(t, r, dana, "ada", 249)
	for e, name := range map[*Engine]string{dana: "Dana", lee: "Lee"} {
		if err := e.SetDisplayName(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := dana.Promote(ctx, ada.meta.User.hex()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{sam, ada, dana} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dana.Remove(ctx, lee.meta.User.hex(), RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	for e, want := range map[*Engine]AlertTone{sam: ToneNotice, ada: ToneAlert} {
		if _, err := e.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, v := range viewsWith(t, e, string(AlertRosterChange)) {
			if v.Summary == "Dana removed Lee from the workspace." {
				n++
				if v.Tone != want || v.ActorName != "Dana" {
					t.Fatalf("%s's view of the removal: %+v, want tone %s", e.meta.User.hex()[:8], v, want)
				}
			}
		}
		if n != 1 {
			t.Fatalf("%s's views after the removal: %+v", e.meta.User.hex()[:8], e.AlertViews(ctx))
		}
	}
}
