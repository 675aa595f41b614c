package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

// pairCommands are `weald device pair` and `weald device accept` (issue 13
// "A second device"; docs/protocol/devices.md).
func pairCommands(c *cli) []*cobra.Command {
	var expires time.Duration
	pair := &cobra.Command{
		Use:   "pair [--expires DURATION]",
		Short: "Make a one-use pairing link for a new device of yours (run on a device you already have)",
		Args:  nargs("device pair [--expires DURATION]", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdDevicePair(cmd.Context(), expires)
		},
	}
	pair.Flags().DurationVar(&expires, "expires", engine.DefaultPairingLife, "how long the link stays usable (1m to 1h)")
	accept := &cobra.Command{
		Use:   "accept LINK",
		Short: "Join as an existing user with a pairing link (run on the new device)",
		Args:  nargs("device accept LINK", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdDeviceAccept(cmd.Context(), args[0])
		},
	}
	return []*cobra.Command{pair, accept}
}

func (c *cli) cmdDevicePair(ctx context.Context, expires time.Duration) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		p, err := e.PairDevice(ctx, expires)
		if err != nil {
			return err
		}
		if c.json {
			c.print(p)
			return nil
		}
		fmt.Fprintf(c.stdout, "pairing link (one use, until %s; it carries secrets: pass it only to your new device):\n  %s\n",
			p.Expires.Local().Format("15:04"), p.Link)
		if !p.Published {
			fmt.Fprintln(c.stdout, "the new device can use it once an admin's app has synced (it publishes the link to the relay)")
		}
		fmt.Fprintln(c.stdout, "on the new device: weald device accept LINK; then run weald sync here to add it to your private channels")
		return nil
	})
}

func (c *cli) cmdDeviceAccept(ctx context.Context, link string) error {
	opts := c.options(c.wsDir(fmt.Sprintf("pair-%d", time.Now().UnixNano())))
	tmp := opts.Dir
	e, jerr := engine.Join(ctx, opts, link)
	if e == nil {
		os.RemoveAll(tmp) // a refused pairing leaves nothing behind
		return jerr
	}
	name := e.DisplayName()
	st, chans, _, err := c.settle(ctx, e, tmp)
	if err != nil {
		return err
	}
	if jerr != nil {
		return jerr
	}
	if c.json {
		c.print(map[string]any{"workspace": st.Workspace, "name": st.Name, "user": st.User, "device": st.Device,
			"display_name": name, "ready": st.Ready, "channels": chans})
	} else {
		fmt.Fprintf(c.stdout, "this device joined %s (%s) as %s: %d channels\n", st.Name, st.Workspace, name, len(chans))
	}
	return nil
}
