package main

import (
	"github.com/spf13/cobra"

	"weald/backend/internal/manpage"
	"weald/backend/version"
)

func init() { register(manCommands) }

// manCommands: the hidden `weald man DIR`, which writes the manual pages
// the .deb installs (make package; docs/packaging.md).
func manCommands(*cli) []*cobra.Command {
	return []*cobra.Command{{
		Use:    "man DIR",
		Short:  "Write the manual pages of every command into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return manpage.Write(cmd.Root(), args[0], "Weald "+version.Get().Version)
		},
	}}
}
