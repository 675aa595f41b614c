package app_test

import (
	"context"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"time"

	"weald/app"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/wire"
)

// realRelay is a relay (accept path, WebSocket transport, SQLite) on 127.0.0.1.
func realRelay(t *testing.T) (string, *relay.Service) {
	t.Helper()
	r := relaytest.Start(t)
	return r.URL, r.Service
}

func workspaces(t *testing.T) *app.Workspaces {
	t.Helper()
	a := app.New(t.TempDir(), io.Discard, nil)
	a.Startup(context.Background())
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	return app.Services(a)[2].(*app.Workspaces)
}

// eventually polls cond every 100 ms for at most 45 s; a failure says what
// it waited for and, when given, what seen() reports then.
func eventually(t *testing.T, what string, cond func() bool, seen ...func() string) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			for _, f := range seen {
				what += "; " + f()
			}
			t.Fatalf("%s: not within 45 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// danaAcme creates Dana's workspace "Acme" on the relay, provisions it as
// the operator would, and waits until it is ready.
func danaAcme(t *testing.T, dana *app.Workspaces, url string, svc *relay.Service) app.Created {
	t.Helper()
	c, err := dana.Create("Acme", "Dana", url)
	if err != nil {
		t.Fatal(err)
	}
	provision(t, svc, c)
	eventually(t, "dana ready", func() bool { return only(t, dana).Ready })
	return c
}

// provision runs the operator step for a created workspace.
func provision(t *testing.T, svc *relay.Service, c app.Created) {
	t.Helper()
	wsID, _ := hex.DecodeString(c.Workspace.Provision.Workspace)
	gen, _ := hex.DecodeString(c.Workspace.Provision.GenesisKey)
	if err := svc.ProvisionWorkspace(context.Background(), wire.ID(wsID), gen); err != nil {
		t.Fatal(err)
	}
}

// joinAs has a new person called name join ws by an invite of inviter's
// with role, and waits until their app has the workspace ready.
func joinAs(t *testing.T, inviter *app.Workspaces, ws, role, name string) *app.Workspaces {
	t.Helper()
	inv, err := inviter.CreateInvite(ws, nil, 24, 1, role)
	if err != nil {
		t.Fatal(err)
	}
	w := workspaces(t)
	if _, err := w.Join(inv.Link, name); err != nil {
		t.Fatal(err)
	}
	eventually(t, name+" ready", func() bool { return only(t, w).Ready })
	return w
}

func only(t *testing.T, w *app.Workspaces) app.Workspace {
	t.Helper()
	list, err := w.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	return list[0]
}

func names(cs []app.Channel) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return strings.Join(out, ",")
}

