package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"weald/backend/relay"
	"weald/backend/relayclient"
)

// runTokenCreate makes a provisioning token and prints the relay link that
// carries it (docs/protocol/wire.md "Provisioning"): whoever opens the link
// in Weald creates a workspace here with no operator step, while the relay
// serves with -provisioning token. The link goes to stdout alone; what it
// allows goes to stderr. Exit status: 0 done, 1 failed, 2 bad usage.
func runTokenCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := newStoreCommand("weald-relay token create", stderr)
	uses := c.fs.Int64("uses", 1, "how many workspaces the token may create")
	expires := c.fs.Duration("expires", 7*24*time.Hour, "how long the token lasts, e.g. 24h or 30m; 0 = until used up")
	addr := c.fs.String("relay", "", "the relay address the link names, as clients dial it (default: the first of WEALD_RELAY_PUBLIC_HOST, else WEALD_RELAY_LISTEN)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	switch {
	case *uses < 1 || *uses > 1_000_000:
		return c.usage("-uses: %d is out of range (1 to 1000000)", *uses)
	case *expires < 0:
		return c.usage("-expires: must not be negative (0 = until used up)")
	}
	relayAddr, err := linkAddress(*addr, getenv)
	if err != nil {
		return c.usage("%v", err)
	}
	svc, where, closeStore, code, ok := c.open(ctx, getenv)
	if !ok {
		return code
	}
	defer closeStore()
	tok, until, err := svc.CreateProvisionToken(ctx, *uses, *expires)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintln(stdout, relayclient.RelayLink{Relay: relayAddr, Token: tok}.String())
	lasts := "until used up"
	if !until.IsZero() {
		lasts = "until " + until.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(stderr, "weald-relay: this link creates up to %d workspace(s) on %s, %s; only its hash is stored in %s\n",
		*uses, relayAddr, lasts, where)
	if m, _ := relay.ParseProvisionMode(strings.TrimSpace(getenv("WEALD_RELAY_PROVISIONING"))); m != relay.ProvisionToken {
		fmt.Fprintf(stderr, "weald-relay: note: WEALD_RELAY_PROVISIONING is not token here; the relay accepts the link only while it serves with -provisioning token\n")
	}
	return 0
}

// linkAddress is the relay address a link names: -relay, else the first
// public host, else the listen address (which must name a host clients can
// dial).
func linkAddress(flagVal string, getenv func(string) string) (string, error) {
	a := strings.TrimSpace(flagVal)
	if a == "" {
		if ph := getenv("WEALD_RELAY_PUBLIC_HOST"); ph != "" {
			a = strings.TrimSpace(strings.Split(ph, ",")[0])
		}
	}
	if a == "" {
		listen := getenv("WEALD_RELAY_LISTEN")
		if listen == "" {
			listen = DefaultListen
		}
		host, _, err := net.SplitHostPort(listen)
		if err != nil || host == "" || net.ParseIP(host).IsUnspecified() {
			return "", fmt.Errorf("-relay: the relay listens on %q, which names no address clients can dial; give -relay ws://HOST:PORT or wss://HOST", listen)
		}
		a = "ws://" + listen
	}
	u, err := relayclient.NormalizeAddress(a)
	if err != nil {
		return "", fmt.Errorf("-relay: %v", err)
	}
	return u, nil
}
