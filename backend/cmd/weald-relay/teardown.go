package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"weald/backend/relay"
	"weald/backend/wire"
)

// runTeardown deletes a provisioned workspace to which no trust root was
// ever admitted (its genesis key unconsumed; docs/protocol/wire.md
// "Teardown"): a provision its creator abandoned. A workspace with a trust
// root is refused (provision/active). Exit status: 0 done, 1 refused or
// failed, 2 bad usage.
func runTeardown(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weald-relay teardown", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wsHex := fs.String("workspace", "", "workspace id, 64 hex digits (required)")
	db := fs.String("db", "", "SQLite file path or postgres:// URL (env WEALD_RELAY_DB)")
	dataDir := fs.String("data-dir", "", "data directory of the default SQLite database (env WEALD_RELAY_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "weald-relay teardown: %v\n", err)
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "weald-relay teardown: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	ws, err := hex32(*wsHex)
	if err != nil {
		return usage("-workspace: %v", err)
	}
	choice, err := resolveDB(*db, *dataDir, getenv)
	if err != nil {
		return usage("%v", err)
	}
	st, err := openStore(ctx, config{DB: choice.path, DataDir: choice.dataDir})
	if err != nil {
		fmt.Fprintf(stderr, "weald-relay teardown: %v\n", err)
		return 1
	}
	defer st.Close()
	if err := relay.New(relay.Config{Store: st}).TeardownWorkspace(ctx, wire.ID(ws)); err != nil {
		fmt.Fprintf(stderr, "weald-relay teardown: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "weald-relay: tore down workspace %x (no trust root was ever admitted) in %s\n", ws, describeDB(choice.path))
	return 0
}
