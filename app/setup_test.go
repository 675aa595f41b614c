package app_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// deadRelay is a loopback address nothing listens on.
func deadRelay(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "ws://" + addr + "/v1/ws"
}

// An unreachable relay is reported as unreachable, never as a workspace the
// operator must provision; the stuck setup can be abandoned, which removes
// the workspace from this device (issue 17 item 6).
func TestUnreachableRelayIsSaidAndTheSetupCanBeAbandoned(t *testing.T) {
	t.Parallel()
	w := workspaces(t)
	c, err := w.Create("Acme", "Dana", deadRelay(t))
	if err != nil {
		t.Fatal(err)
	}
	ws := c.Workspace
	eventually(t, "the problem is named", func() bool {
		got := only(t, w)
		return got.Problem != nil
	})
	got := only(t, w)
	if got.Problem.Code != "relay/unreachable" {
		t.Fatalf("problem %+v, want relay/unreachable", got.Problem)
	}
	if got.Provision != nil {
		t.Fatalf("an unreachable relay is shown as an operator step: %+v", got.Provision)
	}
	if err := w.Remove(ws.ID); err != nil {
		t.Fatal(err)
	}
	if list, err := w.List(); err != nil || len(list) != 0 {
		t.Fatalf("after removal: %+v, %v", list, err)
	}
	if err := w.Remove(ws.ID); code(err) != "workspace/unknown" {
		t.Fatalf("removing twice: %v", err)
	}
}

// A ready workspace is not removed.
func TestRemoveRefusesAReadyWorkspace(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	w := workspaces(t)
	c, err := w.Create("Acme", "Dana", url)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace.Provision == nil {
		t.Fatalf("a relay that answers without the workspace names the operator step: %+v", c.Workspace)
	}
	provision(t, svc, c)
	eventually(t, "ready", func() bool { return only(t, w).Ready })
	if err := w.Remove(c.Workspace.ID); code(err) != "workspace/ready" {
		t.Fatalf("removing a ready workspace: %v", err)
	}
	if !only(t, w).Ready {
		t.Fatal("the refused removal changed the workspace")
	}
}

// A tampered link is refused with the relay's reason and leaves nothing on
// the device: no nameless workspace retrying, and the right link works
// afterwards (it used to fail with "rename …: file exists"; issue 17 item 5).
func TestTamperedLinkLeavesNothingAndTheRightLinkWorks(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)
	c := danaAcme(t, dana, url, svc)
	inv, err := dana.CreateInvite(c.Workspace.ID, nil, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(inv.Link, "s=") + 2
	flip := byte('A')
	if inv.Link[i] == 'A' {
		flip = 'B'
	}
	bad := inv.Link[:i] + string(flip) + inv.Link[i+1:]
	_, err = sam.Join(bad, "Sam")
	if err == nil {
		t.Fatal("a tampered link was accepted")
	}
	t.Logf("tampered link: %v", err)
	if code(err) != "invite/refused" {
		t.Fatalf("want invite/refused, got %v", err)
	}
	if list, err := sam.List(); err != nil || len(list) != 0 {
		t.Fatalf("after the bad link: %+v, %v", list, err)
	}
	if _, err := sam.Join(inv.Link, "Sam"); err != nil {
		t.Fatalf("the right link after a bad one: %v", err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
}

// A relay address typed as http://host:port (no path) reaches the relay;
// a web server that is not a relay is named as such, never internal/error
// (issue 15 "Relay addresses as people type them").
func TestRelayAddressAsTyped(t *testing.T) {
	t.Parallel()
	url, _ := realRelay(t)
	w := workspaces(t)
	typed := "http://" + strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/v1/ws")
	c, err := w.Create("Acme", "Dana", typed)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace.Relay != url {
		t.Fatalf("relay kept as %q, want %q", c.Workspace.Relay, url)
	}
	if c.Workspace.Provision == nil {
		t.Fatalf("the relay at %s was not reached: %+v", typed, c.Workspace)
	}

	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	w2 := workspaces(t)
	if _, err := w2.Create("Acme", "Dana", web.URL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the problem is named", func() bool { return only(t, w2).Problem != nil })
	got := only(t, w2)
	if got.Problem.Code != "relay/not_a_relay" || !strings.Contains(got.Problem.Message, "not a Weald relay") {
		t.Fatalf("problem %+v, want relay/not_a_relay", got.Problem)
	}
	if got.Provision != nil {
		t.Fatalf("a web server is shown as an operator step: %+v", got.Provision)
	}
}
