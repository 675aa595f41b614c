package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relayclient"
)

// TestCreateWithRelayLink (issue 15, self-serve provisioning): a relay in
// token mode and a relay link from it; Create with the link reaches a
// ready workspace with no operator step. The link's last use spent, the
// same link is refused with provision/token_used_up and leaves nothing on
// the device; a relay in open mode takes a plain address.
func TestCreateWithRelayLink(t *testing.T) {
	t.Parallel()
	r := relaytest.StartWith(t, relay.Config{Provisioning: relay.ProvisionToken})
	tok, _, err := r.Service.CreateProvisionToken(context.Background(), 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	link := relayclient.RelayLink{Relay: r.URL, Token: tok}.String()
	w := workspaces(t)
	c, err := w.Create("Acme", "Dana", "  "+link+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace.Provision != nil || c.Workspace.Relay != r.URL {
		t.Fatalf("created with a relay link: %+v", c.Workspace)
	}
	eventually(t, "ready with no operator step", func() bool { return only(t, w).Ready })

	w2 := workspaces(t)
	_, err = w2.Create("Other", "Sam", link)
	if code(err) != "provision/token_used_up" || !strings.Contains(err.Error(), "relay link") {
		t.Fatalf("a used-up link: %v", err)
	}
	if list, err := w2.List(); err != nil || len(list) != 0 {
		t.Fatalf("after a refused link: %+v, %v", list, err)
	}
	if _, err := w2.Create("Other", "Sam", "weald://relay?v=1&relay=ws%3A%2F%2F127.0.0.1%3A1&token=%%%"); code(err) != "relay/bad_link" {
		t.Fatalf("a broken link: %v", err)
	}
	_, err = w2.Create("Other", "Sam", r.URL)
	if code(err) != "provision/token_required" {
		t.Fatalf("a token relay given only its address: %v", err)
	}

	open := relaytest.StartWith(t, relay.Config{Provisioning: relay.ProvisionOpen})
	c, err = w2.Create("Open", "Sam", open.URL)
	if err != nil || c.Workspace.Provision != nil {
		t.Fatalf("open relay: %+v %v", c.Workspace, err)
	}
	eventually(t, "ready on an open relay", func() bool { return only(t, w2).Ready })
}
