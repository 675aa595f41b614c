package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// keyPackageStock is how many unused one-use key packages this device keeps
// on the relay (design/gaps.md "Key packages").
const keyPackageStock = 4

// ensureKeyPackages tops up this device's key packages on the relay; the
// private halves are kept in the store (Tx.PutKeyPackage) until a Welcome
// uses them.
func (e *Engine) ensureKeyPackages(ctx context.Context) error {
	have, err := e.keyPackages(ctx)
	if err != nil {
		return err
	}
	if len(have) >= keyPackageStock/2 {
		return nil
	}
	var items []wire.KeyPackageItem
	var bundles []*mls.KeyPackageBundle
	for i := len(have); i < keyPackageStock; i++ {
		kp, err := e.newKeyPackage()
		if err != nil {
			return err
		}
		bundles = append(bundles, kp)
		items = append(items, wire.KeyPackageItem{KeyPackage: kp.Message()})
	}
	// Keep the private halves before the public ones can be claimed.
	if err := e.db.update(ctx, func(t *txn) error {
		for _, kp := range bundles {
			b, err := kp.MarshalBinary()
			if err != nil {
				return err
			}
			if err := t.tx.PutKeyPackage(kp.Ref(), b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	_, err = e.client.PutKeyPackages(ctx, items...)
	return err
}

// AddMembers adds devices to an explicit group this device is in, with one
// commit (spec/channels.md "Explicit groups and the pending add" step 1); the
// Welcome goes into the group's log, where the added devices find it on
// their next sync. A device without a key package on the relay is an error
// (keypackage/none); pending adds are not recorded yet.
func (e *Engine) AddMembers(ctx context.Context, channel string, devices []identity.DeviceID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return err
	}
	if _, err := e.syncRoster(ctx); err != nil {
		return err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return err
	}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return ErrNotMember
	}
	var kps [][]byte
	for _, d := range devices {
		if e.roster.Entitlement(gi.Policy.Group, identity.DevicePrincipal(d), e.now(), e.member) != roster.JoinMemberAdd {
			return errcode.Errorf("join/not_entitled", "device %s cannot be added to %s", d.ShortString(), gi.Name)
		}
		c, err := e.client.ClaimKeyPackage(ctx, wire.ID(d))
		if err != nil {
			return err
		}
		if err := e.checkClaimed(ctx, g, d, c.KeyPackage); err != nil {
			return err
		}
		kps = append(kps, c.KeyPackage)
	}
	if err := e.catchUp(ctx, g); err != nil {
		return err
	}
	return e.commit(ctx, g, mls.CommitOptions{Add: kps, RatchetTreeInWelcome: true})
}

// ErrKeyPackageRefused is a claimed key package that is not the named
// device's: the relay served another one (issue 11 finding 1).
var ErrKeyPackageRefused = errcode.New("keypackage/refused", "the key package the relay returned is not bound to that device by the roster; nobody was added")

// checkClaimed validates a key package claimed for device d before it is
// committed into g: a valid KeyPackage for g (the authentication hook
// included: a leaf bound to a live device) whose credential names d. A
// refusal raises an alert and is returned; nothing is sent.
func (e *Engine) checkClaimed(ctx context.Context, g *group, d identity.DeviceID, kp []byte) error {
	k, err := g.mls.ValidateKeyPackage(kp)
	if err == nil && !bytes.Equal(k.LeafNode.Credential.Identity, d[:]) {
		err = fmt.Errorf("its credential names %x…, not %s", k.LeafNode.Credential.Identity[:min(4, len(k.LeafNode.Credential.Identity))], d.ShortString())
	}
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w (device %s: %v)", ErrKeyPackageRefused, d.ShortString(), err)
	// The actor is the relay (or whoever stored that key package), not d.
	e.raise(ctx, Alert{Code: "keypackage/refused", Group: hexID(g.rec.ID).hex(), Message: err.Error()})
	return err
}

// acceptWelcomes looks for Welcomes to this device in the logs of explicit
// groups it is not in, and joins from the first one its key packages open.
// The joiner holds only the keys of the epochs from its join on, so a
// closed group's earlier content stays unreadable to it.
func (e *Engine) acceptWelcomes(ctx context.Context) error {
	kps, err := e.keyPackages(ctx)
	if err != nil || len(kps) == 0 {
		return err
	}
	var bundles []*mls.KeyPackageBundle
	refs := map[int][]byte{}
	for _, kp := range kps {
		b, err := mls.UnmarshalKeyPackageBundle(kp.Private)
		if err != nil {
			continue
		}
		refs[len(bundles)] = kp.Ref
		bundles = append(bundles, b)
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Policy.Admission != roster.AdmissionExplicit {
			continue
		}
		if e.member(gi.Policy.Group) {
			// A wrap a crash left unsent after the Welcome.
			if err := e.welcomeWrap(ctx, e.groups[gi.Policy.Group]); err != nil {
				return err
			}
			continue
		}
		envs, err := e.fetchAll(ctx, wire.ID(gi.Policy.Group), 0)
		if err != nil {
			return err
		}
		for i := len(envs) - 1; i >= 0; i-- {
			env := &envs[i].Envelope
			if env.Kind != wire.KindMLSWelcome {
				continue
			}
			pub, ok := e.devicePub(env.Author)
			if !ok || wire.VerifyEnvelope(env, pub) != nil {
				continue
			}
			m, used, err := mls.JoinWelcome(e.mlsCfg, env.CT, bundles, nil)
			if errors.Is(err, groups.ErrUnboundLeaf) {
				// The roster may lag a leaf of the tree: fetch it once.
				if _, serr := e.syncRoster(ctx); serr == nil {
					m, used, err = mls.JoinWelcome(e.mlsCfg, env.CT, bundles, nil)
				}
				if errors.Is(err, groups.ErrUnboundLeaf) {
					e.alertUnbound(ctx, gi.Policy.Group, env.Author, "the Welcome", err)
				}
			}
			if err != nil {
				continue
			}
			g := e.groupState(gi.Policy.Group)
			g.mls = m
			g.rec.LastSeq = envs[i].Seq
			if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, false); err != nil {
				return err
			}
			if err := e.db.update(ctx, func(t *txn) error {
				if err := t.tx.DeleteKeyPackage(refs[used]); err != nil {
					return err
				}
				return e.saveGroup(t, g)
			}); err != nil {
				return err
			}
			// Commits and content after the Welcome.
			if err := e.processEnvelopes(ctx, g, envs[i+1:]); err != nil {
				return err
			}
			if err := e.welcomeWrap(ctx, g); err != nil {
				return err
			}
			e.emit(Event{Kind: EventChannels})
			break
		}
	}
	return nil
}

// welcomeWrap sends the recovery.wrap of a group this device entered by
// Welcome, once it is a member, if its user has a recovery principal
// (devices added by Welcome are covered like self-joiners).
func (e *Engine) welcomeWrap(ctx context.Context, g *group) error {
	if _, ok := e.recoveryKeys(); !ok || !e.member(identity.GroupID(g.rec.ID)) {
		return nil
	}
	return e.ensureRecoveryWrap(ctx, g)
}

// keyPackages returns the private halves of this device's unused key
// packages.
func (e *Engine) keyPackages(ctx context.Context) (kps []store.KeyPackage, err error) {
	err = e.db.view(ctx, func(tx *store.Tx) error {
		kps, err = tx.KeyPackages()
		return err
	})
	return kps, err
}
