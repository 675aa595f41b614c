package app

import (
	"io"
	"strings"
	"testing"
)

func TestLinkArg(t *testing.T) {
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
