// Command weald is the headless Weald client: the same engine as the
// desktop app without a window, for agents, CI and scripts (issue 5,
// design/architecture.md "Processes"). Every command takes --json and then
// prints one JSON object with stable field names; exit codes:
//
//	0 done
//	1 failed (network, local state)
//	2 bad usage
//	3 pending: the workspace is not provisioned or not ready yet (run again / sync), an agent is not approved yet, or a pairing link not published yet
//	4 not found: no such channel, workspace, invite or agent
//	5 refused: the relay, the roster or an invite said no (auth/*, roster/*, invite/*, limit/*, join/*, agent/*, pair/*)
//	6 needs action: weald health found a check that needs someone to act
//
// The commands are built with cobra, one file per command group (cmd_*.go),
// each adding its commands with register in an init function: `weald help`,
// `weald help COMMAND`, `weald completion bash|zsh|fish|powershell` and
// `weald --version` come with it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"weald/backend/errcode"
	"weald/backend/version"
	"weald/backend/wire"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitPending  = 3
	exitNotFound = 4
	exitRefused  = 5
	exitAction   = 6
)

type cli struct {
	home      string
	json      bool
	workspace string
	stdout    io.Writer
	stderr    io.Writer
	getenv    func(string) string
	// ran is set once the command line parsed and a command starts; an
	// error before that is bad usage.
	ran bool
}

type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(f string, a ...any) error { return &usageError{fmt.Sprintf(f, a...)} }

// errCode is the code of the outermost coded error in err's chain, as the
// app reads it (errcode.Of); internal/error when none is coded.
func errCode(err error) errcode.Code {
	if c, ok := errcode.Of(err); ok {
		return c
	}
	return wire.CodeInternal
}

func exitFor(err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	var ae *attentionError
	if errors.As(err, &ae) {
		return exitAction
	}
	code := errCode(err)
	area := code.Area()
	switch {
	case code == "workspace/not_provisioned" || code == "workspace/not_ready" || code == "invite/no_bundle" || code == "invite/stale_bundle" || code == "channel/not_member" || code == "dm/waiting":
		return exitPending
	case code == "channel/unknown" || code == "workspace/none" || code == "invite/unknown" || code == "workspace/unknown" || code == "user/unknown" || code == "dm/none":
		return exitNotFound
	case code == "removal/needs_reapproval":
		return exitPending
	case code == "device/unknown" || code == "agent/unknown":
		return exitNotFound
	case code == "agent/not_approved" || code == "pair/not_published":
		return exitPending
	case area == "auth" || area == "roster" || area == "invite" || area == "limit" || area == "join" || area == "quota" || area == "removal" || area == "device" || area == "agent" || area == "pair":
		return exitRefused
	}
	return exitFailed
}

// commandGroups are the command files' constructors, in registration order.
var commandGroups []func(c *cli) []*cobra.Command

// register adds a command group; each cmd_*.go file calls it from init.
func register(f func(c *cli) []*cobra.Command) { commandGroups = append(commandGroups, f) }

// newRoot builds the command tree for one run.
func newRoot(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "weald",
		Short: "The headless Weald client: the desktop app's engine without a window",
		Long: `weald is the headless Weald client: the same engine as the desktop app,
for agents, CI and scripts. With --json every command prints one JSON object.

Exit codes: 0 done, 1 failed, 2 bad usage, 3 pending (not provisioned or
not ready yet, a paused removal, an agent not approved yet, a pairing link
not published yet), 4 not found,
5 refused (auth, roster, invite, limit, join, removal, device, agent, pair),
6 needs action (weald health).`,
		Version:       version.Get().String(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// Completion of flags and subcommands only: no file names.
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			c.ran = true
			return c.resolveHome(cmd)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("missing command; run weald help")
		},
	}
	root.SetVersionTemplate("weald {{.Version}}\n")
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	pf := root.PersistentFlags()
	pf.StringVar(&c.home, "home", "", "state directory (env WEALD_HOME; default ~/.weald)")
	pf.BoolVar(&c.json, "json", false, "print one JSON object")
	pf.StringVar(&c.workspace, "workspace", "", "workspace id (default: the current one)")
	for _, g := range commandGroups {
		root.AddCommand(g(c)...)
	}
	return root
}

// resolveHome fills c.home from --home, WEALD_HOME or ~/.weald; help and
// completion need none.
func (c *cli) resolveHome(cmd *cobra.Command) error {
	if c.home == "" {
		c.home = c.getenv("WEALD_HOME")
	}
	if c.home != "" {
		return nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		if cmd.Name() == "help" || (cmd.HasParent() && cmd.Parent().Name() == "completion") {
			return nil
		}
		return usagef("no home directory; pass --home")
	}
	c.home = filepath.Join(h, ".weald")
	return nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr, getenv: getenv}
	root := newRoot(c)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	if !c.ran {
		// Unknown command, wrong arguments or flags: cobra's own sentence.
		err = &usageError{err.Error()}
	}
	code := exitFor(err)
	var ae *attentionError
	if c.json && !errors.As(err, &ae) {
		c.print(map[string]any{"error": map[string]string{"code": string(errCode(err)), "message": err.Error()}})
	}
	fmt.Fprintf(stderr, "weald: %v\n", err)
	return code
}

func (c *cli) print(v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// nargs checks the number of positional arguments, saying usage when it
// is off; max < 0 means no upper bound.
func nargs(usage string, min, max int) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usagef("%s", usage)
		}
		return nil
	}
}

// group is a parent command (workspace, invite, channel): run alone or with
// an unknown subcommand it says its usage and exits 2.
func group(use, short, usage string, subs ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("%s", usage)
		},
	}
	g.AddCommand(subs...)
	return g
}
