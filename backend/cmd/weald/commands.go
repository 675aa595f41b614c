package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"weald/backend/engine"
	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/roster"
	"weald/backend/store"
)

// parsed is a command line split into flags and positional arguments; flags
// may come anywhere (weald send general "hi" --json is fine).
type parsed struct {
	pos   []string
	flags map[string][]string
}

func parseArgs(args []string, known ...string) (*parsed, error) {
	p := &parsed{flags: map[string][]string{}}
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.pos = append(p.pos, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			name := strings.TrimLeft(a, "-")
			val := ""
			hasVal := false
			if j := strings.IndexByte(name, '='); j >= 0 {
				name, val, hasVal = name[:j], name[j+1:], true
			}
			if !isKnown[name] {
				return nil, usagef("unknown flag %s", a)
			}
			if !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("flag %s needs a value", a)
				}
				i++
				val = args[i]
			}
			p.flags[name] = append(p.flags[name], val)
			continue
		}
		p.pos = append(p.pos, a)
	}
	return p, nil
}

func (p *parsed) one(name string) string {
	if v := p.flags[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

type profile struct {
	Name string `json:"name"`
}

func (c *cli) profile() (profile, error) {
	var pr profile
	b, err := os.ReadFile(filepath.Join(c.home, "profile.json"))
	if errors.Is(err, os.ErrNotExist) {
		return pr, errcode.New("profile/none", "run weald init --name NAME first")
	}
	if err != nil {
		return pr, err
	}
	return pr, json.Unmarshal(b, &pr)
}

func (c *cli) cmdInit(args []string) error {
	p, err := parseArgs(args, "name")
	if err != nil {
		return err
	}
	name := strings.TrimSpace(p.one("name"))
	if name == "" || len(p.pos) > 0 {
		return usagef("init --name NAME")
	}
	// Every file Weald writes is 0600 in a 0700 directory (store.md "Files"),
	// also when the home directory was there before with a looser mode.
	for _, d := range []string{c.home, filepath.Join(c.home, "workspaces")} {
		if err := store.PrivateDir(d); err != nil {
			return err
		}
	}
	b, _ := json.Marshal(profile{Name: name})
	if err := writeFileAtomic(filepath.Join(c.home, "profile.json"), b); err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"home": c.home, "name": name})
	} else {
		fmt.Fprintf(c.stdout, "initialised %s for %s\n", c.home, name)
	}
	return nil
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (c *cli) wsDir(id string) string { return filepath.Join(c.home, "workspaces", id) }

func (c *cli) setCurrent(id string) error {
	return writeFileAtomic(filepath.Join(c.home, "current"), []byte(id+"\n"))
}

func (c *cli) current() (string, error) {
	if c.workspace != "" {
		return c.workspace, nil
	}
	b, err := os.ReadFile(filepath.Join(c.home, "current"))
	if err != nil {
		return "", engine.ErrNoWorkspace
	}
	return strings.TrimSpace(string(b)), nil
}

func (c *cli) options(dir string) engine.Options {
	return engine.Options{Dir: dir}
}

// open opens the current workspace.
func (c *cli) open(ctx context.Context) (*engine.Engine, error) {
	id, err := c.current()
	if err != nil {
		return nil, err
	}
	return engine.Open(ctx, c.options(c.wsDir(id)))
}

