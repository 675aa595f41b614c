package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"weald/backend/engine"
	"weald/backend/relayclient"
)

func init() { register(workspaceCommands) }

func workspaceCommands(c *cli) []*cobra.Command {
	var relay, token string
	create := &cobra.Command{
		Use:   "create NAME --relay URL|LINK [--token TOKEN]",
		Short: "Create a workspace on a relay (host:port, ws://, wss://, http://, https://, or a relay link)",
		Long: "create makes a workspace with this device as its trust root. --relay is the relay's address or a relay\n" +
			"link (weald://relay?..., from weald-relay token create), or give the address and --token. With a token, or\n" +
			"on a relay in open mode, the relay provisions the workspace at once; otherwise its operator runs the\n" +
			"weald-relay provision command this prints, then weald sync finishes the setup.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || relay == "" {
				return usagef("workspace create NAME --relay URL|LINK [--token TOKEN]")
			}
			return c.cmdWorkspaceCreate(cmd.Context(), args[0], relay, token)
		},
	}
	create.Flags().StringVar(&relay, "relay", "", "the relay's address, or a relay link")
	create.Flags().StringVar(&token, "token", "", "a provisioning token (the token= part of a relay link)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspaces on this device; * marks the current one",
		Args:  nargs("workspace list", 0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.cmdWorkspaceList(cmd.Context())
		},
	}
	return []*cobra.Command{group("workspace", "Create, list and remove workspaces",
		"workspace create NAME --relay URL|LINK | workspace list | workspace remove ID --yes", create, list, workspaceRemoveCommand(c))}
}

// settle closes e, the engine of a workspace just created or joined in the
// temporary folder tmp, moves the folder to the workspace's id and makes it
// the current workspace. It returns what the command prints: the status, the
// channels and the recovery phrase (shown once).
func (c *cli) settle(ctx context.Context, e *engine.Engine, tmp string) (engine.Status, []engine.Channel, string, error) {
	st := e.Status()
	chans := e.Channels()
	phrase, _ := e.TakeRecoveryPhrase(ctx)
	e.Close()
	if err := os.Rename(tmp, c.wsDir(st.Workspace)); err != nil {
		return st, chans, phrase, err
	}
	return st, chans, phrase, c.setCurrent(ctx, st.Workspace)
}

func (c *cli) cmdWorkspaceCreate(ctx context.Context, name, relay, tokenText string) error {
	pr, err := c.profile(ctx)
	if err != nil {
		return err
	}
	relay, token, err := relayclient.RelayAndToken(relay)
	if err != nil {
		return err
	}
	if tokenText != "" {
		if len(token) > 0 {
			return usagef("workspace create: give the token in the relay link or with --token, not both")
		}
		if token, err = relayclient.ParseToken(tokenText); err != nil {
			return err
		}
	}
	opts := c.options(c.wsDir(fmt.Sprintf("new-%d", time.Now().UnixNano())))
	opts.DisplayName = pr.Name
	opts.Provision = engine.SelfProvision(token)
	tmp := opts.Dir
	e, cerr := engine.CreateWorkspace(ctx, opts, name, relay)
	if e == nil || errCode(cerr).Area() == "relay" || engine.ProvisionFailed(cerr) {
		// Nothing reached a relay (a bad address, nothing answering, not a
		// Weald relay) or it refused to provision the workspace: nothing is
		// left behind on this device either.
		if e != nil {
			e.Close()
		}
		os.RemoveAll(tmp)
		return cerr
	}
	st, chans, phrase, err := c.settle(ctx, e, tmp)
	if err != nil {
		return err
	}
	if c.json {
		out := map[string]any{"workspace": st.Workspace, "name": name, "ready": st.Ready, "channels": chans, "pending": st.Pending}
		if phrase != "" {
			out["recovery_phrase"] = phrase // shown once
		}
		if cerr != nil {
			out["genesis_key"] = st.GenesisKey
			out["error"] = map[string]string{"code": string(errCode(cerr)), "message": cerr.Error()}
			c.print(out)
			c.json = false // printed once
			return cerr
		}
		c.print(out)
	} else if cerr == nil {
		fmt.Fprintf(c.stdout, "workspace %s (%s) ready: %d channels\n", name, st.Workspace, len(chans))
		if phrase != "" {
			fmt.Fprintf(c.stdout, "recovery phrase (write it down; it is shown once):\n  %s\n", phrase)
		}
	} else {
		if st.GenesisKey != "" {
			fmt.Fprintf(c.stdout, "workspace %s created locally; provision it at the relay:\n  weald-relay provision -workspace %s -genesis %s\nthen run: weald sync\n", st.Workspace, st.Workspace, st.GenesisKey)
		}
		if phrase != "" {
			fmt.Fprintf(c.stdout, "recovery phrase (write it down; it is shown once):\n  %s\n", phrase)
		}
	}
	return cerr
}

func (c *cli) cmdWorkspaceList(ctx context.Context) error {
	cur, _ := c.current(ctx)
	ents, _ := os.ReadDir(filepath.Join(c.home, "workspaces"))
	type item struct {
		Workspace string `json:"workspace"`
		Name      string `json:"name"`
		Relay     string `json:"relay"`
		Ready     bool   `json:"ready"`
		Current   bool   `json:"current"`
	}
	list := []item{}
	for _, d := range ents {
		if !d.IsDir() || !engine.Exists(c.wsDir(d.Name())) {
			continue
		}
		e, err := engine.Open(ctx, c.options(c.wsDir(d.Name())))
		if err != nil {
			continue
		}
		st := e.Status()
		e.Close()
		list = append(list, item{Workspace: st.Workspace, Name: st.Name, Relay: st.Relay, Ready: st.Ready, Current: st.Workspace == cur})
	}
	if c.json {
		c.print(map[string]any{"workspaces": list})
		return nil
	}
	for _, it := range list {
		mark := " "
		if it.Current {
			mark = "*"
		}
		fmt.Fprintf(c.stdout, "%s %s %s ready=%v\n", mark, it.Workspace, it.Name, it.Ready)
	}
	return nil
}
