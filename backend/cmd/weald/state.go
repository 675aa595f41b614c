package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"weald/backend/engine"
	"weald/backend/errcode"
	"weald/backend/store"
)

// The CLI's home directory (--home, WEALD_HOME or ~/.weald):
//
//	app.db              the profile (the name given at init) and the current
//	                    workspace's id: store.App, docs/protocol/store.md
//	workspaces/<id>/    one engine directory per workspace
//
// Versions before the store owned them kept the profile in profile.json and
// the current workspace in a file named current; the first command after
// an upgrade moves them into app.db and removes them (moveLegacy).

type profile struct {
	Name string `json:"name"`
}

var errNoProfile = errcode.New("profile/none", "run weald init --name NAME first")

// openApp opens the home's app database, creating it (and the home) if
// create is set; without create, a home that has neither app.db nor a
// legacy file to move in gives (nil, nil), so reading commands leave no
// trace before init.
func (c *cli) openApp(ctx context.Context, create bool) (*store.App, error) {
	if !create && !exists(store.AppPath(c.home)) && !exists(c.legacyProfile()) && !exists(c.legacyCurrent()) {
		return nil, nil
	}
	a, err := store.OpenApp(ctx, c.home)
	if err != nil {
		return nil, err
	}
	if err := c.moveLegacy(ctx, a); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (c *cli) legacyProfile() string { return filepath.Join(c.home, "profile.json") }
func (c *cli) legacyCurrent() string { return filepath.Join(c.home, "current") }

// moveLegacy moves profile.json and current, as earlier versions kept them,
// into app.db, and removes each once it is stored.
func (c *cli) moveLegacy(ctx context.Context, a *store.App) error {
	if b, err := os.ReadFile(c.legacyProfile()); err == nil {
		var pr profile
		if err := json.Unmarshal(b, &pr); err != nil {
			return fmt.Errorf("%s: %w", c.legacyProfile(), err)
		}
		if err := a.SetProfile(ctx, pr.Name); err != nil {
			return err
		}
		if err := os.Remove(c.legacyProfile()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if b, err := os.ReadFile(c.legacyCurrent()); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			if err := a.SetCurrentWorkspace(ctx, id); err != nil {
				return err
			}
		}
		if err := os.Remove(c.legacyCurrent()); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (c *cli) profile(ctx context.Context) (profile, error) {
	a, err := c.openApp(ctx, false)
	if err != nil {
		return profile{}, err
	}
	if a == nil {
		return profile{}, errNoProfile
	}
	defer a.Close()
	name, ok, err := a.Profile(ctx)
	if err != nil {
		return profile{}, err
	}
	if !ok {
		return profile{}, errNoProfile
	}
	return profile{Name: name}, nil
}

func (c *cli) setProfile(ctx context.Context, name string) error {
	a, err := c.openApp(ctx, true)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.SetProfile(ctx, name)
}

func (c *cli) wsDir(id string) string { return filepath.Join(c.home, "workspaces", id) }

func (c *cli) setCurrent(ctx context.Context, id string) error {
	a, err := c.openApp(ctx, true)
	if err != nil {
		return err
	}
	defer a.Close()
	return a.SetCurrentWorkspace(ctx, id)
}

// forgetCurrent forgets the current workspace if it is id.
func (c *cli) forgetCurrent(ctx context.Context, id string) error {
	a, err := c.openApp(ctx, false)
	if err != nil || a == nil {
		return err
	}
	defer a.Close()
	return a.ClearCurrentWorkspace(ctx, id)
}

// current is the workspace named by --workspace, else the current one.
func (c *cli) current(ctx context.Context) (string, error) {
	if c.workspace != "" {
		return c.workspace, nil
	}
	a, err := c.openApp(ctx, false)
	if err != nil {
		return "", err
	}
	if a == nil {
		return "", engine.ErrNoWorkspace
	}
	defer a.Close()
	id, ok, err := a.CurrentWorkspace(ctx)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", engine.ErrNoWorkspace
	}
	return id, nil
}

// options are the engine's options for the workspace in dir. A setup that
// has not reached the relay yet asks it to provision the workspace (a relay
// in open mode does; one in operator mode leaves it to its operator).
func (c *cli) options(dir string) engine.Options {
	return engine.Options{Dir: dir, Provision: engine.SelfProvision(nil)}
}

// open opens the current workspace.
func (c *cli) open(ctx context.Context) (*engine.Engine, error) {
	id, err := c.current(ctx)
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

// withEngine opens the current workspace's engine, runs f with it and
// closes it: the preamble of every command that works on a workspace.
func (c *cli) withEngine(ctx context.Context, f func(e *engine.Engine) error) error {
	e, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer e.Close()
	return f(e)
}
