package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

func init() { register(syncCommands) }

// syncCommands: sync, status and run, the commands that talk to the relay
// about the workspace as a whole.
func syncCommands(c *cli) []*cobra.Command {
	return []*cobra.Command{{
		Use:   "sync",
		Short: "Fetch and apply what is new; finish a pending bootstrap or join",
		Args:  nargs("sync", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdSync(cmd.Context()) },
	}, {
		Use:   "status",
		Short: "Show the current workspace's state",
		Args:  nargs("status", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdStatus(cmd.Context()) },
	}, {
		Use:   "run",
		Short: "Stay connected and print events until interrupted",
		Args:  nargs("run", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRun(cmd.Context()) },
	}}
}

func (c *cli) cmdSync(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		rep, err := e.Sync(ctx)
		if err != nil {
			return err
		}
		st := e.Status()
		phrase, _ := e.TakeRecoveryPhrase(ctx) // set once a resumed bootstrap finished
		if c.json {
			out := map[string]any{"workspace": st.Workspace, "ready": rep.Ready, "joined": nonNil(rep.Joined.Joined),
				"waiting": nonNil(rep.Joined.Waiting), "failed": nonNil(rep.Joined.Failed), "pending": st.Pending}
			if phrase != "" {
				out["recovery_phrase"] = phrase
			}
			c.print(out)
		} else {
			fmt.Fprintf(c.stdout, "synced: ready=%v, joined %d channels\n", rep.Ready, len(rep.Joined.Joined))
			if phrase != "" {
				fmt.Fprintf(c.stdout, "recovery phrase (write it down; it is shown once):\n  %s\n", phrase)
			}
		}
		return nil
	})
}

func (c *cli) cmdStatus(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		st := e.Status()
		if c.json {
			c.print(st)
			return nil
		}
		fmt.Fprintf(c.stdout, "workspace %s (%s) ready=%v groups=%d joined=%d pending=%v\n", st.Name, st.Workspace, st.Ready, st.Groups, st.Joined, st.Pending)
		return nil
	})
}

func (c *cli) cmdRun(ctx context.Context) error {
	id, err := c.current(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(c.stdout)
	opts := c.options(c.wsDir(id))
	opts.OnEvent = func(ev engine.Event) {
		if c.json {
			enc.Encode(ev)
		} else {
			fmt.Fprintf(c.stdout, "%s %s%s%s\n", ev.Kind, ev.Channel, ev.Code, ev.Message)
		}
	}
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Run(ctx)
}
