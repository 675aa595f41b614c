package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/wire"
)

// workspaceRemoveCommand is `weald workspace remove ID --yes`: it deletes a
// workspace's folder (keys, messages, settings) from this device only; the
// workspace and its other members are not told. ID is the workspace id, 8
// or more of its leading hex digits, or the name of a folder left by an
// interrupted create or join (new-…, join-…).
func workspaceRemoveCommand(c *cli) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "remove ID --yes",
		Short: "Delete a workspace from this device (its keys, messages and settings here)",
		Args:  nargs("workspace remove ID --yes", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdWorkspaceRemove(cmd.Context(), args[0], yes)
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm: delete it from this device")
	return cmd
}

var errNoSuchWorkspace = wire.Errorf(wire.CodeWorkspaceUnknown, "no workspace by that id on this device (weald workspace list)")

// findWorkspaceDir resolves ID to one folder under workspaces/.
func (c *cli) findWorkspaceDir(id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", errNoSuchWorkspace
	}
	ents, err := os.ReadDir(filepath.Join(c.home, "workspaces"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var match []string
	for _, d := range ents {
		if !d.IsDir() {
			continue
		}
		if d.Name() == id {
			return d.Name(), nil
		}
		if len(id) >= 8 && isHex(id) && strings.HasPrefix(d.Name(), id) {
			match = append(match, d.Name())
		}
	}
	switch len(match) {
	case 0:
		return "", errNoSuchWorkspace
	case 1:
		return match[0], nil
	}
	return "", usagef("%s is the start of %d workspace ids; give more digits", id, len(match))
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func (c *cli) cmdWorkspaceRemove(ctx context.Context, id string, yes bool) error {
	dir, err := c.findWorkspaceDir(id)
	if err != nil {
		return err
	}
	name := ""
	if engine.Exists(c.wsDir(dir)) {
		if e, err := engine.Open(ctx, c.options(c.wsDir(dir))); err == nil {
			name = e.Status().Name
			e.Close()
		}
	}
	if !yes {
		return usagef("workspace remove %s --yes: this deletes the workspace %q with its keys and messages from this device; the other members keep theirs", dir, name)
	}
	if err := os.RemoveAll(c.wsDir(dir)); err != nil {
		return err
	}
	if err := c.forgetCurrent(ctx, dir); err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"workspace": dir, "name": name, "removed": true})
	} else {
		fmt.Fprintf(c.stdout, "removed workspace %s (%s) from this device\n", name, dir)
	}
	return nil
}
