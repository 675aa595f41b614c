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

func init() { register(retentionCommands) }

// retentionCommands: retention show|set, compact and storage
// (docs/protocol/retention.md).
func retentionCommands(c *cli) []*cobra.Command {
	show := &cobra.Command{
		Use:   "show CHANNEL",
		Short: "Show a channel's retention windows, checkpoints and compaction state",
		Args:  nargs("retention show CHANNEL", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRetentionShow(cmd.Context(), args[0]) },
	}
	var text, media string
	var dry bool
	set := &cobra.Command{
		Use:   "set CHANNEL --text DURATION|unlimited --media DURATION [--dry-run]",
		Short: "Set a channel's retention windows (admins), after showing what they would delete (DURATION: 30d, 720h)",
		Args:  nargs("retention set CHANNEL --text DURATION|unlimited --media DURATION [--dry-run]", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdRetentionSet(cmd.Context(), args[0], text, media, dry)
		},
	}
	set.Flags().StringVar(&text, "text", "", "text window: unlimited, 30d, 720h")
	set.Flags().StringVar(&media, "media", "", "media window: unlimited, 180d, …")
	set.Flags().BoolVar(&dry, "dry-run", false, "show the impact only; change nothing")
	pending := &cobra.Command{
		Use:   "pending",
		Short: "List retention changes waiting for admins' approval",
		Args:  nargs("retention pending", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRetentionPending(cmd.Context()) },
	}
	approve := &cobra.Command{
		Use:   "approve ID|CHANNEL",
		Short: "Approve a pending retention change (admins; ID from retention pending, or the channel of the only one)",
		Args:  nargs("retention approve ID|CHANNEL", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRetentionApprove(cmd.Context(), args[0]) },
	}
	resolve := &cobra.Command{
		Use:   "resolve CHANNEL",
		Short: "End a channel's frozen retention chain (admins): keep the key this device's epochs derive, discard the other; with several admins, propose it or approve another admin's",
		Args:  nargs("retention resolve CHANNEL", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdRetentionResolve(cmd.Context(), args[0]) },
	}
	var all, now bool
	compact := &cobra.Command{
		Use:   "compact CHANNEL|--all [--now]",
		Short: "Checkpoint channels and drop what their retention policy lets go; --now (admins) drops everything below the checkpoint",
		Args:  nargs("compact CHANNEL|--all [--now]", 0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == all {
				return usagef("compact CHANNEL|--all [--now]")
			}
			channel := ""
			if len(args) == 1 {
				channel = args[0]
			}
			return c.cmdCompact(cmd.Context(), channel, now)
		},
	}
	compact.Flags().BoolVar(&all, "all", false, "every channel this device is in")
	compact.Flags().BoolVar(&now, "now", false, "compact now: delete everything below a fresh checkpoint (admins)")
	storage := &cobra.Command{
		Use:   "storage",
		Short: "Show the workspace's use of the relay's storage budget",
		Args:  nargs("storage", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdStorage(cmd.Context()) },
	}
	return []*cobra.Command{group("retention", "Show, set or approve a channel's retention windows",
		"retention show CHANNEL, retention set CHANNEL --text DURATION|unlimited --media DURATION [--dry-run], retention pending, retention approve ID|CHANNEL, or retention resolve CHANNEL",
		show, set, pending, approve, resolve),
		compact, storage}
}

// parseWindow reads a retention window: "unlimited", N "d" (days), or a Go
// duration ("720h").
func parseWindow(s string) (time.Duration, error) {
	switch {
	case s == "unlimited" || s == "0":
		return 0, nil
	case strings.HasSuffix(s, "d"):
		n, err := strconv.ParseUint(strings.TrimSuffix(s, "d"), 10, 32)
		if err != nil || n == 0 || n > 36500 {
			return 0, usagef("a window is unlimited, 1d to 36500d, or a duration such as 720h; not %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usagef("a window is unlimited, 1d to 36500d, or a duration such as 720h; not %q", s)
	}
	return d, nil
}

func window(d time.Duration) string {
	if d <= 0 {
		return "unlimited"
	}
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func (c *cli) cmdRetentionShow(ctx context.Context, channel string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		info, err := e.Retention(channel)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"retention": info})
			return nil
		}
		src := "policy"
		if info.Default {
			src = "defaults"
		}
		fmt.Fprintf(c.stdout, "#%s: text %s, media %s (%s)\n", info.Channel, window(info.TextWindow), window(info.MediaWindow), src)
		if !info.LastCheckpoint.IsZero() {
			fmt.Fprintf(c.stdout, "last checkpoint %s; %d changes since\n", info.LastCheckpoint.Format(time.DateTime), info.ChangesSince)
		}
		if info.ChainFrozen {
			fmt.Fprintln(c.stdout, "retention chain frozen: nothing is compacted until an admin resolves it")
		}
		if !info.VerifiedFrom.IsZero() {
			fmt.Fprintf(c.stdout, "history verified from %s\n", info.VerifiedFrom.Format(time.DateOnly))
		}
		return nil
	})
}

