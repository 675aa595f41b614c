package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"weald/backend/internal/manpage"
	"weald/backend/version"
)

// commands is weald-relay's command tree (cobra, as the weald CLI): serving
// is the root command, so `weald-relay [flags]` serves as it always did;
// `provision`, `teardown` and `version` are subcommands; `help [COMMAND]` and
// `completion` come with cobra. Each command keeps its own flag parser
// (the standard library's, with environment fallbacks), so cobra parses
// no flags and passes the arguments through; the help text shows the
// flags each parser defines. The exit status is set in *code.
func commands(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "weald-relay [flags]",
		Short: "Run the Weald relay: store and forward signed ciphertext envelopes over WebSocket",
		Long: "weald-relay stores and forwards the ciphertext envelopes of Weald workspaces over WebSocket, on SQLite\n" +
			"(a file in its data directory, by default) or PostgreSQL. With no command it serves.\n\n" +
			"Flags of serving (a flag that names an environment variable also reads it):\n" + flagText(func(w io.Writer) { _, _ = parseConfig([]string{"-h"}, getenv, w) }),
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		SilenceErrors:      true,
		SilenceUsage:       true,
		Run:                func(_ *cobra.Command, args []string) { *code = runServe(ctx, args, getenv, stdout, stderr) },
	}
	provision := &cobra.Command{
		Use:   "provision -workspace HEX -genesis HEX",
		Short: "Record a workspace and its genesis key (operator provisioning)",
		Long: "provision records a new workspace and the genesis public key its creator's app shows; the workspace's\n" +
			"first access set must be signed by that key. Exit status: 0 done, 1 refused or failed, 2 bad usage.\n\n" +
			"Flags:\n" + flagText(func(w io.Writer) { runProvision(ctx, []string{"-h"}, getenv, io.Discard, w) }),
		DisableFlagParsing: true,
		Run:                func(_ *cobra.Command, args []string) { *code = runProvision(ctx, args, getenv, stdout, stderr) },
	}
	teardown := &cobra.Command{
		Use:   "teardown -workspace HEX",
		Short: "Delete a provisioned workspace that never got a trust root",
		Long: "teardown deletes a workspace provisioned here whose creator never got its first access set accepted (the\n" +
			"genesis key unconsumed): a setup its creator abandoned. A workspace with a trust root is refused\n" +
			"(provision/active): it is finished on its creator's device, never torn down.\n" +
			"Exit status: 0 done, 1 refused or failed, 2 bad usage.\n\n" +
			"Flags:\n" + flagText(func(w io.Writer) { runTeardown(ctx, []string{"-h"}, getenv, io.Discard, w) }),
		DisableFlagParsing: true,
		Run:                func(_ *cobra.Command, args []string) { *code = runTeardown(ctx, args, getenv, stdout, stderr) },
	}
	token := &cobra.Command{
		Use:   "token",
		Short: "Provisioning tokens: relay links that create a workspace with no operator step",
		Args:  cobra.NoArgs,
	}
	token.AddCommand(&cobra.Command{
		Use:   "create [-uses N] [-expires DURATION] [-relay ADDRESS]",
		Short: "Make a provisioning token and print the relay link carrying it",
		Long: "create makes a provisioning token, stores its hash, and prints a relay link (weald://relay?...) carrying\n" +
			"the relay's address and the token. Opening it in Weald's create form (or weald init --relay LINK) creates a\n" +
			"workspace here with no operator step, while the relay serves with -provisioning token.\n" +
			"Exit status: 0 done, 1 failed, 2 bad usage.\n\n" +
			"Flags:\n" + flagText(func(w io.Writer) { runTokenCreate(ctx, []string{"-h"}, getenv, io.Discard, w) }),
		DisableFlagParsing: true,
		Run:                func(_ *cobra.Command, args []string) { *code = runTokenCreate(ctx, args, getenv, stdout, stderr) },
	})
	ver := &cobra.Command{
		Use:   "version",
		Short: "Print the version and commit",
		Args:  cobra.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintf(stdout, "weald-relay %s\n", version.Get()) },
	}
	// The hidden `weald-relay man DIR` writes the manual pages the .deb
	// installs (make package; docs/packaging.md).
	man := &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the manual pages of every command into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		Run: func(cmd *cobra.Command, args []string) {
			if err := manpage.Write(cmd.Root(), args[0], "Weald "+version.Get().Version); err != nil {
				fmt.Fprintf(stderr, "weald-relay: %v\n", err)
				*code = 1
			}
		},
	}
	root.AddCommand(provision, teardown, token, ver, man)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root
}

// flagText returns what a flag parser prints for -h, without its first
// "Usage of …" line.
func flagText(usage func(w io.Writer)) string {
	var b bytes.Buffer
	usage(&b)
	s := b.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 && strings.HasPrefix(s, "Usage") {
		s = s[i+1:]
	}
	return s
}
