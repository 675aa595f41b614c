package relayclient

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"weald/backend/errcode"
)

// DefaultPath is the relay's WebSocket endpoint (docs/protocol/wire.md).
const DefaultPath = "/v1/ws"

// Codes of the errors about a relay address (errcode).
const (
	CodeBadAddress  errcode.Code = "relay/bad_address" // the text cannot be a relay address
	CodeNotARelay   errcode.Code = "relay/not_a_relay" // something answers there, but not the Weald relay protocol
	CodeUnreachable errcode.Code = "relay/unreachable" // nothing answers there
)

// AddressError is an address refused by NormalizeAddress or a relay
// address that answered but is not a Weald relay. Code is one of the codes
// above; Sentence says what is wrong in one plain sentence.
type AddressError struct {
	Code     errcode.Code
	Sentence string
	Err      error // the underlying dial error, if any
}

func (e *AddressError) Error() string           { return string(e.Code) + ": " + e.Sentence }
func (e *AddressError) Unwrap() error           { return e.Err }
func (e *AddressError) ErrorCode() errcode.Code { return e.Code }
func (e *AddressError) ErrorSentence() string   { return e.Sentence }

func badAddress(format string, args ...any) error {
	return &AddressError{Code: CodeBadAddress, Sentence: fmt.Sprintf(format, args...)}
}

// NormalizeAddress turns a relay address as a person types it into the
// WebSocket URL the client dials:
//
//   - surrounding whitespace and trailing slashes are dropped; scheme and
//     host are lower-cased;
//   - http:// becomes ws://, https:// becomes wss://;
//   - an address without a scheme (host, host:port, [v6]:port, a bare IPv6
//     literal) gets ws:// when the host is loopback (localhost, 127.0.0.0/8,
//     ::1) and wss:// otherwise: a relay reached over a network is expected
//     behind TLS, so a plain LAN relay must be typed with ws:// or http://;
//   - an empty path becomes /v1/ws; any other path is kept as typed (a relay
//     behind a reverse proxy may live under a prefix).
//
// Other schemes, an empty host, a port that is not 1..65535, a user name,
// a query or a fragment are refused with a *AddressError (relay/bad_address).
func NormalizeAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", badAddress("Type the relay's address, for example relay.example.com or ws://127.0.0.1:8080.")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", badAddress("A relay address has no spaces in it.")
	}
	scheme, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = strings.ToLower(s[:i]), s[i+3:]
		switch scheme {
		case "ws", "wss":
		case "http":
			scheme = "ws"
		case "https":
			scheme = "wss"
		default:
			return "", badAddress("%q is not a relay address: it must start with ws://, wss://, http:// or https://, or be just host:port.", s)
		}
	} else if ip := net.ParseIP(s); ip != nil && strings.Contains(s, ":") {
		rest = "[" + s + "]" // a bare IPv6 literal
	}
	u, err := url.Parse("x://" + rest)
	if err != nil {
		return "", badAddress("%q is not a relay address: write it as host:port or ws://host:port/v1/ws.", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(rest, "?") || strings.Contains(rest, "#") {
		return "", badAddress("%q is not a relay address: a relay address has no user name, ? or #.", s)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", badAddress("%q has no host name; write it as host:port.", s)
	}
	if !hostName(host) {
		return "", badAddress("%q does not name a host Weald can connect to.", s)
	}
	port := u.Port()
	if port != "" || strings.HasSuffix(u.Host, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return "", badAddress("%q has no valid port; a port is a number from 1 to 65535.", s)
		}
	}
	if scheme == "" {
		scheme = "wss"
		if loopback(host) {
			scheme = "ws"
		}
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if path == "" {
		path = DefaultPath
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport += ":" + port
	}
	return scheme + "://" + hostport + path, nil
}

// hostName reports whether host is an IP address or a DNS-style name
// (letters, digits, '-', '_', '.').
func hostName(host string) bool {
	if strings.Contains(host, ":") {
		return net.ParseIP(host) != nil
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func loopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dialError names why a WebSocket dial to addr failed: an HTTP answer that
// is not the relay's upgrade (a web page, a 404, another WebSocket service)
// is relay/not_a_relay; no answer at all is relay/unreachable. A 5xx answer
// (a proxy whose relay is restarting) counts as no answer: it may pass.
func dialError(addr string, resp *http.Response, err error) error {
	if errors.Is(err, errNoSubprotocol) || (resp != nil && resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode < 500) {
		return &AddressError{Code: CodeNotARelay, Err: err,
			Sentence: fmt.Sprintf("Something answers at %s, but it is not a Weald relay; check the address with whoever runs the relay.", addr)}
	}
	return &AddressError{Code: CodeUnreachable, Err: err,
		Sentence: fmt.Sprintf("Nothing answers as a relay at %s (%v); check the address and your connection.", addr, err)}
}

var errNoSubprotocol = errors.New("the server did not speak " + Subprotocol)
