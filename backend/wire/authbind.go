package wire

import (
	"net"
	"strings"
)

// MaxHostLen bounds the host an AUTH names (a DNS name is at most 253
// bytes; with a port and brackets 255 is enough).
const MaxHostLen = 255

// AuthBinding is what an AUTH answers: this connection's nonce in this
// workspace, at the relay whose id the CHALLENGE carried, reached at the
// host the client dialled. Binding the relay's id and host into the signed
// content means a signature a client made for relay A answers no challenge
// of relay B, even when A's operator relays B's challenge to the client
// (docs/security.md section 7, docs/protocol/wire.md "Handshake").
type AuthBinding struct {
	Workspace ID
	Nonce     ID
	Relay     ID     // the relay id of the CHALLENGE
	Host      string // CanonicalHost of the authority the client dialled
}

// AuthChallengeContent is what a key signs to authenticate:
//
//	struct {
//	    opaque workspace[32]; opaque nonce[32]; opaque relay[32];
//	    opaque host<V>; opaque key<V>;
//	}
func AuthChallengeContent(b AuthBinding, key []byte) []byte {
	var w writer
	w.Array32(b.Workspace)
	w.Array32(b.Nonce)
	w.Array32(b.Relay)
	w.String(b.Host)
	w.Opaque(key)
	return w.Bytes()
}

// CanonicalHost returns the form of an HTTP authority ("host" or
// "host:port") that AUTH binds: lower case, without a trailing dot on the
// name, and without the port when it is 80 or 443 (the defaults of ws and
// wss; a proxy may add or drop them). Both sides compare this form: the
// client of the URL it dials, the relay of the Host header it received or
// of its configured public hosts. It returns "" for what is no host (empty,
// characters no host name or address has, a port that is not a number).
func CanonicalHost(authority string) string {
	h := strings.ToLower(strings.TrimSpace(authority))
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	host = strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if host == "" || strings.ContainsAny(host, "[]") || strings.Trim(host, hostChars) != "" ||
		strings.Trim(port, "0123456789") != "" {
		return ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || port == "80" || port == "443" {
		return host
	}
	return host + ":" + port
}

// hostChars are the characters of a DNS name, an IPv4 or IPv6 address
// (with a zone) in lower case.
const hostChars = "abcdefghijklmnopqrstuvwxyz0123456789.-_:%"
