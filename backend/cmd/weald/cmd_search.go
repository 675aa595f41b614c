package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

func init() { register(searchCommands) }

// searchCommands: search, over the local history.
func searchCommands(c *cli) []*cobra.Command {
	var channel, limit string
	search := &cobra.Command{
		Use:   "search QUERY [--channel CHANNEL] [--limit N]",
		Short: "Search the local history for messages holding every word, newest first",
		Long: "Search the messages this device has decrypted for those holding every word of QUERY " +
			"(the last word also as the start of a word), in every channel or one, newest first.",
		Args: nargs("search QUERY [--channel CHANNEL] [--limit N]", 1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdSearch(cmd.Context(), strings.Join(args, " "), channel, limit)
		},
	}
	search.Flags().StringVar(&channel, "channel", "", "only this channel")
	search.Flags().StringVar(&limit, "limit", "", "at most N results (1 to 500, default 50)")
	return []*cobra.Command{search}
}

func (c *cli) cmdSearch(ctx context.Context, query, channel, limitFlag string) error {
	limit := 50
	if limitFlag != "" {
		var err error
		if limit, err = strconv.Atoi(limitFlag); err != nil || limit < 1 || limit > 500 {
			return usagef("--limit is a whole number from 1 to 500")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	res, err := e.Search(ctx, query, channel, limit)
	if err != nil {
		return err
	}
	if c.json {
		if res == nil {
			res = []engine.SearchResult{}
		}
		c.print(map[string]any{"query": query, "results": res})
		return nil
	}
	for _, r := range res {
		m := r.Message
		fmt.Fprintf(c.stdout, "#%s %s %s %s: %s\n", r.ChannelName, m.ID, m.Time.Format(time.RFC3339), m.Author[:8], m.Text)
	}
	return nil
}
