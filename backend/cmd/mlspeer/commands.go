package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"weald/backend/mls"
	"weald/backend/mls/tree"
)

type options struct {
	state, identity  string
	hex, private     bool
	suite            string
	welcome, commit  string
	ratchetTree      string
	resync           bool
	cmd              string
	args             []string
	identityExplicit bool
}

func parseArgs(argv []string) (*options, error) {
	o := &options{}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		val := func() (string, error) {
			if i+1 >= len(argv) {
				return "", usagef("%s needs a value", a)
			}
			i++
			return argv[i], nil
		}
		var err error
		switch a {
		case "--state":
			o.state, err = val()
		case "--identity":
			o.identity, err = val()
			o.identityExplicit = true
		case "--suite":
			o.suite, err = val()
		case "--hex":
			o.hex = true
		case "--private-handshake":
			o.private = true
		case "--welcome":
			o.welcome, err = val()
		case "--commit":
			o.commit, err = val()
		case "--ratchet-tree":
			o.ratchetTree, err = val()
		case "--resync":
			o.resync = true
		default:
			if strings.HasPrefix(a, "--") {
				return nil, usagef("unknown flag %s", a)
			}
			if o.cmd == "" {
				o.cmd = a
			} else {
				o.args = append(o.args, a)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if o.state == "" {
		return nil, usagef("--state DIR is required")
	}
	if o.cmd == "" {
		return nil, usagef("missing command")
	}
	return o, nil
}

// peer is one member's state directory, loaded.
type peer struct {
	o     *options
	cfg   *mls.Config
	out   io.Writer
	suite uint16
	ident string
	group *mls.Group
}

func isUnsupported(err error) bool { return errors.Is(err, mls.ErrUnsupported) }

// acceptBasic is the credential policy of the test peer: any basic credential.
func acceptBasic(_ []byte, l *tree.LeafNode, _ bool) error {
	if c := &l.Credential; c.Type != tree.CredentialBasic {
		return fmt.Errorf("only basic credentials are accepted, not type %d", c.Type)
	}
	return nil
}

func dispatch(argv []string, stdout io.Writer) error {
	o, err := parseArgs(argv)
	if err != nil {
		return err
	}
	p := &peer{o: o, out: stdout, cfg: &mls.Config{Rand: rand.Reader, Now: time.Now, Credential: acceptBasic,
		ParallelEncryption: runtime.GOMAXPROCS(0)}}
	if err := p.load(); err != nil {
		return err
	}
	return p.exec()
}

func (p *peer) load() error {
	if err := os.MkdirAll(filepath.Join(p.o.state, dirKeyPackages), 0o700); err != nil {
		return err
	}
	id, ok, err := readState(p.o.state, fileIdentity)
	if err != nil {
		return err
	}
	switch {
	case ok && p.o.identityExplicit && string(id) != p.o.identity:
		return usagef("state directory belongs to identity %q", id)
	case ok:
		p.ident = string(id)
	case p.o.identityExplicit:
		p.ident = p.o.identity
	}
	p.suite = defaultSuiteNum
	if s, ok, err := readState(p.o.state, fileSuite); err != nil {
		return err
	} else if ok {
		if p.suite, err = parseSuite(string(s)); err != nil {
			return err
		}
	}
	if p.o.suite != "" {
		n, err := parseSuite(p.o.suite)
		if err != nil {
			return err
		}
		p.suite = n
	}
	if b, ok, err := readState(p.o.state, fileGroup); err != nil {
		return err
	} else if ok {
		g, err := mls.LoadGroup(p.cfg, b)
		if err != nil {
			return fmt.Errorf("stored group state: %w", err)
		}
		p.group = g
		p.suite = g.CipherSuite()
	}
	return nil
}

func (p *peer) save() error {
	if p.ident != "" {
		if err := writeFileAtomic(filepath.Join(p.o.state, fileIdentity), []byte(p.ident)); err != nil {
			return err
		}
	}
	if err := writeFileAtomic(filepath.Join(p.o.state, fileSuite), []byte(strconv.Itoa(int(p.suite)))); err != nil {
		return err
	}
	if p.group == nil {
		return nil
	}
	b, err := p.group.Encode()
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(p.o.state, fileGroup), b)
}

func (p *peer) write(path string, b []byte) error {
	if p.o.hex {
		b = []byte(hex.EncodeToString(b))
	}
	return os.WriteFile(path, b, 0o644)
}

func (p *peer) credential() (tree.Credential, error) {
	if p.ident == "" {
		return tree.Credential{}, usagef("--identity is required the first time")
	}
	return tree.BasicCredential([]byte(p.ident)), nil
}

func (p *peer) needGroup() (*mls.Group, error) {
	if p.group == nil {
		return nil, usagef("no group in this state directory")
	}
	return p.group, nil
}

func (p *peer) noGroup() error {
	if p.group != nil {
		return usagef("this state directory already has a group")
	}
	return nil
}

func (p *peer) nargs(n int) error {
	if len(p.o.args) != n {
		return usagef("%s takes %d argument(s), got %d", p.o.cmd, n, len(p.o.args))
	}
	return nil
}

func (p *peer) printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.out, "%s\n", b)
	return err
}

type memberJSON struct {
	Index    uint32 `json:"index"`
	Identity string `json:"identity"`
}

type infoJSON struct {
	Epoch   uint64       `json:"epoch"`
	GroupID string       `json:"group_id"`
	OwnLeaf uint32       `json:"own_leaf"`
	Members []memberJSON `json:"members"`
}

func members(g *mls.Group) []memberJSON {
	ms := g.Members()
	out := make([]memberJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, memberJSON{Index: m.Index, Identity: string(m.Credential.Identity)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

func info(g *mls.Group) infoJSON {
	return infoJSON{Epoch: g.Epoch(), GroupID: hex.EncodeToString(g.GroupID()), OwnLeaf: g.OwnLeaf(), Members: members(g)}
}

// exec runs the command; state is saved only after it succeeded.
func (p *peer) exec() error {
	var result any
	var err error
	switch p.o.cmd {
	case "keypackage":
		result, err = p.keypackage()
	case "create":
		result, err = p.create()
	case "add":
		result, err = p.add()
	case "join-welcome":
		result, err = p.joinWelcome()
	case "groupinfo":
		result, err = p.groupInfo()
	case "external-join":
		result, err = p.externalJoin()
	case "process":
		return p.process()
	case "send":
		result, err = p.send()
	case "remove":
		result, err = p.remove()
	case "update":
		result, err = p.update()
	case "export":
		return p.export()
	case "epoch-authenticator":
		if err := p.nargs(0); err != nil {
			return err
		}
		g, err := p.needGroup()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(p.out, hex.EncodeToString(g.EpochAuthenticator()))
		return err
	case "info":
		if err := p.nargs(0); err != nil {
			return err
		}
		g, err := p.needGroup()
		if err != nil {
			return err
		}
		return p.printJSON(info(g))
	default:
		return usagef("unknown command %q", p.o.cmd)
	}
	if err != nil {
		return err
	}
	if err := p.save(); err != nil {
		return err
	}
	return p.printJSON(result)
}
