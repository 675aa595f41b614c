package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Bootstrap steps, in the spec's order (docs/protocol/groups.md "Bootstrap
// order"). Each name is also a crash point for tests.
const (
	StepKeys       = "keys"
	StepProvision  = "provision"
	StepGenesisSet = "genesis_set"
	StepRoster     = "roster_genesis"
	StepRoot       = "root"
	StepAccessSet  = "access_set"
	StepGeneral    = "general"
	StepActivity   = "activity"
	StepReady      = "ready"
)

// CreateWorkspace makes a new workspace in opts.Dir with this device as its
// trust root and runs the bootstrap; see Resume for what happens when it is
// interrupted. The engine is returned even when bootstrap stopped early
// (with the error), so that the caller can report the workspace id.
//
// relayURL is normalized first (relayclient.NormalizeAddress); an address
// that cannot be a relay is refused before anything is written.
func CreateWorkspace(ctx context.Context, opts Options, name, relayURL string) (*Engine, error) {
	if Exists(opts.Dir) {
		return nil, ErrExists
	}
	relayURL, err := relayclient.NormalizeAddress(relayURL)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	var ws identity.WorkspaceID
	var user identity.UserID
	seed := make([]byte, 32)
	gseed := make([]byte, 32)
	for _, b := range [][]byte{ws[:], user[:], seed, gseed} {
		if _, err := io.ReadFull(e.rand, b); err != nil {
			e.db.close()
			return nil, err
		}
	}
	// The recovery phrase is drawn with the keys, so the caller can show it
	// right away (TakeRecoveryPhrase), before the relay is provisioned; the
	// bootstrap registers its principal (ensureRecovery).
	phrase, err := identity.NewRecoveryPhrase(e.rand)
	if err != nil {
		e.db.close()
		return nil, err
	}
	e.meta = meta{Workspace: hexID(ws), Name: name, DisplayName: opts.DisplayName, Relay: relayURL, User: hexID(user), DeviceSeed: seed,
		GenesisSeed: gseed, Creator: true, Steps: map[string]bool{StepKeys: true}, Muted: map[string]bool{},
		Phrase: strings.Join(phrase.Words(), " ")}
	if err := e.initKeys(); err != nil {
		e.db.close()
		return nil, err
	}
	e.roster = roster.New(roster.Options{})
	if err := e.persistMeta(ctx); err != nil {
		e.db.close()
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.crash(StepKeys); err != nil {
		return e, err
	}
	return e, e.bootstrap(ctx)
}

// Ready reports whether setup is complete: the root, #general and
// #activity exist and this device is in them.
func (e *Engine) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ready()
}

func (e *Engine) ready() bool {
	if e.roster == nil || e.roster.Len() == 0 {
		return false
	}
	if e.agentMode() {
		return e.agentReady()
	}
	ws := e.wsID()
	for _, id := range []identity.GroupID{roster.RootGroupID(ws), roster.GeneralGroupID(ws), roster.ActivityGroupID(ws)} {
		if _, ok := e.roster.Group(id); !ok || !e.member(id) {
			return false
		}
	}
	return true
}

func (e *Engine) step(ctx context.Context, name string) error {
	e.meta.Steps[name] = true
	if err := e.persistMeta(ctx); err != nil {
		return err
	}
	return e.crash(name)
}

