package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"weald/backend/relay"
	"weald/backend/relay/store"
)

// storeCommand is what the operator commands that work on the relay's
// database without serving (provision, teardown, token create) share: a
// flag set named after the command with -db and -data-dir, errors prefixed
// with that name, and the exit statuses 0 done, 1 refused or failed, 2 bad
// usage.
type storeCommand struct {
	name        string
	fs          *flag.FlagSet
	db, dataDir *string
	stderr      io.Writer
}

// newStoreCommand starts the flag set of the command name ("weald-relay
// provision"); the caller defines its own flags and then calls parse.
func newStoreCommand(name string, stderr io.Writer) *storeCommand {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return &storeCommand{name: name, fs: fs, stderr: stderr}
}

// parse adds -db and -data-dir, parses args and refuses positional
// arguments. When it returns false the command ends with the status given
// (0 after -h, 2 for bad usage).
func (c *storeCommand) parse(args []string) (int, bool) {
	c.db = c.fs.String("db", "", "SQLite file path or postgres:// URL (env WEALD_RELAY_DB)")
	c.dataDir = c.fs.String("data-dir", "", "data directory of the default SQLite database (env WEALD_RELAY_DATA_DIR)")
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
		return 2, false
	}
	if c.fs.NArg() > 0 {
		return c.usage("unexpected argument %q", c.fs.Arg(0)), false
	}
	return 0, true
}

// usage reports bad usage and is the exit status 2.
func (c *storeCommand) usage(format string, a ...any) int {
	fmt.Fprintf(c.stderr, "%s: %s\n", c.name, fmt.Sprintf(format, a...))
	return 2
}

// fail reports a refusal or failure and is the exit status 1.
func (c *storeCommand) fail(err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
	return 1
}

// open resolves the database from the flags and the environment and opens
// the relay service on it; close releases the store. On false the command
// ends with the status given.
func (c *storeCommand) open(ctx context.Context, getenv func(string) string) (svc *relay.Service, where string, close func(), code int, ok bool) {
	choice, err := resolveDB(*c.db, *c.dataDir, getenv)
	if err != nil {
		return nil, "", nil, c.usage("%v", err), false
	}
	var st store.Store
	if st, err = openStore(ctx, config{DB: choice.path, DataDir: choice.dataDir}); err != nil {
		return nil, "", nil, c.fail(err), false
	}
	return relay.New(relay.Config{Store: st}), describeDB(choice.path), func() { _ = st.Close() }, 0, true
}
