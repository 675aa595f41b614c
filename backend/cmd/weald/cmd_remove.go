package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/lifecycle"
)

// Removing people, roles and devices (spec/lifecycle.md "Removing a
// person", "If the removed person is the last admin", "Key compromise").

func init() { register(removeCommands) }

// removalLimit is the sentence the removal states before it runs
// (spec/lifecycle.md "What removal does not do").
const removalLimit = "Removal cannot reach what this person already decrypted onto their own devices."

func removeCommands(c *cli) []*cobra.Command {
	var channel string
	var yes, reapprove bool
	remove := &cobra.Command{
		Use:   "remove USER [--channel CHANNEL] [--yes]",
		Short: "Remove a person from the workspace (or from one explicit channel); run again after a crash to resume",
		Long: `Remove a person (a display name, a user id, or 8+ hex digits of one) from the
workspace: every device and agent revoked, every group rotated, their recovery
wraps deleted, their invites revoked, a new access set without them, and a
receipt in the membership log. With --channel, from that explicit channel only.
` + removalLimit + `
The operation id is printed first, progress goes to stderr and the receipt to
stdout. Interrupted, the same command resumes the same operation. If another
admin changed the membership before the first commit, it pauses: read the
changes it prints and run it again with --reapprove.`,
		Args: nargs("remove USER [--channel CHANNEL] [--yes] [--reapprove]", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdRemove(cmd.Context(), args[0], channel, yes, reapprove)
		},
	}
	remove.Flags().StringVar(&channel, "channel", "", "remove from this explicit channel only")
	remove.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation")
	remove.Flags().BoolVar(&reapprove, "reapprove", false, "resume a paused removal on the current membership")
	var exportDir string
	receipts := &cobra.Command{
		Use:   "receipts [--export DIR]",
		Short: "List the removal receipts of the membership log; --export writes each as JSON",
		Args:  nargs("receipts [--export DIR]", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdReceipts(cmd.Context(), exportDir) },
	}
	receipts.Flags().StringVar(&exportDir, "export", "", "write removal-<operation>.json files into DIR")
	promote := &cobra.Command{
		Use:   "promote USER",
		Short: "Make a person an admin",
		Args:  nargs("promote USER", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withEngine(cmd.Context(), func(e *engine.Engine) error { return c.done(e.Promote(cmd.Context(), args[0]), "promoted", args[0]) })
		},
	}
	demote := &cobra.Command{
		Use:   "demote USER",
		Short: "Make an admin a member (never the last admin)",
		Args:  nargs("demote USER", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withEngine(cmd.Context(), func(e *engine.Engine) error { return c.done(e.Demote(cmd.Context(), args[0]), "demoted", args[0]) })
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List your devices",
		Args:  nargs("device list", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdDeviceList(cmd.Context()) },
	}
	revoke := &cobra.Command{
		Use:   "revoke DEVICE",
		Short: "Revoke a lost device (yours, or anyone's as an admin): the groups it was in rotate",
		Args:  nargs("device revoke DEVICE", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdDeviceRevoke(cmd.Context(), args[0]) },
	}
	approve := &cobra.Command{
		Use:   "approve DEVICE",
		Short: "End the probation of a device recovered with a recovery phrase (admins admitted before it)",
		Args:  nargs("device approve DEVICE", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdDeviceApprove(cmd.Context(), args[0]) },
	}
	alerts := &cobra.Command{
		Use:   "alerts",
		Short: "Sync, then list this workspace's security alerts (roster changes, recovered devices, refused operations)",
		Args:  nargs("alerts", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdAlerts(cmd.Context()) },
	}
	return []*cobra.Command{remove, receipts, promote, demote, alerts,
		group("device", "List, pair, revoke and approve devices",
			"device list | device pair | device accept LINK | device revoke DEVICE | device approve DEVICE",
			append([]*cobra.Command{list, revoke, approve}, pairCommands(c)...)...)}
}

// withSyncedEngine runs fn on this workspace's engine after one sync, for
// commands that print what the roster holds now.
func (c *cli) withSyncedEngine(ctx context.Context, fn func(e *engine.Engine) error) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		return fn(e)
	})
}

func (c *cli) done(err error, what, user string) error {
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{what: user})
	} else {
		fmt.Fprintf(c.stdout, "%s %s\n", what, user)
	}
	return nil
}

// openRemoving opens the workspace with progress printed to stderr, and
// the test hook WEALD_TEST_CRASH_AT (stop after that removal step, as a
// crash would) used by the CLI scripts.
func (c *cli) openRemoving(ctx context.Context) (*engine.Engine, error) {
	id, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	opts := c.options(c.wsDir(id))
	opts.OnEvent = func(ev engine.Event) {
		if ev.Kind == engine.EventProgress && strings.HasPrefix(ev.Task, "removal/") {
			fmt.Fprintf(c.stderr, "%s %d/%d\n", ev.Task, ev.Done, ev.Total)
		}
	}
	if at := c.getenv("WEALD_TEST_CRASH_AT"); at != "" {
		opts.Crash = func(step string) error {
			if step == at {
				return fmt.Errorf("stopped after %s (WEALD_TEST_CRASH_AT)", step)
			}
			return nil
		}
	}
	return engine.Open(ctx, opts)
}

