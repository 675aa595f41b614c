package main

import (
	"context"
	"fmt"
	"io"

	"weald/backend/wire"
)

// runTeardown deletes a provisioned workspace to which no trust root was
// ever admitted (its genesis key unconsumed; docs/protocol/wire.md
// "Teardown"): a provision its creator abandoned. A workspace with a trust
// root is refused (provision/active). Exit status: 0 done, 1 refused or
// failed, 2 bad usage.
func runTeardown(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := newStoreCommand("weald-relay teardown", stderr)
	wsHex := c.fs.String("workspace", "", "workspace id, 64 hex digits (required)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	ws, err := hex32(*wsHex)
	if err != nil {
		return c.usage("-workspace: %v", err)
	}
	svc, where, closeStore, code, ok := c.open(ctx, getenv)
	if !ok {
		return code
	}
	defer closeStore()
	if err := svc.TeardownWorkspace(ctx, wire.ID(ws)); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(stdout, "weald-relay: tore down workspace %x (no trust root was ever admitted) in %s\n", ws, where)
	return 0
}
