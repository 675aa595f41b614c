package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

func init() { register(joinCommands) }

func joinCommands(c *cli) []*cobra.Command {
	return []*cobra.Command{{
		Use:   "join LINK",
		Short: "Join a workspace with an invite link (weald://...)",
		Args:  nargs("join LINK", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdJoin(cmd.Context(), args[0])
		},
	}}
}

func (c *cli) cmdJoin(ctx context.Context, link string) error {
	if _, err := c.profile(); err != nil {
		return err
	}
	tmp := c.wsDir(fmt.Sprintf("join-%d", time.Now().UnixNano()))
	e, jerr := engine.Join(ctx, c.options(tmp), link)
	if e == nil {
		return jerr
	}
	st := e.Status()
	chans := e.Channels()
	phrase, _ := e.TakeRecoveryPhrase(ctx)
	e.Close()
	if err := os.Rename(tmp, c.wsDir(st.Workspace)); err != nil {
		return err
	}
	if err := c.setCurrent(st.Workspace); err != nil {
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
