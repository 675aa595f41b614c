package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
)

// Agents by delegation (spec/channels.md "Group policy", "The join";
// docs/protocol/agents.md): the agent's side (init, request) and its
// owner's (approve, list, revoke). An approved agent then uses the normal
// sync, read, send and run.

func init() { register(agentCommands) }

func agentCommands(c *cli) []*cobra.Command {
	agent := &cobra.Command{
		Use:   "agent",
		Short: "Agents by delegation: make an agent identity, approve, list and revoke agents",
		Args:  nargs("agent init|request|approve|list|revoke", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return usagef("agent init|request|approve|list|revoke") },
	}
	var relayURL, name, expires string
	var scope []string
	initCmd := &cobra.Command{
		Use:   "init --workspace WS --relay URL --name NAME --scope CHANNEL... --expires DURATION",
		Short: "Run by the agent: make its key and print the request its owner approves",
		Long: `Run by the agent process: make a new agent key for the workspace WS at the
relay URL, stored in this home as the current workspace, and print the
request its owner approves (weald agent approve, or the desktop app). Once
approved, and after the owner's device next syncs, the agent reads and posts
in exactly the channels named, with sync, read, send and run. The request
always names #activity too, where agent and CI output goes
(weald send activity TEXT).`,
		Args: nargs("agent init --workspace WS --relay URL --name NAME --scope CHANNEL... --expires DURATION", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdAgentInit(cmd.Context(), relayURL, strings.TrimSpace(name), scope, expires)
		},
	}
	initCmd.Flags().StringVar(&relayURL, "relay", "", "the relay's address (ws://… or wss://…)")
	initCmd.Flags().StringVar(&name, "name", "", "the name members see")
	initCmd.Flags().StringSliceVar(&scope, "scope", nil, "a channel the agent asks for (repeat or comma-separate)")
	initCmd.Flags().StringVar(&expires, "expires", "24h", "how long the certificate lasts (Go duration, e.g. 8h; at most 2160h)")
	request := &cobra.Command{
		Use:   "request",
		Short: "Run by the agent: print its request again",
		Args:  nargs("agent request", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdAgentRequest(cmd.Context()) },
	}
	approve := &cobra.Command{
		Use:   "approve REQUEST",
		Short: "Approve an agent's request: its certificate, then its adds to the channels named",
		Args:  nargs("agent approve REQUEST", 1, 1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdAgentApprove(cmd.Context(), args[0]) },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspace's agents with owner, scope and expiry",
		Args:  nargs("agent list", 0, 0),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.cmdAgentList(cmd.Context()) },
	}
	var issuedBy string
	revoke := &cobra.Command{
		Use:   "revoke AGENT | revoke --issued-by DEVICE",
		Short: "Revoke an agent (id, 8+ hex digits of it, or name), or every agent a device issued, and evict them",
		Args:  nargs("agent revoke AGENT | agent revoke --issued-by DEVICE", 0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case issuedBy != "" && len(args) == 0:
				return c.cmdAgentRevokeIssuedBy(cmd.Context(), issuedBy)
			case issuedBy == "" && len(args) == 1:
				return c.cmdAgentRevoke(cmd.Context(), args[0])
			}
			return usagef("agent revoke AGENT | agent revoke --issued-by DEVICE")
		},
	}
	revoke.Flags().StringVar(&issuedBy, "issued-by", "", "revoke every agent whose certificate this device issued")
	agent.AddCommand(initCmd, request, approve, list, revoke)
	return []*cobra.Command{agent}
}

func (c *cli) cmdAgentInit(ctx context.Context, relayURL, name string, scope []string, expires string) error {
	if c.workspace == "" || relayURL == "" || name == "" || len(scope) == 0 {
		return usagef("agent init --workspace WS --relay URL --name NAME --scope CHANNEL... --expires DURATION")
	}
	d, err := time.ParseDuration(expires)
	if err != nil {
		return usagef("--expires: %v", err)
	}
	// Agent and CI output lands in #activity (spec/channels.md "Default
	// channels"): every agent may post there.
	if !slices.Contains(scope, "activity") && !slices.Contains(scope, "#activity") {
		scope = append(scope, "activity")
	}
	e, req, err := engine.CreateAgent(ctx, c.options(c.wsDir(c.workspace)), relayURL, c.workspace, name, scope, d)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := c.setCurrent(ctx, c.workspace); err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"agent": e.DeviceID().String(), "fingerprint": e.AgentFingerprint(), "request": req})
		return nil
	}
	fmt.Fprintf(c.stdout, "agent %s, fingerprint %s\nask its owner to approve this request (weald agent approve REQUEST):\n%s\n",
		name, e.AgentFingerprint(), req)
	return nil
}

func (c *cli) cmdAgentRequest(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		req, err := e.AgentRequest()
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"fingerprint": e.AgentFingerprint(), "request": req})
			return nil
		}
		fmt.Fprintln(c.stdout, req)
		return nil
	})
}

func (c *cli) cmdAgentApprove(ctx context.Context, request string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		v, err := e.ApproveAgent(ctx, request)
		if err != nil {
			return err
		}
		if c.json {
			c.print(v)
			return nil
		}
		fmt.Fprintf(c.stdout, "approved %s (fingerprint %s) until %s for %s\n", v.Name, v.Fingerprint,
			v.Expiry.Format(time.RFC3339), scopeNames(v))
		return nil
	})
}

func scopeNames(v engine.AgentView) string {
	var names []string
	for _, s := range v.Scope {
		n := "#" + s.Name
		if !s.Member {
			n += " (added once the agent has connected and this device syncs)"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

func (c *cli) cmdAgentList(ctx context.Context) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		if _, err := e.Sync(ctx); err != nil {
			return err
		}
		as := e.Agents()
		if c.json {
			c.print(map[string]any{"agents": as})
			return nil
		}
		for _, a := range as {
			fmt.Fprintf(c.stdout, "%s  %s  of %s  %s until %s  %s\n", a.ID[:16], a.Name, a.OwnerName, a.State,
				a.Expiry.Format(time.RFC3339), scopeNames(a))
		}
		return nil
	})
}

func (c *cli) cmdAgentRevokeIssuedBy(ctx context.Context, device string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		vs, err := e.RevokeAgentsIssuedBy(ctx, device)
		if err != nil {
			return err
		}
		if c.json {
			c.print(map[string]any{"revoked": vs})
			return nil
		}
		for _, v := range vs {
			fmt.Fprintf(c.stdout, "revoked %s\n", v.Name)
		}
		fmt.Fprintf(c.stdout, "%d agent(s) revoked\n", len(vs))
		return nil
	})
}

func (c *cli) cmdAgentRevoke(ctx context.Context, agent string) error {
	return c.withEngine(ctx, func(e *engine.Engine) error {
		v, err := e.RevokeAgent(ctx, agent)
		if err != nil {
			return err
		}
		if c.json {
			c.print(v)
			return nil
		}
		fmt.Fprintf(c.stdout, "revoked %s\n", v.Name)
		return nil
	})
}
