package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/groups"
	"weald/backend/roster"
)

func init() { register(inviteCommands) }

func inviteCommands(c *cli) []*cobra.Command {
	var scopes []string
	var role, expires string
	var uses int
	create := &cobra.Command{
		Use:   "create [--scope CHANNEL]... [--role member|admin] [--expires DURATION] [--uses N]",
		Short: "Create an invite link",
		Args:  nargs("invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION] [--uses N]", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdInviteCreate(cmd.Context(), scopes, role, expires, uses)
		},
	}
	create.Flags().IntVar(&uses, "uses", 1, "how many people may join with the link (1 to 1000)")
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
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's invites, newest first, with their uses and state",
		Args:  nargs("invite list", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdInviteList(cmd.Context())
		},
	}
	return []*cobra.Command{group("invite", "Create, list and revoke invite links",
		"invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION] [--uses N] | invite list | invite revoke LINK|INVITE_ID", create, list, revoke)}
}

func (c *cli) cmdInviteCreate(ctx context.Context, scopes []string, roleName, expires string, uses int) error {
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
	link, err := e.CreateInviteWith(ctx, engine.InviteOptions{Scopes: scopes, Role: role, Expires: exp, Uses: uses})
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"link": link, "workspace": e.WorkspaceID(), "role": role.String(), "expires_in": exp.String(), "max_uses": uses})
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

// cmdInviteList prints the invites the roster holds (after a sync).
func (c *cli) cmdInviteList(ctx context.Context) error {
	return c.withSyncedEngine(ctx, func(e *engine.Engine) error {
		invs := e.Invites()
		if c.json {
			c.print(map[string]any{"invites": invs})
			return nil
		}
		for _, in := range invs {
			fmt.Fprintf(c.stdout, "%s %s %s %d/%d used, expires %s, by %s\n", in.ID[:16], in.State, in.Role, in.Uses, in.MaxUses,
				in.Expires.Format(time.RFC3339), in.CreatedBy)
		}
		return nil
	})
}
