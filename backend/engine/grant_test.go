package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"weald/backend/groups"
	"weald/backend/roster"
	"weald/backend/wire"
)

// relayGrants reads the relay's current access set through e's connection.
func relayGrants(t *testing.T, e *Engine) []wire.ID {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	set, err := e.client.AccessSet(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return set.Grants
}

// An admin who did not create an invite computes its grant from the roster
// alone: revoking it and republishing the access set voids the link.
func TestAnotherAdminVoidsAnInvitesGrant(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	dana := createWorkspace(t, r, 50)
	adminLink, err := dana.CreateInvite(ctx, nil, roster.RoleAdmin, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ann := joinWith(t, r, adminLink, "ann", 51)
	if !ann.roster.IsAdmin(ann.devID) {
		t.Fatal("ann is not an admin")
	}
	link, err := dana.CreateInvite(ctx, nil, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	l, err := groups.ParseLink(link)
	if err != nil {
		t.Fatal(err)
	}
	grant := wire.ID(l.Secret.Grant())
	if _, err := ann.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	info, ok := ann.roster.Invite(l.Invite)
	if !ok || wire.ID(info.Invite.Grant) != grant || info.CreatedBy == ann.devID {
		t.Fatalf("roster grant %x is not the relay's %x (found %v)", info.Invite.Grant, grant, ok)
	}
	if !slices.Contains(relayGrants(t, ann), grant) {
		t.Fatal("the new invite's grant is not in the access set")
	}
	if err := ann.RevokeInvite(ctx, hexID(l.Invite).hex()); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(relayGrants(t, ann), grant) {
		t.Fatal("the revoked invite's grant is still in the access set")
	}
	if err := ann.RevokeInvite(ctx, hexID(l.Invite).hex()); err == nil {
		t.Fatal("an invite was revoked twice")
	}
	// The link no longer opens the relay.
	_, err = Join(ctx, r.options(t, "lee", 52), link)
	if err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("join with a revoked invite: %v", err)
	}
	// Dana's own republication keeps it voided.
	if _, err := dana.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(relayGrants(t, dana), grant) {
		t.Fatal("the creator's sync put the revoked grant back")
	}
}
