package relayclient

import (
	"encoding/base64"
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
	s = strings.TrimSpace(s)
	if len(s) > maxRelayLink {
		return RelayLink{}, bad("it is too long")
	}
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "weald") || !strings.EqualFold(u.Host, "relay") || (u.Path != "" && u.Path != "/") {
		return RelayLink{}, bad("it does not start with weald://relay?")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return RelayLink{}, bad("its query cannot be read")
	}
	if q.Get("v") != "1" {
		return RelayLink{}, bad("its version is not one this Weald knows")
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