// bootstrap runs (or resumes) the trust root's setup. Every step first
// checks whether it is already done, so it is idempotent.
func (e *Engine) bootstrap(ctx context.Context) error {
	if !e.meta.Steps[StepProvision] {
		if e.opts.Provision != nil {
			gen, _ := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed)
			err := e.opts.Provision(ctx, e.meta.Relay, wire.ID(e.meta.Workspace), gen.Public().Bytes())
			var we *wire.Error
			if err != nil && !(errors.As(err, &we) && we.Code == wire.CodeWorkspaceExists) {
				return fmt.Errorf("provision: %w", err)
			}
		}
		if err := e.step(ctx, StepProvision); err != nil {
			return err
		}
	}
	if !e.meta.Steps[StepGenesisSet] {
		if err := e.publishGenesisSet(ctx); err != nil {
			return err
		}
		if err := e.step(ctx, StepGenesisSet); err != nil {
			return err
		}
	}
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	if !e.meta.Steps[StepRoster] {
		if e.roster.Len() == 0 {
			gen, err := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed)
			if err != nil {
				return fmt.Errorf("genesis key: %w", err)
			}
			if err := e.appendRoster(ctx, func() (roster.Body, error) {
				if e.roster.Len() > 0 {
					return nil, nil
				}
				return roster.NewGenesis(e.wsID(), identity.UserID(e.meta.User), e.dev.Public(), gen)
			}); err != nil {
				return fmt.Errorf("roster genesis: %w", err)
			}
		}
		e.meta.GenesisSeed = nil // the genesis key has done its two jobs: destroy it
		if err := e.step(ctx, StepRoster); err != nil {
			return err
		}
	}
	if e.roster.Len() == 0 {
		return errcode.New("roster/missing_genesis", "the roster has no genesis operation although bootstrap recorded one")
	}
	if err := e.ensureRecovery(ctx); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if err := e.ensureName(ctx); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	ws := e.wsID()
	for _, st := range []struct {
		step string
		id   identity.GroupID
	}{{StepRoot, roster.RootGroupID(ws)}, {StepGeneral, roster.GeneralGroupID(ws)}, {StepActivity, roster.ActivityGroupID(ws)}} {
		if err := e.ensureDefaultGroup(ctx, st.id); err != nil {
			return fmt.Errorf("bootstrap %s: %w", st.step, err)
		}
		if st.step == StepActivity && !e.meta.Steps[StepActivity] {
			e.meta.Muted[hexID(st.id).hex()] = true // #activity is muted by default
		}
		if err := e.step(ctx, st.step); err != nil {
			return err
		}
		if st.step == StepRoot && !e.meta.Steps[StepAccessSet] {
			if err := e.publishAccessSet(ctx); err != nil {
				return fmt.Errorf("bootstrap access set: %w", err)
			}
			if err := e.step(ctx, StepAccessSet); err != nil {
				return err
			}
		}
	}
	if !e.ready() {
		return ErrNotReady
	}
	if !e.meta.Steps[StepReady] {
		if err := e.step(ctx, StepReady); err != nil {
			return err
		}
	}
	e.emit(Event{Kind: EventReady})
	e.emit(Event{Kind: EventChannels})
	return nil
}

// publishGenesisSet publishes access set version 1, signed by the genesis
// key, with this device as admin, before any connection can authenticate.
func (e *Engine) publishGenesisSet(ctx context.Context) error {
	gen, err := identity.PrivateFromSeed[identity.Genesis](e.meta.GenesisSeed)
	if err != nil {
		return fmt.Errorf("genesis key: %w", err)
	}
	set := wire.AccessSet{Workspace: wire.ID(e.meta.Workspace), Version: 1,
		Devices: []wire.DeviceKey{{Pub: e.dev.Public().Bytes(), User: wire.ID(e.meta.User), Admin: true}}}
	wire.SignAccessSet(&set, ed25519.NewKeyFromSeed(gen.Seed()))
	err = relayclient.PublishGenesis(ctx, e.meta.Relay, set)
	if err == nil {
		return nil
	}
	var we *wire.Error
	if errors.As(err, &we) {
		switch we.Code {
		case wire.CodeWorkspaceUnknown:
			return ErrNotProvisioned
		case wire.CodeAuthGenesisUsed, wire.CodeCASConflict:
			// Accepted before a crash? Then our device can connect.
			if e.connect(ctx) == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("genesis access set: %w", err)
}

// ensureDefaultGroup makes sure the roster holds the default group's policy
// (genesis first) and this device holds its MLS group and history key, and
// that a channel's standing bundles are published.
func (e *Engine) ensureDefaultGroup(ctx context.Context, id identity.GroupID) error {
	if e.roster.Len() == 0 {
		return errcode.New("roster/missing_genesis", "no genesis")
	}
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		for _, cg := range roster.BootstrapGroups(e.roster, e.meta.Name) {
			if cg.Policy.Group == id {
				return cg, nil
			}
		}
		return nil, nil
	}); err != nil {
		return err
	}
	gi, ok := e.roster.Group(id)
	if !ok {
		return errcode.New("roster/missing_group", "the group policy did not land")
	}
	return e.ensureOwnGroup(ctx, gi)
}

// ensureOwnGroup creates the MLS group of a group this device created
// (persisted before use) and publishes its bundles.
func (e *Engine) ensureOwnGroup(ctx context.Context, gi roster.GroupInfo) error {
	id := gi.Policy.Group
	g := e.groupState(id)
	if g.mls == nil {
		m, err := e.newGroup(id)
		if err != nil {
			return err
		}
		g.mls = m
		g.rec.WrapIndex = g.rec.LastSeq == 0 // its log is read from the start
		if gi.Policy.History == roster.HistoryOpen && len(g.history) == 0 {
			hk, err := groups.NewHistoryKey(e.rand)
			if err != nil {
				return err
			}
			g.history = append(g.history, hk)
		}
		if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, gi.Policy.Kind == roster.KindWorkspace); err != nil {
			return err
		}
		if err := e.persistGroup(ctx, g); err != nil {
			return err
		}
	}
	if err := e.ensureRecoveryWrap(ctx, g); err != nil {
		return err
	}
	if gi.Policy.Admission == roster.AdmissionParent && !e.meta.Steps["bundles/"+hexID(id).hex()] {
		if err := e.publishBundles(ctx, g, &gi.Policy); err != nil {
			return err
		}
		e.meta.Steps["bundles/"+hexID(id).hex()] = true
		return e.persistMeta(ctx)
	}
	return nil
}

