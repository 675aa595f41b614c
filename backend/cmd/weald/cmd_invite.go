package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/groups"
	"weald/backend/roster"
)

func init() { register(inviteCommands) }

func inviteCommands(c *cli) []*cobra.Command {
	var scopes []string
	var role, expires string
	create := &cobra.Command{
		Use:   "create [--scope CHANNEL]... [--role member|admin] [--expires DURATION]",
		Short: "Create an invite link",
		Args:  nargs("invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION]", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdInviteCreate(cmd.Context(), scopes, role, expires)
		},
	}
	create.Flags().StringArrayVar(&scopes, "scope", nil, "a channel the invitee joins (repeat for more)")
	create.Flags().StringVar(&role, "role", "", "member (default) or admin")
	create.Flags().StringVar(&expires, "expires", "", "how long the link works, such as 72h (default 168h)")
	revoke := &cobra.Command{
		Use:   "revoke LINK|INVITE_ID",
		Short: "Revoke an invite by its link or its id",
		Args:  nargs("invite revoke LINK|INVITE_ID", 1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdInviteRevoke(cmd.Context(), args[0])
		},
	}
	return []*cobra.Command{group("invite", "Create and revoke invite links",
		"invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION] | invite revoke LINK|INVITE_ID", create, revoke)}
}

func (c *cli) cmdInviteCreate(ctx context.Context, scopes []string, roleName, expires string) error {
	role := roster.RoleMember
	switch roleName {
	case "", "member":
	case "admin":
		role = roster.RoleAdmin
	default:
		return usagef("--role is member or admin")
	}
	exp := 7 * 24 * time.Hour
	if expires != "" {
		var err error
		if exp, err = time.ParseDuration(expires); err != nil || exp <= 0 {
			return usagef("--expires is a positive duration such as 72h")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	link, err := e.CreateInvite(ctx, scopes, role, exp)
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"link": link, "workspace": e.WorkspaceID(), "role": role.String(), "expires_in": exp.String()})
	} else {
		fmt.Fprintln(c.stdout, link)
	}
	return nil
}

// cmdInviteRevoke revokes an invite named by its link or its 64-hex id
// (the link's id= field); the relay refuses the link from then on.
func (c *cli) cmdInviteRevoke(ctx context.Context, id string) error {
	if strings.HasPrefix(id, "weald://") {
		l, err := groups.ParseLink(id)
		if err != nil {
			return err
		}
		id = hex.EncodeToString(l.Invite[:])
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.RevokeInvite(ctx, id); err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"invite": id, "revoked": true})
	} else {
		fmt.Fprintf(c.stdout, "invite %s revoked\n", id)
	}
	return nil
}
