package app_test

import (
	"testing"
)

// The Encryption & health panel's bindings against a real relay: the
// check ran at the first sync; Run now finds one admin device (action);
// dismissing it leaves nothing needing action; each joined group has its
// encryption state and the storage history has the run's reading.
func TestEncryptionHealthBindings(t *testing.T) {
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
}
