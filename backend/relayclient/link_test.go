package relayclient_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"weald/backend/relayclient"
)

// TestRelayLink: a link round-trips; what is typed as the relay is a link
// (address and token) or an address (no token); a broken link is
// relay/bad_link, a bad address inside it relay/bad_address.
func TestRelayLink(t *testing.T) {
	t.Parallel()
	l := relayclient.RelayLink{Relay: "wss://relay.example.org/v1/ws", Token: bytes.Repeat([]byte{0xfe}, 32)}
	got, err := relayclient.ParseRelayLink(" " + l.String() + "\n")
	if err != nil || got.Relay != l.Relay || !bytes.Equal(got.Token, l.Token) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for _, c := range []struct {
		in, relay, code string
		token           bool
	}{
		{l.String(), l.Relay, "", true},
		{"WEALD://relay?v=1&relay=127.0.0.1:7447", "ws://127.0.0.1:7447/v1/ws", "", false},
		{"relay.example.org", "wss://relay.example.org/v1/ws", "", false},
		{"weald://relay?v=2&relay=x", "", "relay/bad_link", false},
		{"weald://relay?v=1&relay=ftp://x", "", "relay/bad_address", false},
		{"weald://relay?v=1&relay=x&token=***", "", "relay/bad_link", false},
		{"weald://relay?v=1&relay=x&token=" + strings.Repeat("A", 100), "", "relay/bad_link", false},
		{"weald://relayx?v=1&relay=x", "", "relay/bad_link", false},
		{"weald://relay/path?v=1&relay=x", "", "relay/bad_link", false},
		{"weald://relay?" + strings.Repeat("a", 3000), "", "relay/bad_link", false},
	} {
		relay, token, err := relayclient.RelayAndToken(c.in)
		var ae *relayclient.AddressError
		switch {
		case c.code != "" && (!errors.As(err, &ae) || string(ae.Code) != c.code):
			t.Errorf("%q: %v, want %s", c.in, err, c.code)
		case c.code == "" && (err != nil || relay != c.relay || (len(token) > 0) != c.token):
			t.Errorf("%q: %q %x %v", c.in, relay, token, err)
		}
	}
	if tok, err := relayclient.ParseToken("  "); err != nil || tok != nil {
		t.Errorf("no token: %x %v", tok, err)
	}
	if _, err := relayclient.ParseToken("a b"); err == nil {
		t.Error("a token with a space was read")
	}
}

// FuzzParseRelayLink: untrusted link text never panics, and a link that
// parses prints back to one that parses the same.
func FuzzParseRelayLink(f *testing.F) {
	f.Add(relayclient.RelayLink{Relay: "ws://127.0.0.1:7447/v1/ws", Token: []byte("tok")}.String())
	f.Add("weald://relay?v=1&relay=%5B::1%5D:80&token=AAAA")
	f.Add("weald://relay?v=1")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := relayclient.ParseRelayLink(s)
		if err != nil {
			return
		}
		again, err := relayclient.ParseRelayLink(l.String())
		if err != nil || again.Relay != l.Relay || !bytes.Equal(again.Token, l.Token) {
			t.Fatalf("%q → %q → %+v %v", s, l.String(), again, err)
		}
	})
}

// TestWorkspaceLink: a workspace link round-trips; a broken one is
// workspace/bad_link, a bad address inside it relay/bad_address.
func TestWorkspaceLink(t *testing.T) {
	t.Parallel()
	var id [32]byte
	id[0], id[31] = 0xab, 0x01
	l := relayclient.WorkspaceLink{Relay: "wss://relay.example.org/v1/ws", Workspace: id}
	got, err := relayclient.ParseWorkspaceLink(" " + l.String() + "\n")
	if err != nil || got != l || !relayclient.IsWorkspaceLink(l.String()) || relayclient.IsWorkspaceLink("weald://relay?v=1") {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	hexID := strings.Repeat("ab", 32)
	for _, c := range []struct{ in, code string }{
		{"WEALD://workspace?v=1&relay=127.0.0.1:7447&ws=" + hexID, ""},
		{"weald://workspace?v=2&relay=x&ws=" + hexID, "workspace/bad_link"},
		{"weald://workspace?v=1&relay=x&ws=abcd", "workspace/bad_link"},
		{"weald://workspace?v=1&relay=x", "workspace/bad_link"},
		{"weald://workspace?v=1&relay=ftp://x&ws=" + hexID, "relay/bad_address"},
		{"weald://workspacex?v=1&relay=x&ws=" + hexID, "workspace/bad_link"},
		{"weald://workspace/path?v=1&relay=x&ws=" + hexID, "workspace/bad_link"},
		{"weald://workspace?" + strings.Repeat("a", 3000), "workspace/bad_link"},
	} {
		_, err := relayclient.ParseWorkspaceLink(c.in)
		var ae *relayclient.AddressError
		switch {
		case c.code != "" && (!errors.As(err, &ae) || string(ae.Code) != c.code):
			t.Errorf("%q: %v, want %s", c.in, err, c.code)
		case c.code == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		}
	}
}

// FuzzParseWorkspaceLink: untrusted link text never panics, and a link
// that parses prints back to one that parses the same.
func FuzzParseWorkspaceLink(f *testing.F) {
	f.Add(relayclient.WorkspaceLink{Relay: "ws://127.0.0.1:7447/v1/ws"}.String())
	f.Add("weald://workspace?v=1&relay=%5B::1%5D:80&ws=" + strings.Repeat("0", 64))
	f.Add("weald://workspace?v=1")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := relayclient.ParseWorkspaceLink(s)
		if err != nil {
			return
		}
		again, err := relayclient.ParseWorkspaceLink(l.String())
		if err != nil || again != l {
			t.Fatalf("%q → %q → %+v %v", s, l.String(), again, err)
		}
	})
}
