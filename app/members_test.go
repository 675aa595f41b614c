package app_test

import (
	"context"
	"encoding/hex"
	"testing"

	"weald/backend/wire"
)

// The member list's bindings against a real relay: people with devices and
// roles; removing the last admin refused with its code; removing Sam ends
// on a receipt the list of receipts holds; Sam is shown revoked.
func TestMemberListRemovesAPerson(t *testing.T) {
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	c, err := dana.Create("Acme", "Dana", url)
	if err != nil {
		t.Fatal(err)
	}
	ws := c.Workspace.ID
	wsID, _ := hex.DecodeString(c.Workspace.Provision.Workspace)
	gen, _ := hex.DecodeString(c.Workspace.Provision.GenesisKey)
	if err := svc.ProvisionWorkspace(context.Background(), wire.ID(wsID), gen); err != nil {
		t.Fatal(err)
	}
	eventually(t, "dana ready", func() bool { return only(t, dana).Ready })
	scopes, err := dana.InviteScopes(ws)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := dana.CreateInvite(ws, []string{scopes[0].Group}, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	var samUser, danaUser string
	eventually(t, "dana lists sam", func() bool {
		people, err := dana.AdminMembers(ws)
		if err != nil {
			return false
		}
		for _, p := range people {
			switch {
			case p.You && p.Role == "admin" && len(p.Devices) == 1:
				danaUser = p.User
			case !p.You && p.Role == "member" && len(p.Devices) == 1:
				samUser = p.User
			}
		}
		return samUser != "" && danaUser != ""
	})
	if _, err := dana.RemovePerson(ws, danaUser, "", false); code(err) != "removal/last_admin" {
		t.Fatalf("remove the last admin: %v", err)
	}
	if _, err := sam.RemovePerson(ws, danaUser, "", false); code(err) != "removal/not_admin" {
		t.Fatalf("a member removes: %v", err)
	}
	rm, err := dana.RemovePerson(ws, samUser, "", false)
	if err != nil || rm.State != "done" || rm.Receipt == nil || rm.Receipt.DevicesRevoked != 1 || len(rm.Receipt.Groups) == 0 {
		t.Fatalf("remove sam: %+v %v", rm, err)
	}
	rs, err := dana.Receipts(ws)
	if err != nil || len(rs) != 1 || rs[0].Operation != rm.Operation {
		t.Fatalf("receipts: %+v %v", rs, err)
	}
	people, err := dana.AdminMembers(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range people {
		if p.User == samUser && !p.Revoked {
			t.Fatal("sam is not shown revoked")
		}
	}
}
