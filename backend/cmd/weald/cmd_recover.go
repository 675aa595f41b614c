package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

// Recovery onto a new device (spec/lifecycle.md "Key compromise": "recover
// onto a new device, which revokes the old one as its last step").

func init() { register(recoverCommands) }

func recoverCommands(c *cli) []*cobra.Command {
	var phraseFile, relay, ws string
	cmd := &cobra.Command{
		Use:   "recover --phrase-file FILE --relay URL --workspace ID",
		Short: "Recover onto this device with your recovery phrase (every other device of yours lost); run again to resume",
		Args:  nargs("recover --phrase-file FILE --relay URL --workspace ID", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdRecover(cmd.Context(), phraseFile, relay, ws)
		},
	}
	cmd.Flags().StringVar(&phraseFile, "phrase-file", "", "a file holding the 24 words (read, never copied)")
	cmd.Flags().StringVar(&relay, "relay", "", "the workspace's relay (wss://...)")
	cmd.Flags().StringVar(&ws, "workspace", "", "the workspace id (64 hex digits)")
	return []*cobra.Command{cmd}
}

func (c *cli) cmdRecover(ctx context.Context, phraseFile, relay, ws string) error {
	if ws == "" {
		return usagef("recover: --workspace is required")
	}
	var st engine.RecoveryStatus
	var rerr error
	if dir := c.wsDir(ws); engine.Exists(dir) {
		e, err := engine.Open(ctx, c.options(dir))
		if err != nil {
			return err
		}
		st, rerr = e.RecoverAgain(ctx)
		e.Close()
	} else {
		if phraseFile == "" || relay == "" {
			return usagef("recover: --phrase-file and --relay are required the first time")
		}
		b, err := os.ReadFile(phraseFile)
		if err != nil {
			return usagef("recover: cannot read the phrase file: %v", err)
		}
		opts := c.options(c.wsDir(fmt.Sprintf("recover-%d", time.Now().UnixNano())))
		tmp := opts.Dir
		e, s, err := engine.Recover(ctx, opts, relay, ws, strings.Join(strings.Fields(string(b)), " "))
		if e == nil {
			os.RemoveAll(tmp) // nothing of this device is in the workspace
			return err
		}
		st, rerr = s, err
		if _, _, _, err := c.settle(ctx, e, tmp); err != nil {
			return err
		}
	}
	waiting := errors.Is(rerr, engine.ErrRecoveryWaiting)
	if rerr != nil && !waiting {
		return rerr
	}
	if c.json {
		c.print(map[string]any{"recovery": st, "waiting": waiting})
		return nil
	}
	fmt.Fprintf(c.stdout, "recovered device %s of %s\n", st.Device, st.User)
	switch {
	case st.Probation && !st.ProbationEnds.IsZero():
		fmt.Fprintf(c.stdout, "on probation until %s: run weald recover again then (your older devices can revoke this one until then)\n",
			st.ProbationEnds.Format(time.RFC3339))
	case st.Probation:
		fmt.Fprintln(c.stdout, "on probation: an admin approves it with weald device approve "+st.Device)
	}
	if waiting {
		fmt.Fprintln(c.stdout, "the relay does not list this device yet: an admin's app lists it at its next sync")
	}
	for _, d := range st.RevokedOld {
		fmt.Fprintf(c.stdout, "revoked older device %s\n", d)
	}
	if st.Ready {
		fmt.Fprintln(c.stdout, "ready")
	}
	return nil
}