func (c *cli) cmdRemove(ctx context.Context, user, channel string, yes, reapprove bool) error {
	e, err := c.openRemoving(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	plan, err := e.PlanRemoval(ctx, user, channel)
	if err != nil {
		return err
	}
	if plan.Resumes == "" && !yes {
		scope := "the workspace"
		if plan.Channel != "" {
			scope = "#" + plan.Channel
		}
		fmt.Fprintf(c.stderr, "Remove %s from %s: %d device(s), %d agent(s), %d group(s) rotated.\n", plan.Name, scope, plan.Devices, plan.Agents, plan.Groups)
		if plan.NotMember > 0 {
			fmt.Fprintf(c.stderr, "You are not in %d group(s); their members rotate them the next time they sync, once 10 minutes have passed.\n", plan.NotMember)
		}
		fmt.Fprintf(c.stderr, "%s\nType yes to remove: ", removalLimit)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != "yes" {
			return usagef("not confirmed; nothing was done (pass --yes to skip the question)")
		}
	}
	op, err := e.Remove(ctx, user, engine.RemoveOptions{Channel: channel, Reapprove: reapprove})
	if op != nil && !c.json {
		fmt.Fprintf(c.stderr, "operation %s\n", op.ID.Hex())
	}
	if errors.Is(err, lifecycle.ErrPaused) && op != nil {
		if c.json {
			c.print(map[string]any{"operation": op.ID, "state": op.State, "intervening": op.Intervening})
		} else {
			fmt.Fprintln(c.stdout, "paused: the membership changed since this removal was approved:")
			for _, ch := range op.Intervening {
				fmt.Fprintf(c.stdout, "  %s\n", ch)
			}
			fmt.Fprintln(c.stdout, "run it again with --reapprove to go on")
		}
		return err
	}
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"operation": op.ID, "state": op.State, "receipt": op.Receipt})
		return nil
	}
	printReceipt(c, op.Receipt)
	return nil
}

func printReceipt(c *cli, r *lifecycle.Receipt) {
	fmt.Fprintf(c.stdout, "removal %s: %s (%s) at %s\n", r.Operation.Hex(), r.Name, r.User.Hex()[:8], r.At.Format("2006-01-02 15:04:05Z"))
	fmt.Fprintf(c.stdout, "  devices revoked %d, agents revoked %d, access set %d, roster index %d\n",
		r.DevicesRevoked, r.AgentsRevoked, r.AccessVersion, r.RosterIndex)
	for _, g := range r.Groups {
		fmt.Fprintf(c.stdout, "  rotated %s to epoch %d\n", g.Name, g.Epoch)
	}
}

func (c *cli) cmdReceipts(ctx context.Context, dir string) error {
	return c.withSyncedEngine(ctx, func(e *engine.Engine) error {
		rs := e.Receipts()
		if rs == nil {
			rs = []lifecycle.Receipt{}
		}
		var paths []string
		if dir != "" {
			var err error
			if paths, err = lifecycle.Export(dir, rs); err != nil {
				return err
			}
		}
		if c.json {
			c.print(map[string]any{"receipts": rs, "exported": nonNil(paths)})
			return nil
		}
		for i := range rs {
			printReceipt(c, &rs[i])
		}
		for _, p := range paths {
			fmt.Fprintf(c.stdout, "exported %s\n", p)
		}
		return nil
	})
}

func (c *cli) cmdDeviceList(ctx context.Context) error {
	return c.withSyncedEngine(ctx, func(e *engine.Engine) error {
		ds := e.Devices()
		if c.json {
			c.print(map[string]any{"devices": ds})
			return nil
		}
		for _, d := range ds {
			state := "live"
			if d.RevokedAt != nil {
				state = "revoked"
			} else if d.Probation {
				state = "on probation"
			}
			this := ""
			if d.This {
				this = " (this device)"
			}
			fmt.Fprintf(c.stdout, "%s %s%s\n", d.Device, state, this)
		}
		return nil
	})
}

func (c *cli) cmdDeviceRevoke(ctx context.Context, device string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.RevokeDevice(ctx, device)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"revoked": res})
			return nil
		}
		fmt.Fprintf(c.stdout, "revoked device %s and %d agent(s); rotated %d group(s)\n", res.Device, res.Agents, len(res.Groups))
		if res.AccessVersion == 0 {
			fmt.Fprintln(c.stdout, "the relay still admits it until an admin's client publishes the access set (on its next sync)")
		}
		return nil
	})
}

func (c *cli) cmdDeviceApprove(ctx context.Context, device string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		d, err := e.ApproveDevice(ctx, device)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"approved": d})
			return nil
		}
		fmt.Fprintf(c.stdout, "approved device %s\n", d.Device)
		return nil
	})
}

func (c *cli) cmdAlerts(ctx context.Context) error {
	return c.withSyncedEngine(ctx, func(e *engine.Engine) error {
		as := e.Status().Alerts
		if c.json {
			c.print(map[string]any{"alerts": as})
			return nil
		}
		for _, a := range as {
			fmt.Fprintf(c.stdout, "%s %s %s\n", a.Time.UTC().Format("2006-01-02 15:04:05Z"), a.Code, a.Message)
		}
		return nil
	})
}
