package relayclient

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"

	"weald/backend/errcode"
	"weald/backend/wire"
)

// CodeBadLink refuses text that starts like a relay link but is not one.
const CodeBadLink errcode.Code = "relay/bad_link"

// RelayLink is what `weald-relay token create` prints: the relay's address
// and a provisioning token, so that a person can create a workspace there
// with no operator step (docs/protocol/wire.md "Provisioning"):
//
//	weald://relay?v=1&relay=<address>&token=<base64url, no padding>
//
// A link without token names a relay in open mode.
type RelayLink struct {
	Relay string // normalized (NormalizeAddress)
	Token []byte // empty: none
}

// maxRelayLink bounds the text ParseRelayLink reads.
const maxRelayLink = 2048

// String returns the link text.
func (l RelayLink) String() string {
	q := url.Values{}
	q.Set("v", "1")
	q.Set("relay", l.Relay)
	if len(l.Token) > 0 {
		q.Set("token", base64.RawURLEncoding.EncodeToString(l.Token))
	}
	return "weald://relay?" + q.Encode()
}

// IsRelayLink reports whether s is meant as a relay link (it starts with
// weald://relay), so that ParseRelayLink, not NormalizeAddress, reads it.
func IsRelayLink(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= len("weald://relay") && strings.EqualFold(s[:len("weald://relay")], "weald://relay")
}

// ParseRelayLink reads a relay link; a refusal is a *AddressError with
// relay/bad_link or, for the address inside, relay/bad_address.
func ParseRelayLink(s string) (RelayLink, error) {
	bad := func(why string) error {
		return &AddressError{Code: CodeBadLink, Sentence: "This is not a whole relay link: " + why + ". Copy the whole link from the relay's operator and paste it again."}
	}
	q, err := linkQuery(s, "relay", bad)
	if err != nil {
		return RelayLink{}, err
	}
	addr, err := NormalizeAddress(q.Get("relay"))
	if err != nil {
		return RelayLink{}, err
	}
	l := RelayLink{Relay: addr}
	if t := q.Get("token"); t != "" {
		tok, err := base64.RawURLEncoding.DecodeString(t)
		if err != nil || len(tok) > wire.MaxProvisionToken {
			return RelayLink{}, bad("its token is not base64url of at most 64 bytes")
		}
		l.Token = tok
	}
	return l, nil
}

// linkQuery reads the query of a version 1 weald://<host>? link (at most
// maxRelayLink bytes); bad says why s is not one.
func linkQuery(s, host string, bad func(why string) error) (url.Values, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxRelayLink {
		return nil, bad("it is too long")
	}
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "weald") || !strings.EqualFold(u.Host, host) || (u.Path != "" && u.Path != "/") {
		return nil, bad("it does not start with weald://" + host + "?")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, bad("its query cannot be read")
	}
	if q.Get("v") != "1" {
		return nil, bad("its version is not one this Weald knows")
	}
	return q, nil
}

// ParseToken reads a provisioning token as printed in a relay link
// (base64url without padding); "" is no token.
func ParseToken(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	tok, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(tok) > wire.MaxProvisionToken {
		return nil, &AddressError{Code: CodeBadLink, Sentence: "The provisioning token is not the one the relay's operator gave: copy it again, or paste the whole relay link."}
	}
	return tok, nil
}

// RelayAndToken reads what a person typed as the relay: a relay link (its
// address and token) or an address (no token).
func RelayAndToken(s string) (string, []byte, error) {
	if IsRelayLink(s) {
		l, err := ParseRelayLink(s)
		return l.Relay, l.Token, err
	}
	addr, err := NormalizeAddress(s)
	return addr, nil, err
}

// CodeBadWorkspaceLink refuses text that starts like a workspace link but is
// not one.
const CodeBadWorkspaceLink errcode.Code = "workspace/bad_link"

// WorkspaceLink names a workspace and its relay, and nothing secret: what a
// person who lost every device needs, beside their recovery phrase, to
// recover onto a new one (docs/protocol/lifecycle.md "Recovery onto a new
// device"). Any member's app shows it.
//
//	weald://workspace?v=1&relay=<address>&ws=<64 hex digits>
type WorkspaceLink struct {
	Relay     string  // normalized (NormalizeAddress)
	Workspace wire.ID // the workspace id
}

// String returns the link text.
func (l WorkspaceLink) String() string {
	q := url.Values{}
	q.Set("v", "1")
	q.Set("relay", l.Relay)
	q.Set("ws", hex.EncodeToString(l.Workspace[:]))
	return "weald://workspace?" + q.Encode()
}

// IsWorkspaceLink reports whether s is meant as a workspace link.
func IsWorkspaceLink(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) >= len("weald://workspace") && strings.EqualFold(s[:len("weald://workspace")], "weald://workspace")
}

// ParseWorkspaceLink reads a workspace link; a refusal is a *AddressError
// with workspace/bad_link or, for the address inside, relay/bad_address.
func ParseWorkspaceLink(s string) (WorkspaceLink, error) {
	bad := func(why string) error {
		return &AddressError{Code: CodeBadWorkspaceLink, Sentence: "This is not a whole workspace link: " + why + ". Copy the whole link again."}
	}
	q, err := linkQuery(s, "workspace", bad)
	if err != nil {
		return WorkspaceLink{}, err
	}
	ws, err := hex.DecodeString(q.Get("ws"))
	if err != nil || len(ws) != len(wire.ID{}) {
		return WorkspaceLink{}, bad("its workspace id is not 64 hex digits")
	}
	addr, err := NormalizeAddress(q.Get("relay"))
	if err != nil {
		return WorkspaceLink{}, err
	}
	return WorkspaceLink{Relay: addr, Workspace: wire.ID(ws)}, nil
}
