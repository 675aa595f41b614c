package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"weald/backend/mls"
)

func (p *peer) keypackage() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	cred, err := p.credential()
	if err != nil {
		return nil, err
	}
	kp, err := mls.GenerateKeyPackage(p.cfg, p.suite, cred)
	if err != nil {
		return nil, err
	}
	priv, err := kp.Encode()
	if err != nil {
		return nil, err
	}
	ref := hex.EncodeToString(kp.Ref())
	if err := writeFileAtomic(filepath.Join(p.o.state, dirKeyPackages, ref), priv); err != nil {
		return nil, err
	}
	if err := p.write(p.o.args[0], kp.Message()); err != nil {
		return nil, err
	}
	return map[string]string{"keypackage": p.o.args[0], "ref": ref}, nil
}

func (p *peer) create() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	if err := p.noGroup(); err != nil {
		return nil, err
	}
	cred, err := p.credential()
	if err != nil {
		return nil, err
	}
	g, err := mls.NewGroup(p.cfg, p.suite, []byte(p.o.args[0]), cred)
	if err != nil {
		return nil, err
	}
	p.group = g
	return info(g), nil
}

func (p *peer) commitOpts() mls.CommitOptions {
	return mls.CommitOptions{Private: p.o.private}
}

// commit creates, writes and merges a commit.
func (p *peer) commit(opts mls.CommitOptions) (*mls.StagedCommit, error) {
	if p.o.commit == "" {
		return nil, usagef("--commit OUT is required")
	}
	g, err := p.needGroup()
	if err != nil {
		return nil, err
	}
	sc, err := g.Commit(opts)
	if err != nil {
		return nil, err
	}
	if err := p.write(p.o.commit, sc.Message); err != nil {
		return nil, err
	}
	if err := g.Merge(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

func (p *peer) add() (any, error) {
	if len(p.o.args) == 0 {
		return nil, usagef("add needs at least one key package file")
	}
	if p.o.welcome == "" {
		return nil, usagef("--welcome OUT is required")
	}
	opts := p.commitOpts()
	for _, f := range p.o.args {
		b, err := readInput(f)
		if err != nil {
			return nil, err
		}
		opts.Add = append(opts.Add, b)
	}
	opts.RatchetTreeInWelcome = p.o.ratchetTree == ""
	sc, err := p.commit(opts)
	if err != nil {
		return nil, err
	}
	if err := p.write(p.o.welcome, sc.Welcome); err != nil {
		return nil, err
	}
	if p.o.ratchetTree != "" {
		if err := p.write(p.o.ratchetTree, p.group.RatchetTree()); err != nil {
			return nil, err
		}
	}
	return info(p.group), nil
}

// bundles loads the private halves of this peer's unused key packages.
func (p *peer) bundles() ([]*mls.KeyPackageBundle, []string, error) {
	dir := filepath.Join(p.o.state, dirKeyPackages)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []*mls.KeyPackageBundle
	var paths []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, err
		}
		kp, err := mls.DecodeKeyPackageBundle(b)
		if err != nil {
			return nil, nil, fmt.Errorf("stored key package %s: %w", e.Name(), err)
		}
		out = append(out, kp)
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	return out, paths, nil
}

func (p *peer) optionalTree() ([]byte, error) {
	if p.o.ratchetTree == "" {
		return nil, nil
	}
	return readInput(p.o.ratchetTree)
}

func (p *peer) joinWelcome() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	if err := p.noGroup(); err != nil {
		return nil, err
	}
	w, err := readInput(p.o.args[0])
	if err != nil {
		return nil, err
	}
	rt, err := p.optionalTree()
	if err != nil {
		return nil, err
	}
	kps, paths, err := p.bundles()
	if err != nil {
		return nil, err
	}
	g, used, err := mls.JoinWelcome(p.cfg, w, kps, rt)
	if err != nil {
		return nil, err
	}
	p.group = g
	// A used key package is gone for good (RFC 9420 §16.8), unless last_resort.
	if !kps[used].KeyPackage.IsLastResort() {
		if err := os.Remove(paths[used]); err != nil {
			return nil, err
		}
	}
	return info(g), nil
}

func (p *peer) groupInfo() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	g, err := p.needGroup()
	if err != nil {
		return nil, err
	}
	gi, err := g.GroupInfo(p.o.ratchetTree == "")
	if err != nil {
		return nil, err
	}
	if err := p.write(p.o.args[0], gi); err != nil {
		return nil, err
	}
	if p.o.ratchetTree != "" {
		if err := p.write(p.o.ratchetTree, g.RatchetTree()); err != nil {
			return nil, err
		}
	}
	return map[string]uint64{"epoch": g.Epoch()}, nil
}