func (c *cli) cmdWorkspaceCreate(ctx context.Context, args []string) error {
	p, err := parseArgs(args, "relay")
	if err != nil {
		return err
	}
	if len(p.pos) != 1 || p.one("relay") == "" {
		return usagef("workspace create NAME --relay URL")
	}
	if _, err := c.profile(); err != nil {
		return err
	}
	tmp := c.wsDir(fmt.Sprintf("new-%d", time.Now().UnixNano()))
	e, cerr := engine.CreateWorkspace(ctx, c.options(tmp), p.pos[0], p.one("relay"))
	if e == nil {
		return cerr
	}
	st := e.Status()
	chans := e.Channels()
	phrase, _ := e.TakeRecoveryPhrase(ctx)
	e.Close()
	if err := os.Rename(tmp, c.wsDir(st.Workspace)); err != nil {
		return err
	}
	if err := c.setCurrent(st.Workspace); err != nil {
		return err
	}
	if c.json {
		out := map[string]any{"workspace": st.Workspace, "name": p.pos[0], "ready": st.Ready, "channels": chans, "pending": st.Pending}
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
		fmt.Fprintf(c.stdout, "workspace %s (%s) ready: %d channels\n", p.pos[0], st.Workspace, len(chans))
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

func (c *cli) cmdWorkspaceList(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("workspace list")
	}
	cur, _ := c.current()
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

func (c *cli) cmdInviteCreate(ctx context.Context, args []string) error {
	p, err := parseArgs(args, "scope", "role", "expires")
	if err != nil {
		return err
	}
	if len(p.pos) > 0 {
		return usagef("invite create [--scope CHANNEL]... [--role member|admin] [--expires DURATION]")
	}
	role := roster.RoleMember
	switch p.one("role") {
	case "", "member":
	case "admin":
		role = roster.RoleAdmin
	default:
		return usagef("--role is member or admin")
	}
	exp := 7 * 24 * time.Hour
	if s := p.one("expires"); s != "" {
		if exp, err = time.ParseDuration(s); err != nil || exp <= 0 {
			return usagef("--expires is a positive duration such as 72h")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	link, err := e.CreateInvite(ctx, p.flags["scope"], role, exp)
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
func (c *cli) cmdInviteRevoke(ctx context.Context, args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.pos) != 1 {
		return usagef("invite revoke LINK|INVITE_ID")
	}
	id := p.pos[0]
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

func (c *cli) cmdJoin(ctx context.Context, args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.pos) != 1 {
		return usagef("join LINK")
	}
	if _, err := c.profile(); err != nil {
		return err
	}
	tmp := c.wsDir(fmt.Sprintf("join-%d", time.Now().UnixNano()))
	e, jerr := engine.Join(ctx, c.options(tmp), p.pos[0])
	if e == nil {
		return jerr
	}
	st := e.Status()
	chans := e.Channels()
	phrase, _ := e.TakeRecoveryPhrase(ctx)
	e.Close()
	if err := os.Rename(tmp, c.wsDir(st.Workspace)); err != nil {
		return err
	}
	if err := c.setCurrent(st.Workspace); err != nil {
		return err
	}
	if jerr != nil {
		return jerr
	}
	if c.json {
		c.print(map[string]any{"workspace": st.Workspace, "name": st.Name, "ready": st.Ready, "channels": chans, "recovery_phrase": phrase})
	} else {
		fmt.Fprintf(c.stdout, "joined %s (%s): %d channels\nrecovery phrase (write it down; it is shown once):\n  %s\n", st.Name, st.Workspace, len(chans), phrase)
	}
	return nil
}

func (c *cli) cmdSync(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("sync")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	rep, err := e.Sync(ctx)
	if err != nil {
		return err
	}
	st := e.Status()
	phrase, _ := e.TakeRecoveryPhrase(ctx) // set once a resumed bootstrap finished
	if c.json {
		out := map[string]any{"workspace": st.Workspace, "ready": rep.Ready, "joined": nonNil(rep.Joined.Joined),
			"waiting": nonNil(rep.Joined.Waiting), "failed": nonNil(rep.Joined.Failed), "pending": st.Pending}
		if phrase != "" {
			out["recovery_phrase"] = phrase
		}
		c.print(out)
	} else {
		fmt.Fprintf(c.stdout, "synced: ready=%v, joined %d channels\n", rep.Ready, len(rep.Joined.Joined))
		if phrase != "" {
			fmt.Fprintf(c.stdout, "recovery phrase (write it down; it is shown once):\n  %s\n", phrase)
		}
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (c *cli) cmdChannels(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("channels")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	chans := e.Channels()
	if c.json {
		if chans == nil {
			chans = []engine.Channel{}
		}
		c.print(map[string]any{"channels": chans})
		return nil
	}
	for _, ch := range chans {
		fmt.Fprintf(c.stdout, "%-16s %s %s/%s/%s default=%v muted=%v member=%v\n", ch.Name, ch.Group[:8], ch.Kind, ch.Admission, ch.History, ch.Default, ch.Muted, ch.Member)
	}
	return nil
}

func (c *cli) cmdChannelCreate(ctx context.Context, args []string) error {
	p, err := parseArgs(args, "admission")
	if err != nil {
		return err
	}
	if len(p.pos) != 1 {
		return usagef("channel create NAME --admission parent|explicit")
	}
	adm := roster.AdmissionParent
	switch p.one("admission") {
	case "", "parent":
	case "explicit":
		adm = roster.AdmissionExplicit
	default:
		return usagef("--admission is parent or explicit")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ch, err := e.CreateChannel(ctx, p.pos[0], adm)
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"channel": ch})
	} else {
		fmt.Fprintf(c.stdout, "created %s (%s)\n", ch.Name, ch.Group)
	}
	return nil
}

// cmdChannelAdd adds every device of each named person to an explicit
// channel in one commit; devices without a key package on the relay are
// recorded as pending adds, which a member's client completes later.
func (c *cli) cmdChannelAdd(ctx context.Context, args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.pos) < 2 {
		return usagef("channel add CHANNEL USER...")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	res, err := e.AddPeople(ctx, p.pos[0], p.pos[1:])
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"channel": p.pos[0], "added": res.Added, "pending": res.Pending})
		return nil
	}
	fmt.Fprintf(c.stdout, "added %d device(s) to %s\n", len(res.Added), p.pos[0])
	if len(res.Pending) > 0 {
		fmt.Fprintf(c.stdout, "%d device(s) have not checked in yet: recorded as pending adds; a member's client adds them when they do\n", len(res.Pending))
	}
	return nil
}

func (c *cli) cmdSend(ctx context.Context, args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.pos) != 2 {
		return usagef("send CHANNEL TEXT")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := e.Send(ctx, p.pos[0], p.pos[1])
	if err != nil {
		return err
	}
	if c.json {
		c.print(map[string]any{"message": m, "channel": p.pos[0]})
	} else {
		fmt.Fprintf(c.stdout, "sent %s\n", m.ID)
	}
	return nil
}

func (c *cli) cmdRead(ctx context.Context, args []string) error {
	p, err := parseArgs(args, "limit")
	if err != nil {
		return err
	}
	if len(p.pos) != 1 {
		return usagef("read CHANNEL|@USER [--limit N]")
	}
	limit := 0
	if s := p.one("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 0 {
			return usagef("--limit is a whole number")
		}
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ms, err := e.Messages(ctx, p.pos[0], limit)
	if err != nil {
		return err
	}
	if c.json {
		if ms == nil {
			ms = []engine.Message{}
		}
		c.print(map[string]any{"channel": p.pos[0], "messages": ms})
		return nil
	}
	for _, m := range ms {
		fmt.Fprintf(c.stdout, "%s %s: %s\n", m.Time.Format(time.RFC3339), m.Author[:8], m.Text)
	}
	return nil
}

func (c *cli) cmdMembers(ctx context.Context, args []string) error {
	p, err := parseArgs(args)
	if err != nil {
		return err
	}
	if len(p.pos) > 1 {
		return usagef("members [CHANNEL]")
	}
	ch := ""
	if len(p.pos) == 1 {
		ch = p.pos[0]
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	ms, err := e.Members(ctx, ch)
	if err != nil {
		return err
	}
	if c.json {
		if ms == nil {
			ms = []engine.Member{}
		}
		c.print(map[string]any{"members": ms})
		return nil
	}
	for _, m := range ms {
		fmt.Fprintf(c.stdout, "%s device %s %s\n", m.User[:8], m.Device[:8], m.Role)
	}
	return nil
}

func (c *cli) cmdStatus(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("status")
	}
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	st := e.Status()
	if c.json {
		c.print(st)
		return nil
	}
	fmt.Fprintf(c.stdout, "workspace %s (%s) ready=%v groups=%d joined=%d pending=%v\n", st.Name, st.Workspace, st.Ready, st.Groups, st.Joined, st.Pending)
	return nil
}

func (c *cli) cmdRun(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("run")
	}
	id, err := c.current()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(c.stdout)
	opts := c.options(c.wsDir(id))
	opts.OnEvent = func(ev engine.Event) {
		if c.json {
			enc.Encode(ev)
		} else {
			fmt.Fprintf(c.stdout, "%s %s%s%s\n", ev.Kind, ev.Channel, ev.Code, ev.Message)
		}
	}
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Run(ctx)
}
