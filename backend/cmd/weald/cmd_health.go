package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/health"
)

func init() { register(healthCommands) }

// healthCommands: weald health (docs/protocol/health.md).
func healthCommands(c *cli) []*cobra.Command {
	var dismiss string
	cmd := &cobra.Command{
		Use:   "health [--dismiss CHECK]",
		Short: "Sync, run the workspace's health check now and print each finding; exit 6 when one needs action",
		Args:  nargs("health [--dismiss CHECK]", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdHealth(cmd.Context(), dismiss) },
	}
	cmd.Flags().StringVar(&dismiss, "dismiss", "", "dismiss a failure once (admin_devices only) and print the report")
	return []*cobra.Command{cmd}
}

// attentionError: the command worked and found something that needs
// action (exit 6, no error object under --json: the report says it).
type attentionError struct{ n int }

func (a *attentionError) Error() string {
	if a.n == 1 {
		return "1 health check needs action"
	}
	return fmt.Sprintf("%d health checks need action", a.n)
}

var stateLabel = map[health.State]string{
	health.StateOK: "ok", health.StateRepaired: "repaired", health.StateAction: "ACTION",
	health.StateDismissed: "dismissed", health.StateNotChecked: "not checked",
}

func (c *cli) cmdHealth(ctx context.Context, dismiss string) error {
	var rep *health.Report
	err := c.withEngine(ctx, func(e *engine.Engine) error {
		var err error
		if dismiss != "" {
			rep, err = e.DismissHealth(ctx, dismiss)
			if err == nil && rep == nil {
				rep, err = e.RunHealth(ctx)
			}
			return err
		}
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		rep, err = e.RunHealth(ctx)
		return err
	})
	if err != nil {
		return err
	}
	n := 0
	for _, f := range rep.Findings {
		if f.NeedsAction() {
			n++
		}
	}
	if c.json {
		c.print(map[string]any{"health": rep, "needs_action": n > 0})
	} else {
		fmt.Fprintf(c.stdout, "health check at %s\n", rep.At.Format(time.DateTime+" UTC"))
		for _, f := range rep.Findings {
			fmt.Fprintf(c.stdout, "%-11s %s: %s\n", stateLabel[f.State], f.Title, f.Finding)
			if f.Action != nil && (f.State == health.StateAction || f.State == health.StateDismissed) {
				fmt.Fprintf(c.stdout, "%-11s   to resolve: %s", "", f.Action.Label)
				if f.Action.Command != "" {
					fmt.Fprintf(c.stdout, " (%s)", f.Action.Command)
				}
				fmt.Fprintln(c.stdout)
			}
		}
	}
	if n > 0 {
		return &attentionError{n}
	}
	return nil
}
