package app_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The member list's bindings against a real relay: people with devices and
// roles; removing the last admin refused with its code; removing Sam ends
// on a receipt the list of receipts holds; Sam is shown revoked.
func TestMemberListRemovesAPerson(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // the export goes to the data directory, not a real Downloads folder
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	ws := c.Workspace.ID
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
	plan, err := dana.PlanRemoval(ws, samUser, "")
	if err != nil || plan.Name != "Sam" || plan.Devices != 1 || plan.Groups < 2 || plan.RecoveryKeys != 1 || plan.NotMember != 0 {
		t.Fatalf("plan: %+v %v", plan, err)
	}
	if _, err := dana.PlanRemoval(ws, danaUser, ""); code(err) != "removal/last_admin" {
		t.Fatalf("plan removing the last admin: %v", err)
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
		if p.User == samUser && (!p.Revoked || p.Removal != nil) {
			t.Fatalf("sam is shown as %+v", p)
		}
	}
	// Exported as JSON and as a printable page.
	out, err := dana.ExportReceipt(ws, rm.Operation)
	if err != nil {
		t.Fatal(err)
	}
	var exported struct {
		Operation string `json:"operation"`
	}
	if b, err := os.ReadFile(out.JSON); err != nil || json.Unmarshal(b, &exported) != nil || exported.Operation != rm.Operation {
		t.Fatalf("exported JSON %s: %v %+v", out.JSON, err, exported)
	}
	if b, err := os.ReadFile(out.Page); err != nil || !strings.Contains(string(b), rm.Operation) {
		t.Fatalf("exported page %s: %v", out.Page, err)
	}
	if _, err := dana.ExportReceipt(ws, strings.Repeat("0", 64)); code(err) != "removal/unknown" {
		t.Fatalf("exporting no receipt: %v", err)
	}
	// Sam's app says Sam was removed.
	eventually(t, "sam's app shows the removal", func() bool { return only(t, sam).Removed })
}
