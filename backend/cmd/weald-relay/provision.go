package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"

	"weald/backend/wire"
)

// runProvision records a workspace and its genesis public key
// (design/gaps.md "Invites and bootstrap"): the first access set must be
// signed by that key, which the relay then consumes. Exit status: 0 done,
// 1 refused or failed (workspace/exists included), 2 bad usage.
func runProvision(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := newStoreCommand("weald-relay provision", stderr)
	wsHex := c.fs.String("workspace", "", "workspace id, 64 hex digits (required)")
	genHex := c.fs.String("genesis", "", "genesis Ed25519 public key, 64 hex digits (required)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	ws, err := hex32(*wsHex)
	if err != nil {
		return c.usage("-workspace: %v", err)
	}
	gen, err := hex32(*genHex)
	if err != nil {
		return c.usage("-genesis: %v", err)
	}
	svc, where, closeStore, code, ok := c.open(ctx, getenv)
	if !ok {
		return code
	}
	defer closeStore()
	if err := svc.ProvisionWorkspace(ctx, wire.ID(ws), gen[:]); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(stdout, "weald-relay: provisioned workspace %x with genesis key %x in %s\n", ws, gen, where)
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