func TestWorkspacesStoryAgainstARealRelay(t *testing.T) {
	t.Parallel()
	url, svc := realRelay(t)
	dana, sam := workspaces(t), workspaces(t)

	c, err := dana.Create(" Acme ", "Dana", url)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.RecoveryPhrase); n != 24 {
		t.Fatalf("create returned %d recovery words, want 24", n)
	}
	if c.Workspace.Name != "Acme" || c.Workspace.Ready || c.Workspace.Provision == nil {
		t.Fatalf("before provisioning: %+v", c.Workspace)
	}
	ws := c.Workspace.ID
	if !strings.Contains(c.Workspace.Provision.Command, "weald-relay provision -workspace "+ws) {
		t.Fatalf("command: %s", c.Workspace.Provision.Command)
	}
	provision(t, svc, c)
	// The background run finishes the setup by itself.
	eventually(t, "dana ready", func() bool { return only(t, dana).Ready })
	chans, err := dana.Channels(ws)
	if err != nil || names(chans) != "general,activity" {
		t.Fatalf("channels: %s %v", names(chans), err)
	}
	general := chans[0].ID
	if !chans[0].Policy.Default || chans[0].Policy.Admission != "parent" || chans[0].Policy.History != "open" || chans[0].Muted || !chans[1].Muted ||
		chans[0].DefaultName != "general" || chans[1].DefaultName != "activity" {
		t.Fatalf("defaults: %+v", chans)
	}
	if len(chans[0].Policy.Hash) != 64 {
		t.Fatalf("policy hash %q", chans[0].Policy.Hash)
	}
	m, err := dana.Send(ws, general, "hello from Dana")
	if err != nil || !m.Mine || m.Author != "Dana" || m.Text != "hello from Dana" {
		t.Fatalf("send: %+v %v", m, err)
	}

	scopes, err := dana.InviteScopes(ws)
	if err != nil || len(scopes) != 3 || !scopes[0].Root || scopes[0].Name != "Acme" {
		t.Fatalf("scopes: %+v %v", scopes, err)
	}
	if _, err := dana.CreateInvite(ws, nil, 0, 1, "member"); code(err) != "bad_request/expiry" {
		t.Fatalf("expiry 0: %v", err)
	}
	inv, err := dana.CreateInvite(ws, []string{scopes[0].Group, general}, 24, 1, "member")
	if err != nil || inv.Link == "" {
		t.Fatalf("invite: %+v %v", inv, err)
	}

	joined, err := sam.Join(inv.Link, "Sam")
	if err != nil || joined.Workspace.ID != ws {
		t.Fatalf("join: %+v %v", joined, err)
	}
	// The joiner's own recovery phrase comes back once.
	if n := len(joined.RecoveryPhrase); n != 24 {
		t.Fatalf("join returned %d recovery words, want 24", n)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	var seen []app.Message
	eventually(t, "sam sees the first message", func() bool {
		seen, _ = sam.Messages(ws, general)
		return len(seen) == 1
	})
	// Named from the roster (issue 17 item 3), not by an id.
	if seen[0].Text != "hello from Dana" || seen[0].Mine || seen[0].Author != "Dana" {
		t.Fatalf("sam reads %+v", seen[0])
	}
	if w := only(t, sam); w.CanInvite || w.You != "Sam" {
		t.Fatalf("sam (a member) %+v: no Invite, and named Sam", w)
	}
	if people, err := sam.WorkspaceMembers(ws); err != nil || len(people) != 2 || people[0].Name != "Dana" || !people[0].Creator || people[1].Name != "Sam" || !people[1].You || people[1].JoinedAt == 0 {
		t.Fatalf("people %+v %v", people, err)
	}
	if w := only(t, sam); w.Unread != 1 {
		t.Fatalf("sam unread before reading: %d", w.Unread)
	}
	if err := sam.MarkRead(ws, general); err != nil {
		t.Fatal(err)
	}
	if w := only(t, sam); w.Unread != 0 {
		t.Fatalf("sam unread after reading: %d", w.Unread)
	}

	// A parent channel reaches Sam by itself; a private one does not show.
	if _, err := dana.CreateChannel(ws, "x", "everyone"); code(err) != "bad_request/admission" {
		t.Fatalf("admission everyone: %v", err)
	}
	design, err := dana.CreateChannel(ws, "#design", "parent")
	if err != nil || design.Name != "design" || design.Policy.Admission != "parent" || design.Policy.History != "open" {
		t.Fatalf("design: %+v %v", design, err)
	}
	hr, err := dana.CreateChannel(ws, "hr", "explicit")
	if err != nil || hr.Policy.History != "closed" || !hr.Joined {
		t.Fatalf("hr: %+v %v", hr, err)
	}
	eventually(t, "sam joins #design", func() bool {
		cs, _ := sam.Channels(ws)
		for _, c := range cs {
			if c.ID == design.ID && c.Joined {
				return true
			}
		}
		return false
	})
	cs, _ := sam.Channels(ws)
	if names(cs) != "general,activity,design" {
		t.Fatalf("sam's sidebar: %s", names(cs))
	}

	// Local rename and order of a default; the order holds within the defaults.
	if c, err := dana.RenameChannelLocally(ws, general, "lobby"); err != nil || c.Name != "lobby" || c.DefaultName != "general" {
		t.Fatalf("rename: %+v %v", c, err)
	}
	moved, err := dana.MoveChannelLocally(ws, general, 1)
	if err != nil || names(moved) != "activity,lobby,design,hr" {
		t.Fatalf("move: %s %v", names(moved), err)
	}
	if _, err := dana.MoveChannelLocally(ws, general, 2); code(err) != "bad_request/position" {
		t.Fatalf("move out of the defaults: %v", err)
	}
	if c, err := dana.SetMuted(ws, general, true); err != nil || !c.Muted {
		t.Fatalf("mute: %+v %v", c, err)
	}
	if _, err := dana.Send(ws, general, "   "); code(err) != "bad_request/empty" {
		t.Fatalf("empty send: %v", err)
	}
	if _, err := dana.Send(ws, strings.Repeat("0", 64), "x"); code(err) != "channel/unknown" {
		t.Fatalf("unknown channel: %v", err)
	}
}

func TestWorkspacesRefuseBadInput(t *testing.T) {
	t.Parallel()
	w := workspaces(t)
	cases := []struct {
		err  error
		want string
	}{
		{second(w.Create("", "Ada", "ws://127.0.0.1:1")), "bad_request/name"},
		{second(w.Create("Acme", " ", "ws://127.0.0.1:1")), "bad_request/name"},
		{second(w.Create("Acme", "Ada", "ftp://127.0.0.1:1")), "relay/bad_address"},
		{second(w.Create("Acme", "Ada", "127.0.0.1:0")), "relay/bad_address"},
		{second(w.Create(strings.Repeat("a", 81), "Ada", "ws://127.0.0.1:1")), "bad_request/name"},
		{second(w.Join("", "Sam")), "invite/bad_link"},
		{second(w.Channels(strings.Repeat("a", 64))), "workspace/unknown"},
	}
	for i, c := range cases {
		if code(c.err) != c.want {
			t.Errorf("case %d: %v, want %s", i, c.err, c.want)
		}
	}
	if _, err := w.Join("not a link", "Sam"); err == nil || code(err) == "" {
		t.Fatalf("bad link: %v", err)
	}
	if list, _ := w.List(); len(list) != 0 {
		t.Fatalf("refused input left workspaces: %+v", list)
	}
}

func second[T any](_ T, err error) error { return err }
