package app

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestLinkArg(t *testing.T) {
	t.Parallel()
	link := "weald://join?relay=ws%3A%2F%2F127.0.0.1%3A7447%2Fv1%2Fws&id=ab"
	cases := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--version"}, ""},
		{[]string{link}, link},
		{[]string{"-x", "WEALD://JOIN?id=1"}, "WEALD://JOIN?id=1"},
		{[]string{"weald://"}, ""},
		{[]string{"https://example.invalid/x"}, ""},
		{[]string{"weald://" + strings.Repeat("a", maxLinkLen)}, ""},
	}
	for _, c := range cases {
		if got := LinkArg(c.args); got != c.want {
			t.Errorf("LinkArg(%.40q) = %.40q, want %.40q", c.args, got, c.want)
		}
	}
}

func TestTakeLaunchLinkOnce(t *testing.T) {
	t.Parallel()
	a := New(t.TempDir(), io.Discard, nil)
	if got := a.TakeLaunchLink(); got != "" {
		t.Fatalf("no link given, took %q", got)
	}
	a.OpenLink("weald://join?id=1")
	if got := a.TakeLaunchLink(); got != "weald://join?id=1" {
		t.Fatalf("took %q", got)
	}
	if got := a.TakeLaunchLink(); got != "" {
		t.Fatalf("taken twice: %q", got)
	}
}

// names is an Emitter that keeps the names of the events emitted.
type names struct{ got []string }

func (n *names) Emit(_ context.Context, name string, _ ...any) { n.got = append(n.got, name) }

// A later launch handed to the running app (app/instance): its link goes
// to the frontend, which is told to take it; a plain launch only raises
// the window, and what is not a weald:// link is ignored.
func TestReopenedHandsTheLinkToTheWindow(t *testing.T) {
	t.Parallel()
	ev := &names{}
	a := New(t.TempDir(), io.Discard, ev)
	Reopened(context.Background(), a, nil)
	Reopened(context.Background(), a, []string{"https://example.invalid/"})
	if len(ev.got) != 0 || a.TakeLaunchLink() != "" {
		t.Fatalf("no link: events %q", ev.got)
	}
	Reopened(context.Background(), a, []string{"weald://pair?x=1"})
	if len(ev.got) != 1 || ev.got[0] != EventLaunchLink {
		t.Fatalf("events %q", ev.got)
	}
	if got := a.TakeLaunchLink(); got != "weald://pair?x=1" {
		t.Fatalf("took %q", got)
	}
}
