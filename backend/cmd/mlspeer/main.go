// Command mlspeer is a file-based MLS (RFC 9420) peer: each invocation loads a
// member's state from --state DIR, performs one operation, writes the
// resulting messages to files and saves the state again. Any other MLS
// implementation with the same command line (backend/mls/interop/js/peer.mjs
// for ts-mls) can play the other side; docs/protocol/mls.md, "mlspeer and
// interop", is the contract.
//
//	mlspeer --state DIR [--identity ID] [--hex] [--private-handshake] [--suite N] CMD ...
//	mlspeer serve
//
// Exit status: 0 ok, 1 protocol error, 2 usage, 3 unsupported. serve runs
// invocations read from stdin, one a line, in one process (serve.go).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const (
	exitOK          = 0
	exitProtocol    = 1
	exitUsage       = 2
	exitUnsupported = 3
)

// usageError is a mistake on the command line or in the order of commands.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func main() {
	if len(os.Args) == 2 && os.Args[1] == "serve" {
		if err := serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "mlspeer: serve: %v\n", err)
			os.Exit(exitUsage)
		}
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(argv []string, stdout, stderr io.Writer) int {
	err := dispatch(argv, stdout)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "mlspeer: %v\n", err)
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, usageText)
		return exitUsage
	case isUnsupported(err):
		return exitUnsupported
	default:
		return exitProtocol
	}
}

const usageText = `usage: mlspeer --state DIR [--identity ID] [--hex] [--private-handshake] [--suite N] CMD
       mlspeer serve    (one invocation a line on stdin: a JSON array of its arguments)
  keypackage OUT
  create GROUPID
  add KP... --welcome OUT --commit OUT [--ratchet-tree OUT]
  join-welcome FILE [--ratchet-tree FILE]
  groupinfo OUT [--ratchet-tree OUT]
  external-join GROUPINFO --commit OUT [--ratchet-tree FILE] [--resync]
  process MSG...
  send TEXT OUT
  remove LEAF_INDEX|id:IDENTITY --commit OUT
  update --commit OUT
  export LABEL CONTEXT_HEX LEN
  epoch-authenticator
  info`
