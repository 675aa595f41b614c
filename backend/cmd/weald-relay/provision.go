package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"

	"weald/backend/relay"
	"weald/backend/wire"
)

// runProvision records a workspace and its genesis public key
// (design/gaps.md "Invites and bootstrap"): the first access set must be
// signed by that key, which the relay then consumes. Exit status: 0 done,
// 1 refused or failed (workspace/exists included), 2 bad usage.
func runProvision(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weald-relay provision", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wsHex := fs.String("workspace", "", "workspace id, 64 hex digits (required)")
	genHex := fs.String("genesis", "", "genesis Ed25519 public key, 64 hex digits (required)")
	db := fs.String("db", "", "SQLite file path or postgres:// URL (env WEALD_RELAY_DB)")
	dataDir := fs.String("data-dir", "", "data directory of the default SQLite database (env WEALD_RELAY_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "weald-relay provision: %v\n", err)
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "weald-relay provision: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected argument %q", fs.Arg(0))
	}
	ws, err := hex32(*wsHex)
	if err != nil {
		return usage("-workspace: %v", err)
	}
	gen, err := hex32(*genHex)
	if err != nil {
		return usage("-genesis: %v", err)
	}
	choice, err := resolveDB(*db, *dataDir, getenv)
	if err != nil {
		return usage("%v", err)
	}
	st, err := openStore(ctx, config{DB: choice.path, DataDir: choice.dataDir})
	if err != nil {
		fmt.Fprintf(stderr, "weald-relay provision: %v\n", err)
		return 1
	}
	defer st.Close()
	svc := relay.New(relay.Config{Store: st})
	if err := svc.ProvisionWorkspace(ctx, wire.ID(ws), gen[:]); err != nil {
		fmt.Fprintf(stderr, "weald-relay provision: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "weald-relay: provisioned workspace %x with genesis key %x in %s\n", ws, gen, describeDB(choice.path))
	return 0
}

func hex32(s string) ([32]byte, error) {
	var out [32]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return out, fmt.Errorf("%q is not 64 hex digits", s)
	}
	copy(out[:], b)
	return out, nil
}
