package app_test

import (
	"testing"

	"weald/app"
)

// The Encryption & health panel's bindings against a real relay: the
// check ran at the first sync; Run now finds one admin device (action);
// dismissing it leaves nothing needing action; each joined group has its
// encryption state and the storage history has the run's reading.
func TestEncryptionHealthBindings(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana := workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	eventually(t, "the first run kept", func() bool {
		h, err := dana.EncryptionHealth(ws)
		return err == nil && h.Report.At > 0
	})
	h, err := dana.RunHealth(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Report.NeedsAction || len(h.Report.Findings) != 11 {
		t.Fatalf("report: %+v", h.Report)
	}
	var admins *string
	for _, f := range h.Report.Findings {
		if f.Check == "admin_devices" {
			state := string(f.State)
			admins = &state
			if f.Action == nil || f.Action.ID != "add_admin_device" {
				t.Fatalf("admin devices action: %+v", f.Action)
			}
		}
	}
	if admins == nil || *admins != "action" {
		t.Fatalf("admin devices: %v", admins)
	}
	if len(h.Groups) != 3 || len(h.Storage) == 0 || h.Storage[len(h.Storage)-1].LogBytes == 0 {
		t.Fatalf("groups %+v, storage %+v", h.Groups, h.Storage)
	}
	for _, g := range h.Groups {
		if g.Devices != 1 || g.People != 1 || g.MediaDays != 180 || g.TextDays != 0 || !g.DefaultPolicy {
			t.Fatalf("group %+v", g)
		}
	}
	h, err = dana.DismissHealth(ws, "admin_devices")
	if err != nil || h.Report.NeedsAction {
		t.Fatalf("dismissed: %v %+v", err, h.Report)
	}
	if _, err := dana.DismissHealth(ws, "storage"); code(err) != "health/not_dismissable" {
		t.Fatalf("dismiss storage: %v", err)
	}
	// Resolve with no frozen chain resolves nothing and runs the check
	// again (engine TestResolveFrozenChainDiscardsTheRemovedMembersKey
	// freezes and resolves one).
	h, err = dana.ResolveHealth(ws, "resolve_chain")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range h.Report.Findings {
		if f.Check == "frozen_retention_chain" && f.State != "ok" {
			t.Fatalf("frozen chain: %+v", f)
		}
	}
}

// The panel's "Register a recovery quorum": with Sam and Lee in the
// workspace, Dana (the only admin device) registers them 2 of 2 and the
// admin-devices row, failing before, passes in the report it returns.
func TestRegisterRecoveryQuorumBinding(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam, lee := workspaces(t), workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
	for _, p := range []struct {
		w    *app.Workspaces
		name string
	}{{sam, "Sam"}, {lee, "Lee"}} {
		inv, err := dana.CreateInvite(ws, nil, 24, 1, "member")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.w.Join(inv.Link, p.name); err != nil {
			t.Fatal(err)
		}
	}
	admins := func(h app.EncryptionHealth) app.HealthFinding {
		for _, f := range h.Report.Findings {
			if f.Check == "admin_devices" {
				return f
			}
		}
		t.Fatal("no admin_devices row")
		return app.HealthFinding{}
	}
	var users []string
	eventually(t, "dana sees sam and lee", func() bool {
		ms, err := dana.WorkspaceMembers(ws)
		users = users[:0]
		for _, m := range ms {
			if !m.You {
				users = append(users, m.User)
			}
		}
		return err == nil && len(users) == 2
	})
	h, err := dana.RunHealth(ws)
	if err != nil || admins(h).State != "action" {
		t.Fatalf("before: %v %+v", err, admins(h))
	}
	if _, err := dana.RegisterRecoveryQuorum(ws, users, 3); code(err) != "quorum/threshold" {
		t.Fatalf("3 of 2: %v", err)
	}
	if _, err := sam.RegisterRecoveryQuorum(ws, users, 1); code(err) != "quorum/not_admin" {
		t.Fatalf("a member registered one: %v", err)
	}
	h, err = dana.RegisterRecoveryQuorum(ws, users, 2)
	if f := admins(h); err != nil || f.State != "ok" || f.Finding != "This workspace has 1 admin device and a registered recovery quorum." {
		t.Fatalf("after: %v %+v", err, f)
	}
}