func (p *peer) externalJoin() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	// --resync rejoins a group this state already holds, removing the old
	// leaf (RFC 9420 §12.4.3.2); otherwise the state must be empty.
	if !p.o.resync {
		if err := p.noGroup(); err != nil {
			return nil, err
		}
	}
	if p.o.commit == "" {
		return nil, usagef("--commit OUT is required")
	}
	cred, err := p.credential()
	if err != nil {
		return nil, err
	}
	gi, err := readInput(p.o.args[0])
	if err != nil {
		return nil, err
	}
	rt, err := p.optionalTree()
	if err != nil {
		return nil, err
	}
	g, msg, err := mls.ExternalJoin(p.cfg, gi, rt, cred, mls.ExternalJoinOptions{Resync: p.o.resync})
	if err != nil {
		return nil, err
	}
	if err := p.write(p.o.commit, msg); err != nil {
		return nil, err
	}
	p.group = g
	return info(g), nil
}

type processedJSON struct {
	File    string       `json:"file"`
	Type    string       `json:"type"`
	Epoch   uint64       `json:"epoch"`
	Text    *string      `json:"text,omitempty"`
	Active  *bool        `json:"active,omitempty"`
	Members []memberJSON `json:"members,omitempty"`
}

// process handles each file in turn, saving after each; the first failure
// stops (the state stays as the last good message left it).
func (p *peer) process() error {
	if len(p.o.args) == 0 {
		return usagef("process needs at least one file")
	}
	g, err := p.needGroup()
	if err != nil {
		return err
	}
	for _, f := range p.o.args {
		b, err := readInput(f)
		if err != nil {
			return err
		}
		rcv, err := g.Process(b)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		line := processedJSON{File: f}
		switch rcv.Type {
		case mls.ContentApplication:
			line.Type = "application"
			s := string(rcv.Application)
			line.Text = &s
		case mls.ContentProposal:
			line.Type = "proposal"
		case mls.ContentCommit:
			line.Type = "commit"
			if err := g.Merge(rcv.Commit); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			active := g.Active()
			line.Active = &active
			if active {
				line.Members = members(g)
			}
		}
		line.Epoch = g.Epoch()
		if err := p.save(); err != nil {
			return err
		}
		if err := p.printJSON(line); err != nil {
			return err
		}
	}
	return nil
}

func (p *peer) send() (any, error) {
	if err := p.nargs(2); err != nil {
		return nil, err
	}
	g, err := p.needGroup()
	if err != nil {
		return nil, err
	}
	msg, err := g.Protect([]byte(p.o.args[0]), nil)
	if err != nil {
		return nil, err
	}
	if err := p.write(p.o.args[1], msg); err != nil {
		return nil, err
	}
	return map[string]uint64{"epoch": g.Epoch()}, nil
}

func (p *peer) remove() (any, error) {
	if err := p.nargs(1); err != nil {
		return nil, err
	}
	g, err := p.needGroup()
	if err != nil {
		return nil, err
	}
	target := p.o.args[0]
	var leaf uint32
	if id, ok := strings.CutPrefix(target, "id:"); ok {
		found := false
		for _, m := range g.Members() {
			if string(m.Credential.Identity) == id {
				leaf, found = m.Index, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no member has identity %q", id)
		}
	} else {
		n, err := strconv.ParseUint(target, 10, 32)
		if err != nil {
			return nil, usagef("remove takes LEAF_INDEX or id:IDENTITY, not %q", target)
		}
		leaf = uint32(n)
	}
	opts := p.commitOpts()
	opts.Remove = []uint32{leaf}
	if _, err := p.commit(opts); err != nil {
		return nil, err
	}
	return info(g), nil
}

func (p *peer) update() (any, error) {
	if err := p.nargs(0); err != nil {
		return nil, err
	}
	opts := p.commitOpts()
	opts.ForcePath = true
	if _, err := p.commit(opts); err != nil {
		return nil, err
	}
	return info(p.group), nil
}

func (p *peer) export() error {
	if err := p.nargs(3); err != nil {
		return err
	}
	g, err := p.needGroup()
	if err != nil {
		return err
	}
	ctx, err := hex.DecodeString(p.o.args[1])
	if err != nil {
		return usagef("CONTEXT_HEX: %v", err)
	}
	n, err := strconv.ParseUint(p.o.args[2], 10, 16)
	if err != nil {
		return usagef("LEN: %v", err)
	}
	out, err := g.Export(p.o.args[0], ctx, int(n))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(p.out, hex.EncodeToString(out))
	return err
}
