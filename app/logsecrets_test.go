package app_test

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"weald/app"
)

// syncBuffer is a log sink safe for the app's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Someone who reads the app's log (a bug report, a shared terminal) finds
// no secret in it: not an invite link or its secret and update key, not a
// recovery phrase, not a message, through a create, an invite and a join.
func TestNoSecretInLog(t *testing.T) {
	t.Parallel()
	url_, svc := realRelay(t)
	var logs [2]syncBuffer
	var ws [2]*app.Workspaces
	for i := range ws {
		a := app.New(t.TempDir(), &logs[i], nil)
		a.Startup(context.Background())
		t.Cleanup(func() { a.Shutdown(context.Background()) })
		ws[i] = app.Services(a)[2].(*app.Workspaces)
	}
	dana, sam := ws[0], ws[1]
	c := danaAcme(t, dana, url_, svc)
	chans, err := dana.Channels(c.Workspace.ID)
	if err != nil {
		t.Fatal(err)
	}
	const text = "the vault opens with 7519-kestrel"
	if _, err := dana.Send(c.Workspace.ID, chans[0].ID, text); err != nil {
		t.Fatal(err)
	}
	scopes, err := dana.InviteScopes(c.Workspace.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := dana.CreateInvite(c.Workspace.ID, []string{scopes[0].Group, chans[0].ID}, 24, 1, "member")
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(inv.Link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	joined, err := sam.Join(inv.Link, "Sam")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "sam ready", func() bool { return only(t, sam).Ready })
	secrets := map[string]string{
		"invite link":       inv.Link,
		"invite secret":     q.Get("s"),
		"invite update key": q.Get("k"),
		"Dana's phrase":     strings.Join(c.RecoveryPhrase[:4], " "),
		"Sam's phrase":      strings.Join(joined.RecoveryPhrase[:4], " "),
		"message text":      text,
	}
	for i, who := range []string{"dana", "sam"} {
		log := logs[i].String()
		if log == "" {
			t.Fatalf("%s's app logged nothing; the test proves nothing", who)
		}
		for what, s := range secrets {
			if len(s) < 8 {
				t.Fatalf("%s is too short to look for: %q", what, s)
			}
			if strings.Contains(log, s) {
				t.Errorf("%s's log holds the %s", who, what)
			}
		}
	}
}
