package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

func init() { register(joinCommands) }

func joinCommands(c *cli) []*cobra.Command {
	var name string
	join := &cobra.Command{
		Use:   "join LINK [--name NAME]",
		Short: "Join a workspace with an invite link (weald://...)",
		Args:  nargs("join LINK [--name NAME]", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdJoin(cmd.Context(), args[0], strings.TrimSpace(name))
		},
	}
	join.Flags().StringVar(&name, "name", "", "your name in this workspace (default: the name given to init)")
	rename := &cobra.Command{
		Use:   "name [NEW_NAME]",
		Short: "Print or change your display name in the current workspace",
		Args:  nargs("name [NEW_NAME]", 0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdName(cmd.Context(), args)
		},
	}
	return []*cobra.Command{join, rename}
}

func (c *cli) cmdJoin(ctx context.Context, link, name string) error {
	if name == "" {
		pr, err := c.profile(ctx)
		if err != nil {
			return err
		}
		name = pr.Name
	}
	if err := engine.CheckName(name); err != nil {
		return err
	}
	opts := c.options(c.wsDir(fmt.Sprintf("join-%d", time.Now().UnixNano())))
	opts.DisplayName = name
	tmp := opts.Dir
	e, jerr := engine.Join(ctx, opts, link)
	if e == nil {
		os.RemoveAll(tmp) // a refused or unreachable join leaves nothing behind
		return jerr
	}
	st, chans, phrase, err := c.settle(ctx, e, tmp)
	if err != nil {
		return err
	}
	if jerr != nil {
		return jerr
	}
	if c.json {
		c.print(map[string]any{"workspace": st.Workspace, "name": st.Name, "ready": st.Ready, "channels": chans, "recovery_phrase": phrase})
	} else {
		fmt.Fprintf(c.stdout, "joined %s (%s): %d channels\nrecovery phrase (write it down; it is shown once):\n  %s\n", st.Name, st.Workspace, len(chans), phrase)
	}
	return nil
}

// cmdName prints this user's display name in the current workspace, or
// sets it (a roster set-name operation the other members see on sync).
func (c *cli) cmdName(ctx context.Context, args []string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if len(args) == 1 {
			if err := e.SetDisplayName(ctx, args[0]); err != nil {
				return err
			}
		}
		name := e.DisplayName()
		if c.json {
			c.print(map[string]any{"workspace": e.WorkspaceID(), "name": name})
		} else {
			fmt.Fprintln(c.stdout, name)
		}
		return nil
	})
}
