package engine

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// A principal of another workspace on the same relay learns a victim's
// workspace id before the victim bootstraps (issue 11 finding 4,
// docs/security.md section 4) and writes first into every group id derivable
// from it: the root, #general, #activity and a DM id of that workspace. The
// relay keys groups by (workspace, group), so the victim still bootstraps,
// its logs hold nothing of the attacker's, and a member it invites joins
// and reads #general. On the main this started from, the victim's first
// send into its root was refused (bad_request/wrong_workspace) and
// CreateWorkspace failed.
func TestAnotherWorkspaceCannotTakeTheVictimsGroupIDs(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	ctx := testCtx(t)
	mallory := createWorkspace(t, r, 80)
	var squatted []wire.ID
	opts := r.options(t, "victim", 81)
	opts.Provision = func(ctx context.Context, url string, ws wire.ID, gen []byte) error {
		w := identity.WorkspaceID(ws)
		var peer identity.UserID
		peer[0] = 1
		squatted = []wire.ID{wire.ID(roster.RootGroupID(w)), wire.ID(roster.GeneralGroupID(w)),
			wire.ID(roster.ActivityGroupID(w)), wire.ID(roster.DMGroupID(w, identity.UserID{}, peer))}
		mallory.mu.Lock()
		defer mallory.mu.Unlock()
		for _, g := range squatted {
			e := wire.Envelope{Group: g, Kind: wire.KindMLSCommit, Ctr: 1, CT: []byte("squatter's junk commit")}
			wire.SignEnvelope(&e, mallory.edKey)
			if _, err := mallory.client.Send(ctx, e); err != nil {
				t.Errorf("the squatter's send into %s: %v", g.Short(), err)
			}
		}
		return r.provision(ctx, url, ws, gen)
	}
	victim, err := CreateWorkspace(ctx, opts, "Victim", r.URL)
	if err != nil {
		t.Fatalf("the victim's bootstrap after a squatter wrote its group ids first: %v", err)
	}
	if _, err := victim.Send(ctx, "general", "hello from the victim"); err != nil {
		t.Fatal(err)
	}
	link, err := victim.CreateInvite(ctx, []string{"general"}, roster.RoleMember, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	sam := joinWith(t, r, link, "sam", 82)
	ms, err := sam.Messages(ctx, "general", 0)
	if err != nil || len(ms) != 1 || ms[0].Text != "hello from the victim" {
		t.Fatalf("the invited member reads %+v, %v", ms, err)
	}
	victim.mu.Lock()
	defer victim.mu.Unlock()
	for _, g := range squatted[:3] {
		envs, err := victim.fetchAll(ctx, g, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range envs {
			if se.Envelope.Author == wire.KeyID(mallory.edKey.Public().(ed25519.PublicKey)) {
				t.Fatalf("the victim's log of %s holds the squatter's envelope", g.Short())
			}
		}
	}
}
