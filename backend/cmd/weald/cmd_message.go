package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

func init() { register(messageCommands) }

// messageCommands: send, read and members, the per-channel commands.
func messageCommands(c *cli) []*cobra.Command {
	send := &cobra.Command{
		Use:   "send CHANNEL TEXT",
		Short: "Send a message to a channel",
		Args:  nargs("send CHANNEL TEXT", 2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdSend(cmd.Context(), args[0], args[1])
		},
	}
	var limit string
	read := &cobra.Command{
		Use:   "read CHANNEL|@USER [--limit N]",
		Short: "Print a channel's or a DM's messages, oldest first",
		Args:  nargs("read CHANNEL|@USER [--limit N]", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdRead(cmd.Context(), args[0], limit)
		},
	}
	read.Flags().StringVar(&limit, "limit", "", "only the newest N messages")
	members := &cobra.Command{
		Use:   "members [CHANNEL]",
		Short: "List the workspace's or a channel's members and their devices",
		Args:  nargs("members [CHANNEL]", 0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ch := ""
			if len(args) == 1 {
				ch = args[0]
			}
			return c.cmdMembers(cmd.Context(), ch)
		},
	}
	edit := &cobra.Command{
		Use:   "edit CHANNEL MESSAGE-ID TEXT",
		Short: "Replace the text of one of your messages",
		Args:  nargs("edit CHANNEL MESSAGE-ID TEXT", 3, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdEdit(cmd.Context(), args[0], args[1], args[2])
		},
	}
	del := &cobra.Command{
		Use:   "delete CHANNEL MESSAGE-ID",
		Short: "Delete one of your messages",
		Args:  nargs("delete CHANNEL MESSAGE-ID", 2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdDelete(cmd.Context(), args[0], args[1])
		},
	}
	return []*cobra.Command{send, read, members, edit, del}
}

func (c *cli) cmdEdit(ctx context.Context, channel, id, text string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		m, err := e.Edit(ctx, channel, id, text)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"message": m, "channel": channel})
		} else {
			fmt.Fprintf(c.stdout, "edited %s\n", m.ID)
		}
		return nil
	})
}

func (c *cli) cmdDelete(ctx context.Context, channel, id string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if err := e.Delete(ctx, channel, id); err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"deleted": id, "channel": channel})
		} else {
			fmt.Fprintf(c.stdout, "deleted %s\n", id)
		}
		return nil
	})
}

func (c *cli) cmdSend(ctx context.Context, channel, text string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		m, err := e.Send(ctx, channel, text)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"message": m, "channel": channel, "id": m.ID})
		} else {
			fmt.Fprintf(c.stdout, "sent %s\n", m.ID)
		}
		return nil
	})
}

func (c *cli) cmdRead(ctx context.Context, channel, limitFlag string) error {
	limit := 0
	if limitFlag != "" {
		var err error
		if limit, err = strconv.Atoi(limitFlag); err != nil || limit < 0 {
			return usagef("--limit is a whole number")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ms, err := e.Messages(ctx, channel, limit)
	if err != nil {
		return err
	}
	if c.json {
		if ms == nil {
			ms = []engine.Message{}
		}
		c.print(map[string]any{"channel": channel, "messages": ms})
		return nil
	}
	for _, m := range ms {
		fmt.Fprintf(c.stdout, "%s %s: %s\n", m.Time.Format(time.RFC3339), m.AuthorName, m.Text)
	}
	return nil
}

func (c *cli) cmdMembers(ctx context.Context, ch string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		ms, err := e.Members(ctx, ch)
		if err != nil {
			return err
		}
		if c.json {
			if ms == nil {
				ms = []engine.Member{}
			}
			c.print(map[string]any{"members": ms})
			return nil
		}
		for _, m := range ms {
			fmt.Fprintf(c.stdout, "%s (%s) device %s %s\n", m.Name, m.User[:8], m.Device[:8], m.Role)
		}
		return nil
	})
}
