package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/errcode"
)

func init() { register(dmCommands) }

func dmCommands(c *cli) []*cobra.Command {
	var wait string
	dm := &cobra.Command{
		Use:   "dm USER TEXT [--wait DURATION]",
		Short: "Send a direct message; the first one starts the DM (USER: a display name, a user id, or 8+ hex digits of one)",
		Args:  nargs("dm USER TEXT [--wait DURATION]   (USER: a display name, a user id, or 8+ hex digits of one)", 2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdDM(cmd.Context(), args[0], args[1], wait)
		},
	}
	dm.Flags().StringVar(&wait, "wait", "", "how long to wait for the other side to add this device (default 30s)")
	return []*cobra.Command{dm}
}

// errDMWaiting: the DM's message is still in the outbox (exit 3).
var errDMWaiting = errcode.New("dm/waiting", "the other side started this conversation and has not added this device yet; the message waits in the outbox")

// cmdDM is `weald dm USER TEXT [--wait DURATION]`: the first message to a
// person starts the DM (docs/protocol/dm.md). When the other side started
// it at the same moment and won, this device waits (up to --wait, default
// 30s) for that side to add it, then sends; past the wait the message
// stays in the outbox and goes with the next sync or run (exit 3).
func (c *cli) cmdDM(ctx context.Context, user, text, waitFlag string) error {
	wait := 30 * time.Second
	if waitFlag != "" {
		var err error
		if wait, err = time.ParseDuration(waitFlag); err != nil || wait < 0 {
			return usagef("--wait is a duration such as 30s")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	res, err := e.SendDM(ctx, user, text)
	if err != nil {
		return err
	}
	state := "sent"
	if res.Message.State != "" {
		state = "waiting"
		deadline := time.Now().Add(wait)
		for i := 0; i < 1000 && time.Now().Before(deadline); i++ {
			n, err := e.FlushOutbox(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				state = "sent"
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	if c.json {
		c.print(map[string]any{"channel": res.Channel, "peer": res.Peer, "created": res.Created, "state": state, "message": res.Message})
	} else if state == "sent" {
		fmt.Fprintf(c.stdout, "sent to %s\n", res.Peer[:8])
	} else {
		fmt.Fprintf(c.stdout, "waiting for %s's device to add this one; the message goes with the next sync\n", res.Peer[:8])
	}
	if state != "sent" {
		return errDMWaiting
	}
	return nil
}
