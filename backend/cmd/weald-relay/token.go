package main

import (
	"context"
	"errors"
	"flag"
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
	fs := flag.NewFlagSet("weald-relay token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	uses := fs.Int64("uses", 1, "how many workspaces the token may create")
	expires := fs.Duration("expires", 7*24*time.Hour, "how long the token lasts, e.g. 24h or 30m; 0 = until used up")
	addr := fs.String("relay", "", "the relay address the link names, as clients dial it (default: the first of WEALD_RELAY_PUBLIC_HOST, else WEALD_RELAY_LISTEN)")
	db := fs.String("db", "", "SQLite file path or postgres:// URL (env WEALD_RELAY_DB)")
	dataDir := fs.String("data-dir", "", "data directory of the default SQLite database (env WEALD_RELAY_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "weald-relay token create: %v\n", err)
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "weald-relay token create: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case *uses < 1 || *uses > 1_000_000:
		return usage("-uses: %d is out of range (1 to 1000000)", *uses)
	case *expires < 0:
		return usage("-expires: must not be negative (0 = until used up)")
	}
	relayAddr, err := linkAddress(*addr, getenv)
	if err != nil {
		return usage("%v", err)
	}
	choice, err := resolveDB(*db, *dataDir, getenv)
	if err != nil {
		return usage("%v", err)
	}
	st, err := openStore(ctx, config{DB: choice.path, DataDir: choice.dataDir})
	if err != nil {
		fmt.Fprintf(stderr, "weald-relay token create: %v\n", err)
		return 1
	}
	defer st.Close()
	tok, until, err := relay.New(relay.Config{Store: st}).CreateProvisionToken(ctx, *uses, *expires)
	if err != nil {
		fmt.Fprintf(stderr, "weald-relay token create: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, relayclient.RelayLink{Relay: relayAddr, Token: tok}.String())
	lasts := "until used up"
	if !until.IsZero() {
		lasts = "until " + until.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(stderr, "weald-relay: this link creates up to %d workspace(s) on %s, %s; only its hash is stored in %s\n",
		*uses, relayAddr, lasts, describeDB(choice.path))
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
