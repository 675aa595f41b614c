package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"weald/backend/engine"
	"weald/backend/errcode"
)

// The CLI's home directory (--home, WEALD_HOME or ~/.weald):
//
//	profile.json        the name given at init
//	current             the current workspace's id
//	workspaces/<id>/    one engine directory per workspace

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

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