func (c *cli) cmdRetentionSet(ctx context.Context, channel, textArg, mediaArg string, dry bool) error {
	if textArg == "" || mediaArg == "" {
		return usagef("retention set CHANNEL --text DURATION|unlimited --media DURATION [--dry-run]")
	}
	text, err := parseWindow(textArg)
	if err != nil {
		return err
	}
	media, err := parseWindow(mediaArg)
	if err != nil {
		return err
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ch, err := e.SetRetention(ctx, channel, text, media, !dry)
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"change": ch})
		return nil
	}
	// The steward's checkpoints leave out the expired days, and a drop a
	// window after one deletes everything below it, the earlier snapshots
	// included (retention.md "What a text window removes").
	fmt.Fprintf(c.stdout, "#%s: %d messages are older than a text window of %s; the relay deletes them, text included (about %d bytes of envelopes), at the first compaction a window after the channel's next checkpoint; members keep their own copies\n",
		ch.Channel, ch.Impact.Messages, window(text), ch.Impact.Bytes)
	switch {
	case !ch.Applied:
		fmt.Fprintln(c.stdout, "nothing changed (--dry-run)")
	case ch.Note != "":
		fmt.Fprintln(c.stdout, ch.Note)
	default:
		fmt.Fprintln(c.stdout, "in force and published to the relay")
	}
	return nil
}

func (c *cli) cmdRetentionPending(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		ps := e.PendingRetentions()
		if c.json {
			if ps == nil {
				ps = []engine.PendingRetention{}
			}
			c.print(map[string]any{"pending": ps})
			return nil
		}
		if len(ps) == 0 {
			fmt.Fprintln(c.stdout, "no retention change is waiting for approval")
		}
		for _, p := range ps {
			what := fmt.Sprintf("text %s, media %s", window(p.TextWindow), window(p.MediaWindow))
			if p.Destroy {
				what = "compact now: delete the history on the relay below the checkpoint"
				if !p.CheckpointAt.IsZero() {
					what += " of " + p.CheckpointAt.Format(time.DateTime)
				}
				what += ", if approved before " + p.Expires.Format(time.DateTime)
			}
			if p.Resolve {
				what = "resolve the frozen retention chain: keep a key this device's chain does not hold"
				if p.ResolveEpoch != 0 {
					what = fmt.Sprintf("resolve the frozen retention chain: keep the key of epoch %d", p.ResolveEpoch)
				}
				if !p.Expires.IsZero() {
					what += ", if approved before " + p.Expires.Format(time.DateTime)
				}
				if !p.Approvable {
					what += " (this device cannot approve it)"
				}
			}
			fmt.Fprintf(c.stdout, "%s  #%s: %s; proposed by %s on %s; approved by %s (%d of %d)\n",
				p.ID[:12], p.Channel, what, p.Proposer, p.ProposedAt.Format(time.DateOnly),
				strings.Join(p.Approvals, ", "), len(p.Approvals), p.Threshold)
		}
		return nil
	})
}

func (c *cli) cmdRetentionApprove(ctx context.Context, id string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		ch, err := e.ApproveRetention(ctx, id)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"change": ch})
			return nil
		}
		switch {
		case ch.Note != "":
			fmt.Fprintf(c.stdout, "#%s: %s\n", ch.Channel, ch.Note)
		default:
			fmt.Fprintf(c.stdout, "#%s: in force and published to the relay\n", ch.Channel)
		}
		return nil
	})
}

func (c *cli) cmdRetentionResolve(ctx context.Context, channel string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		res, err := e.ResolveRetentionChain(ctx, channel)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"resolved": res})
			return nil
		}
		if res.Pending != "" {
			fmt.Fprintf(c.stdout, "#%s: resolution proposed (%d of %d admins); another admin approves it with weald retention approve %s or weald retention resolve %s\n",
				res.Channel, res.Approvals, res.Threshold, res.Pending[:12], res.Channel)
			return nil
		}
		fmt.Fprintf(c.stdout, "#%s: retention chain resolved: kept the key of epoch %d, discarded %d; compaction can resume\n",
			res.Channel, res.Epoch, res.Discarded)
		return nil
	})
}

// cmdCompact compacts one channel, or every one when channel is "".
func (c *cli) cmdCompact(ctx context.Context, channel string, now bool) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		var reps []engine.CompactReport
		var err error
		if channel == "" {
			reps, err = e.CompactAll(ctx, now)
		} else {
			var r engine.CompactReport
			if r, err = e.Compact(ctx, channel, now); err == nil {
				reps = append(reps, r)
			}
		}
		if c.json {
			if reps == nil {
				reps = []engine.CompactReport{}
			}
			if err == nil {
				c.print(map[string]any{"compacted": reps})
			}
			return err
		}
		for _, r := range reps {
			if r.Statement != "" {
				fmt.Fprintln(c.stdout, r.Statement)
			}
			fmt.Fprintf(c.stdout, "#%s: checkpoint at seq %d over %d documents", r.Channel, r.Checkpoint, r.Documents)
			switch {
			case r.Dropped:
				fmt.Fprintf(c.stdout, "; deleted %d envelopes (%d bytes)\n", r.Envelopes, r.Bytes)
			case r.Pending != "":
				fmt.Fprintf(c.stdout, "; %s\n", r.NotDue)
			default:
				fmt.Fprintf(c.stdout, "; nothing deleted: %s\n", r.NotDue)
			}
		}
		return err
	})
}

func (c *cli) cmdStorage(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		st, err := e.Storage(ctx)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"storage": st})
			return nil
		}
		if st.LimitBytes == 0 {
			fmt.Fprintf(c.stdout, "%d bytes in %d envelopes across %d groups; the relay sets no budget\n", st.LogBytes, st.Envelopes, st.Groups)
			return nil
		}
		fmt.Fprintf(c.stdout, "%d of %d bytes (%d %%) in %d envelopes across %d groups\n", st.LogBytes, st.LimitBytes, st.Percent, st.Envelopes, st.Groups)
		if st.NearBudget {
			fmt.Fprintln(c.stdout, "near the budget: weald compact --all --now frees space")
		}
		return nil
	})
}
