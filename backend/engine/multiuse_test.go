package engine

import (
	"testing"
	"time"

	"weald/backend/roster"
	"weald/backend/wire"
)

// Issue 17 item 5: a multi-use link admits as many people as it allows,
// each with its own device key, then no more; the inviter's list shows the
// uses and who joined; a revoked link opens nothing; the role is the
// invite's, and only admins may invite.
func TestMultiUseInviteAndRevoke(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 70)
	link, err := dana.CreateInviteWith(ctx, InviteOptions{Scopes: []string{"general"}, Role: roster.RoleMember, Expires: time.Hour, Uses: 2})
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 71)
	lee := joinWith(t, r, link, "lee", 72)
	if sam.CanInvite() || lee.CanInvite() || !dana.CanInvite() {
		t.Fatal("only the admin may invite")
	}
	// A third person with the same link: the relay carries no third key
	// (auth/grant_used), before anything is written to the roster.
	_, err = Join(ctx, r.options(t, "kim", 73), link)
	if c := codeOf(err); c != string(wire.CodeAuthGrantUsed) {
		t.Fatalf("third use: %v, want %s", err, wire.CodeAuthGrantUsed)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(dana.People()); n != 3 {
		t.Fatalf("%d people, want 3", n)
	}
	invs := dana.Invites()
	if len(invs) != 1 || invs[0].Uses != 2 || invs[0].MaxUses != 2 || invs[0].State != "used" || len(invs[0].JoinedBy) != 2 ||
		invs[0].Role != "member" || !invs[0].Mine || len(invs[0].Scopes) != 1 || invs[0].Scopes[0] != "general" {
		t.Fatalf("invites %+v", invs)
	}

	// An admin invite makes an admin; revoked before use, it opens nothing.
	adminLink, err := dana.CreateInviteWith(ctx, InviteOptions{Role: roster.RoleAdmin, Expires: time.Hour, Uses: 1})
	if err != nil {
		t.Fatal(err)
	}
	ava := joinWith(t, r, adminLink, "ava", 74)
	if !ava.CanInvite() {
		t.Fatal("an admin invite's joiner cannot invite")
	}
	spare, err := dana.CreateInviteWith(ctx, InviteOptions{Role: roster.RoleMember, Expires: time.Hour, Uses: 5})
	if err != nil {
		t.Fatal(err)
	}
	invs = dana.Invites()
	if invs[0].State != "live" || invs[0].MaxUses != 5 {
		t.Fatalf("newest invite %+v", invs[0])
	}
	if err := ava.RevokeInvite(ctx, invs[0].ID); err != nil {
		t.Fatal(err)
	}
	_, err = Join(ctx, r.options(t, "max", 75), spare)
	if c := codeOf(err); c != string(wire.CodeAuthRevoked) {
		t.Fatalf("revoked link: %v, want %s", err, wire.CodeAuthRevoked)
	}
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if st := dana.Invites()[0].State; st != "revoked" {
		t.Fatalf("state %s, want revoked", st)
	}
	if _, err := dana.CreateInviteWith(ctx, InviteOptions{Role: roster.RoleMember, Expires: time.Hour, Uses: 1001}); codeOf(err) != "invite/bad_uses" {
		t.Fatalf("1001 uses: %v", err)
	}
	if _, err := sam.CreateInviteWith(ctx, InviteOptions{Role: roster.RoleMember, Expires: time.Hour, Uses: 1}); codeOf(err) != "invite/not_admin" {
		t.Fatalf("member invites: %v", err)
	}
}
