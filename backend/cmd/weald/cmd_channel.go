package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/roster"
)

func init() { register(channelCommands) }

func channelCommands(c *cli) []*cobra.Command {
	channels := &cobra.Command{
		Use:   "channels",
		Short: "List the workspace's channels",
		Args:  nargs("channels", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdChannels(cmd.Context()) },
	}
	var admission string
	create := &cobra.Command{
		Use:   "create NAME --admission parent|explicit",
		Short: "Create a channel: parent (every member) or explicit (people added by name)",
		Args:  nargs("channel create NAME --admission parent|explicit", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdChannelCreate(cmd.Context(), args[0], admission)
		},
	}
	create.Flags().StringVar(&admission, "admission", "", "parent (default) or explicit")
	add := &cobra.Command{
		Use:   "add CHANNEL USER...",
		Short: "Add people to an explicit channel (USER: a display name, a user id, or 8+ hex digits of one)",
		Args:  nargs("channel add CHANNEL USER...", 2, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdChannelAdd(cmd.Context(), args[0], args[1:])
		},
	}
	return []*cobra.Command{channels, group("channel", "Create channels and add people to them",
		"channel create NAME --admission parent|explicit, or channel add CHANNEL USER...", create, add)}
}

func (c *cli) cmdChannels(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		chans := e.Channels()
		if c.json {
			if chans == nil {
				chans = []engine.Channel{}
			}
			c.print(map[string]any{"channels": chans})
			return nil
		}
		for _, ch := range chans {
			fmt.Fprintf(c.stdout, "%-16s %s %s/%s/%s default=%v muted=%v member=%v\n", ch.Name, ch.Group[:8], ch.Kind, ch.Admission, ch.History, ch.Default, ch.Muted, ch.Member)
		}
		return nil
	})
}

func (c *cli) cmdChannelCreate(ctx context.Context, name, admission string) error {
	adm := roster.AdmissionParent
	switch admission {
	case "", "parent":
	case "explicit":
		adm = roster.AdmissionExplicit
	default:
		return usagef("--admission is parent or explicit")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ch, err := e.CreateChannel(ctx, name, adm)
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"channel": ch})
	} else {
		fmt.Fprintf(c.stdout, "created %s (%s)\n", ch.Name, ch.Group)
	}
	return nil
}

// cmdChannelAdd adds every device of each named person to an explicit
// channel in one commit; devices without a key package on the relay are
// recorded as pending adds, which a member's client completes later.
func (c *cli) cmdChannelAdd(ctx context.Context, channel string, users []string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		res, err := e.AddPeople(ctx, channel, users)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"channel": channel, "added": res.Added, "pending": res.Pending})
			return nil
		}
		fmt.Fprintf(c.stdout, "added %d device(s) to %s\n", len(res.Added), channel)
		if len(res.Pending) > 0 {
			fmt.Fprintf(c.stdout, "%d device(s) have not checked in yet: recorded as pending adds; a member's client adds them when they do\n", len(res.Pending))
		}
		return nil
	})
}
