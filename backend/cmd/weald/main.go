// Command weald is the headless Weald client: the same engine as the
// desktop app without a window, for agents, CI and scripts (issue 5,
// design/architecture.md "Processes"). Every command takes --json and then
// prints one JSON object with stable field names; exit codes:
//
//	0 done
//	1 failed (network, local state)
//	2 bad usage
//	3 pending: the workspace is not provisioned or not ready yet (run again / sync)
//	4 not found: no such channel, workspace or invite
//	5 refused: the relay, the roster or an invite said no (auth/*, roster/*, invite/*, limit/*, join/*)
//
// Usage:
//
//	weald [--home DIR] [--json] [--workspace ID] init --name NAME
//	weald workspace create NAME --relay URL
//	weald workspace list
//	weald invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION]
//	weald invite revoke LINK|INVITE_ID
//	weald join LINK
//	weald sync
//	weald channels
//	weald channel create NAME --admission parent|explicit
//	weald channel add CHANNEL USER...   (USER: a user id, or 8+ hex digits of one)
//	weald send CHANNEL TEXT
//	weald dm USER TEXT [--wait DURATION]   (the first message starts the DM)
//	weald read CHANNEL|@USER [--limit N]
//	weald members [CHANNEL]
//	weald status
//	weald run
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"weald/backend/errcode"
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
)

type cli struct {
	home      string
	json      bool
	workspace string
	stdout    io.Writer
	stderr    io.Writer
	getenv    func(string) string
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
	code := errCode(err)
	area := code.Area()
	switch {
	case code == "workspace/not_provisioned" || code == "workspace/not_ready" || code == "invite/no_bundle" || code == "invite/stale_bundle" || code == "channel/not_member" || code == "dm/waiting":
		return exitPending
	case code == "channel/unknown" || code == "workspace/none" || code == "invite/unknown" || code == "workspace/unknown" || code == "user/unknown" || code == "dm/none":
		return exitNotFound
	case area == "auth" || area == "roster" || area == "invite" || area == "limit" || area == "join" || area == "quota":
		return exitRefused
	}
	return exitFailed
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr, getenv: getenv}
	fs := flag.NewFlagSet("weald", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.home, "home", "", "state directory (env WEALD_HOME; default ~/.weald)")
	fs.BoolVar(&c.json, "json", false, "print one JSON object")
	fs.StringVar(&c.workspace, "workspace", "", "workspace id (default: the current one)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if c.home == "" {
		c.home = getenv("WEALD_HOME")
	}
	if c.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintln(stderr, "weald: no home directory; pass --home")
			return exitUsage
		}
		c.home = filepath.Join(h, ".weald")
	}
	err := c.dispatch(ctx, fs.Args())
	if err == nil {
		return exitOK
	}
	code := exitFor(err)
	if c.json {
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

func (c *cli) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("missing command (init, workspace, invite, join, sync, channels, channel, send, dm, read, members, status, run)")
	}
	cmd, rest := args[0], args[1:]
	sub := func() (string, []string) {
		if len(rest) == 0 {
			return "", nil
		}
		return rest[0], rest[1:]
	}
	switch cmd {
	case "init":
		return c.cmdInit(rest)
	case "workspace":
		s, r := sub()
		switch s {
		case "create":
			return c.cmdWorkspaceCreate(ctx, r)
		case "list":
			return c.cmdWorkspaceList(ctx, r)
		}
		return usagef("workspace create NAME --relay URL | workspace list")
	case "invite":
		s, r := sub()
		switch s {
		case "create":
			return c.cmdInviteCreate(ctx, r)
		case "revoke":
			return c.cmdInviteRevoke(ctx, r)
		}
		return usagef("invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION] | invite revoke LINK|INVITE_ID")
	case "join":
		return c.cmdJoin(ctx, rest)
	case "sync":
		return c.cmdSync(ctx, rest)
	case "channels":
		return c.cmdChannels(ctx, rest)
	case "channel":
		s, r := sub()
		switch s {
		case "create":
			return c.cmdChannelCreate(ctx, r)
		case "add":
			return c.cmdChannelAdd(ctx, r)
		}
		return usagef("channel create NAME --admission parent|explicit, or channel add CHANNEL USER...")
	case "send":
		return c.cmdSend(ctx, rest)
	case "dm":
		return c.cmdDM(ctx, rest)
	case "read":
		return c.cmdRead(ctx, rest)
	case "members":
		return c.cmdMembers(ctx, rest)
	case "status":
		return c.cmdStatus(ctx, rest)
	case "run":
		return c.cmdRun(ctx, rest)
	}
	return usagef("unknown command %q", cmd)
}
