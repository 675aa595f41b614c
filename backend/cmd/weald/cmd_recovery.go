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
	var users string
	var threshold int
	set := &cobra.Command{
		Use:   "set --users A,B,C --threshold K",
		Short: "Register the recovery quorum: K of these people vouch for a recovered device (admin)",
		Args:  nargs("recovery quorum set --users A,B,C --threshold K", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdQuorumSet(cmd.Context(), users, threshold)
		},
	}
	set.Flags().StringVar(&users, "users", "", "comma-separated names or user ids")
	set.Flags().IntVar(&threshold, "threshold", 0, "how many of them must vouch")
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the recovery quorum",
		Args:  nargs("recovery quorum show", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdQuorumShow(cmd.Context()) },
	}
	vouch := &cobra.Command{
		Use:   "vouch DEVICE",
		Short: "Vouch, as a member of the recovery quorum, for a device recovered with a phrase",
		Args:  nargs("recovery vouch DEVICE", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdVouch(cmd.Context(), args[0]) },
	}
	quorum := group("quorum", "Manage the workspace's recovery quorum", "recovery quorum set|show", set, show)
	return []*cobra.Command{group("recovery", "Manage your recovery phrase and the recovery quorum",
		"recovery rotate [--yes] | recovery quorum set|show | recovery vouch DEVICE", rotate, quorum, vouch)}
}

func (c *cli) cmdQuorumSet(ctx context.Context, users string, threshold int) error {
	var people []string
	for _, u := range strings.Split(users, ",") {
		if u = strings.TrimSpace(u); u != "" {
			people = append(people, u)
		}
	}
	if len(people) == 0 {
		return usagef("recovery quorum set --users A,B,C --threshold K")
	}
	return c.withEngine(ctx, func(e *engine.Engine) error {
		q, err := e.SetRecoveryQuorum(ctx, people, threshold)
		if err != nil {
			return err
		}
		return c.printQuorum(q)
	})
}

func (c *cli) cmdQuorumShow(ctx context.Context) error {
	return c.withSyncedEngine(ctx, func(e *engine.Engine) error { return c.printQuorum(e.RecoveryQuorum()) })
}

func (c *cli) printQuorum(q engine.Quorum) error {
	if c.json {
		c.print(map[string]any{"quorum": q})
		return nil
	}
	if !q.Registered {
		fmt.Fprintln(c.stdout, "no recovery quorum (an admin registers one: weald recovery quorum set --users A,B,C --threshold 2)")
		return nil
	}
	state := "live"
	if !q.Live {
		state = "not live: a member left, or too few members besides an admin hold a device to vouch for that admin"
	}
	fmt.Fprintf(c.stdout, "recovery quorum: %d of %d (%s)\n", q.Threshold, len(q.Members), state)
	for _, m := range q.Members {
		note := ""
		if !m.Active {
			note = " (no live device)"
		}
		fmt.Fprintf(c.stdout, "  %s %s%s\n", m.Name, m.User, note)
	}
	return nil
}

func (c *cli) cmdVouch(ctx context.Context, device string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		v, err := e.VouchDevice(ctx, device)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"vouch": v})
			return nil
		}
		if v.Probation {
			fmt.Fprintf(c.stdout, "vouched for device %s: %d of %d vouches, still on probation\n", v.Device, v.Vouches, v.Threshold)
		} else {
			fmt.Fprintf(c.stdout, "vouched for device %s: %d of %d vouches, its probation is over\n", v.Device, v.Vouches, v.Threshold)
		}
		return nil
	})
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