// accessRepublishAfter is the age at which an admin republishes an
// unchanged access set, so the current one is always fresher than the 7
// days spec/lifecycle.md "Ongoing health" checks while an admin is online.
const accessRepublishAfter = 24 * time.Hour

// publishAccessSet publishes the next access set, signed by this (admin)
// device: every live device of the roster, the live invites' grants. An
// unchanged set is republished once the current one is a day old.
func (e *Engine) publishAccessSet(ctx context.Context) error {
	for attempt := 0; attempt < 5; attempt++ {
		ac, err := e.client.CurrentAccessSet(ctx)
		if err != nil {
			return err
		}
		cur := ac.Set
		next := e.accessSetFromRoster(cur.Version+1, &cur)
		fresh := e.now().Sub(time.Unix(int64(ac.AcceptedAt), 0)) < accessRepublishAfter
		if cur.Version > 1 && sameAccess(&cur, &next) && fresh {
			return nil
		}
		_, err = e.client.PublishAccessSet(ctx, next)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.CodeCASConflict {
			continue
		}
		return err
	}
	return errcode.New("access/busy", "the access set kept changing")
}

func (e *Engine) accessSetFromRoster(version uint64, cur *wire.AccessSet) wire.AccessSet {
	set := wire.AccessSet{Workspace: wire.ID(e.meta.Workspace), Version: version}
	for _, u := range e.roster.Users() {
		if u.RevokedAt != nil {
			continue
		}
		for _, d := range u.Devices {
			if !e.roster.DeviceLive(d) {
				continue
			}
			di, _ := e.roster.Device(d)
			// Admin authority, not the user's role: a recovered device on
			// probation is no admin (spec/lifecycle.md), so the relay
			// refuses an access set it signs.
			set.Devices = append(set.Devices, wire.DeviceKey{Pub: di.Public.Bytes(), User: wire.ID(u.ID), Admin: e.roster.IsAdmin(d)})
		}
	}
	// Every invite's grant is in the roster (identity.InviteSecret.Grant, the
	// grant key the relay checks), so any admin lists the usable ones (roster.md "Access
	// set inputs": unrevoked, unexpired, not used up, creator live) and
	// voids the rest.
	keys := e.roster.AccessKeys(e.now())
	for _, g := range keys.Grants {
		set.Grants = append(set.Grants, wire.ID(g))
	}
	// Agents whose certificate is live now (docs/protocol/agents.md): an
	// expired or revoked one drops out at the next publication.
	for _, a := range keys.Agents {
		set.Agents = append(set.Agents, a.Bytes())
	}
	// Live recovery keys: a person who lost every device connects with
	// one to recover onto a new device (recover.go).
	for _, r := range keys.Recoveries {
		set.Recovery = append(set.Recovery, r.Bytes())
	}
	known := map[wire.ID]bool{}
	for _, inv := range e.roster.Invites() {
		known[wire.ID(inv.Invite.Grant)] = true
	}
	// A grant of no invite this roster holds yet (another admin's invite
	// whose roster operation arrived after this read) is carried over.
	for _, g := range cur.Grants {
		if !known[g] {
			set.Grants = append(set.Grants, g)
		}
	}
	wire.SignAccessSet(&set, e.edKey)
	return set
}

func sameAccess(a, b *wire.AccessSet) bool {
	if len(a.Devices) != len(b.Devices) || len(a.Grants) != len(b.Grants) || len(a.Agents) != len(b.Agents) ||
		len(a.Recovery) != len(b.Recovery) {
		return false
	}
	for i := range a.Recovery {
		if string(a.Recovery[i]) != string(b.Recovery[i]) {
			return false
		}
	}
	for i := range a.Agents {
		if string(a.Agents[i]) != string(b.Agents[i]) {
			return false
		}
	}
	for i := range a.Devices {
		if string(a.Devices[i].Pub) != string(b.Devices[i].Pub) || a.Devices[i].Admin != b.Devices[i].Admin {
			return false
		}
	}
	for i := range a.Grants {
		if a.Grants[i] != b.Grants[i] {
			return false
		}
	}
	return true
}
