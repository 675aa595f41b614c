package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/store"
)

func init() { register(initCommands) }

func initCommands(c *cli) []*cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "init --name NAME",
		Short: "Set up this home directory with your name",
		Args:  nargs("init --name NAME", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdInit(cmd.Context(), strings.TrimSpace(name))
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "your name, as others see it")
	return []*cobra.Command{cmd}
}

func (c *cli) cmdInit(ctx context.Context, name string) error {
	if name == "" {
		return usagef("init --name NAME")
	}
	if err := engine.CheckName(name); err != nil {
		return err
	}
	// Every file Weald writes is 0600 in a 0700 directory (store.md "Files"),
	// also when the home directory was there before with a looser mode.
	for _, d := range []string{c.home, filepath.Join(c.home, "workspaces")} {
		if err := store.PrivateDir(d); err != nil {
			return err
		}
	}
	if err := c.setProfile(ctx, name); err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"home": c.home, "name": name})
	} else {
		fmt.Fprintf(c.stdout, "initialised %s for %s\n", c.home, name)
	}
	return nil
}
