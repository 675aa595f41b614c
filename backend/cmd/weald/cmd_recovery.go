package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

// A leaked recovery phrase (spec/lifecycle.md "Key compromise").

func init() { register(recoveryCommands) }

func recoveryCommands(c *cli) []*cobra.Command {
	var yes bool
	rotate := &cobra.Command{
		Use:   "rotate [--yes]",
		Short: "Replace your recovery phrase: the old one is revoked, every channel re-wrapped to the new one",
		Args:  nargs("recovery rotate [--yes]", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRecoveryRotate(cmd.Context(), yes) },
	}
	rotate.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation")
	return []*cobra.Command{group("recovery", "Manage your recovery phrase", "recovery rotate [--yes]", rotate)}
}

func (c *cli) cmdRecoveryRotate(ctx context.Context, yes bool) error {
	if !yes {
		fmt.Fprint(c.stderr, "Your current recovery phrase stops working and a new one is shown once.\nType yes to rotate: ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != "yes" {
			return usagef("not confirmed; nothing was done (pass --yes to skip the question)")
		}
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.RotateRecovery(ctx)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"rotation": res})
			return nil
		}
		fmt.Fprintf(c.stdout, "new recovery phrase (write it down now; it is not shown again):\n%s\n", res.Phrase)
		fmt.Fprintf(c.stdout, "revoked %s; re-wrapped %d channel(s)\n", res.Revoked, res.Rewrapped)
		if res.AccessVersion == 0 {
			fmt.Fprintln(c.stdout, "the relay still lets the old phrase connect (it can sign nothing) until an admin's client publishes the access set on its next sync")
		}
		return nil
	})
}
