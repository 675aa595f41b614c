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
// on the relay (design/gaps.md "Key packages"), besides one last-resort
// package (RFC 9420 §16.8) that a claim returns, and keeps, when no one-use
// package is left, so that an add rarely waits.
const keyPackageStock = 4

// keyPackageFormat is the format of the stock this client publishes: 2 is
// leaf-bound packages (docs/protocol/groups.md "Leaf binding") plus a
// last-resort package. A stock of an older format (0: published before the
// binding, which adders refuse with keypackage/refused) is drained from the
// relay and replaced once.
const keyPackageFormat = 2

// maxDrain bounds the claims of this device's own stale packages on an
// upgrade (the relay's claim burst per owner is larger).
const maxDrain = 32

// ensureKeyPackages tops up this device's key packages on the relay; the
// private halves are kept in the store (Tx.PutKeyPackage) until a Welcome
// uses them (a last-resort package's until it has been replaced twice).
func (e *Engine) ensureKeyPackages(ctx context.Context) error {
	have, err := e.keyPackages(ctx)
	if err != nil {
		return err
	}
	upgrade := e.meta.KeyPackages < keyPackageFormat
	if upgrade && len(have) > 0 {
		// A stock of the older format is on the relay.
		if done, err := e.drainKeyPackages(ctx); err != nil || !done {
			return err // not claimable yet: the next sync drains
		}
		if have, err = e.keyPackages(ctx); err != nil {
			return err
		}
	}
	oneUse := 0
	for _, kp := range have {
		if !e.lastResort(kp.Ref) {
			oneUse++
		}
	}
	needLR := upgrade || len(e.meta.LastResort) == 0 || e.meta.LastResortUsed
	if oneUse >= keyPackageStock/2 && !needLR {
		return nil
	}
	var items []wire.KeyPackageItem
	var bundles []*mls.KeyPackageBundle
	n := 0
	if oneUse < keyPackageStock/2 {
		n = keyPackageStock - oneUse
	}
	if needLR {
		n++ // the last one
	}
	for i := 0; i < n; i++ {
		kp, err := e.newKeyPackage()
		if err != nil {
			return err
		}
		bundles = append(bundles, kp)
		items = append(items, wire.KeyPackageItem{KeyPackage: kp.Message()})
	}
	if needLR {
		items[len(items)-1].LastResort = true
	}
	// Keep the private halves before the public ones can be claimed.
	if err := e.db.update(ctx, func(t *txn) error {
		for _, kp := range bundles {
			b, err := kp.Encode()
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
	if _, err = e.client.PutKeyPackages(ctx, items...); err != nil {
		return err
	}
	if !needLR {
		return nil
	}
	// The new last-resort package replaced the old on the relay; the one
	// before the old is no longer claimable nor, by now, in a Welcome.
	lr := append(e.meta.LastResort, bundles[len(bundles)-1].Ref())
	if len(lr) > 2 {
		old := lr[:len(lr)-2]
		if err := e.db.update(ctx, func(t *txn) error {
			for _, ref := range old {
				if err := t.tx.DeleteKeyPackage(ref); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
		lr = lr[len(lr)-2:]
	}
	e.meta.LastResort, e.meta.LastResortUsed, e.meta.KeyPackages = lr, false, keyPackageFormat
	return e.persistMeta(ctx)
}

// lastResort reports whether ref is one of this device's last-resort
// packages, which a Welcome does not use up.
func (e *Engine) lastResort(ref []byte) bool {
	for _, r := range e.meta.LastResort {
		if bytes.Equal(r, ref) {
			return true
		}
	}
	return false
}

// drainKeyPackages claims this device's own one-use packages of an older
// format off the relay (false when it may not claim yet: on its invite
// grant's connection, or past the claim rate) (the relay hands out the oldest first, so a stale
// stock would otherwise be served before the fresh one), and forgets their
// private halves: nobody can add this device with them any more.
func (e *Engine) drainKeyPackages(ctx context.Context) (bool, error) {
	for i := 0; i < maxDrain; i++ {
		c, err := e.claim(ctx, e.devID)
		var we *wire.Error
		if errors.As(err, &we) && we.Code == wire.CodeKeyPackageNone {
			break
		}
		if errors.As(err, &we) && (we.Code == wire.CodeLimitRate || we.Code == wire.CodeKeyPackageKind) {
			return false, nil // this device may not claim yet, or not now
		}
		if err != nil {
			return false, err
		}
		if c.LastResort {
			break
		}
	}
	return true, e.db.update(ctx, func(t *txn) error {
		kps, err := t.tx.KeyPackages()
		if err != nil {
			return err
		}
		for _, kp := range kps {
			if !e.lastResort(kp.Ref) {
				if err := t.tx.DeleteKeyPackage(kp.Ref); err != nil {
					return err
				}
			}
		}
		return nil
	})
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

// acceptWelcomes joins the groups a Welcome adds this device or agent to.
// A device looks only where the relay's Welcome notices point (the adder
// names the keys its Welcome adds; docs/protocol/wire.md "Welcome
// notices"), reading each noticed log from the Welcome on, and then clears
// those notices; it reads no other group's log. An agent reads the whole
// log of each group of its scope it is not in, for the content before its
// Welcome too (agentBackfill). The joiner holds only the keys of the
// epochs from its join on, so a closed group's earlier content stays
// unreadable to it.
func (e *Engine) acceptWelcomes(ctx context.Context) error {
	for _, gi := range e.welcomeGroups() {
		if e.member(gi.Policy.Group) {
			// A wrap a crash left unsent after the Welcome.
			if err := e.welcomeWrap(ctx, e.groups[gi.Policy.Group]); err != nil {
				return err
			}
		}
	}
	kps, err := e.keyPackages(ctx)
	if err != nil || len(kps) == 0 {
		return err
	}
	var w welcomeKeys
	w.refs = map[int][]byte{}
	for _, kp := range kps {
		b, err := mls.DecodeKeyPackageBundle(kp.Private)
		if err != nil {
			continue
		}
		w.refs[len(w.bundles)] = kp.Ref
		w.bundles = append(w.bundles, b)
	}
	if e.agentMode() {
		for _, gi := range e.welcomeGroups() {
			if e.member(gi.Policy.Group) {
				continue
			}
			envs, err := e.fetchAll(ctx, wire.ID(gi.Policy.Group), 0)
			if err != nil {
				return err
			}
			if err := e.joinFromWelcome(ctx, gi, envs, &w); err != nil {
				return err
			}
		}
		return nil
	}
	// Where a Welcome may add this device: its explicit groups, and the
	// root for a recovered device (welcomeGroups).
	where := map[wire.ID]roster.GroupInfo{}
	for _, gi := range e.welcomeGroups() {
		where[wire.ID(gi.Policy.Group)] = gi
	}
	// The relay keeps up to wire.MaxWelcomesKept notices and serves them a
	// page at a time; each page is cleared once handled.
	for page := 0; page <= wire.MaxWelcomesKept/wire.MaxWelcomes; page++ {
		notices, err := e.client.Welcomes(ctx)
		if errors.Is(err, wire.Errorf(wire.CodeUnknownFrame, "")) {
			return nil // a relay older than Welcome notices
		}
		if err != nil || len(notices) == 0 {
			return err
		}
		if err := e.acceptWelcomePage(ctx, where, notices, &w); err != nil {
			return err
		}
		if len(notices) < wire.MaxWelcomes {
			return nil
		}
	}
	return nil
}

// acceptWelcomePage joins from the Welcomes one page of notices names,
// then clears them.
func (e *Engine) acceptWelcomePage(ctx context.Context, where map[wire.ID]roster.GroupInfo, notices []wire.WelcomeRef, w *welcomeKeys) error {
	for _, n := range notices {
		gi, ok := where[n.Group]
		if !ok || e.member(gi.Policy.Group) || n.Seq == 0 {
			continue
		}
		envs, err := e.fetchAll(ctx, n.Group, n.Seq-1)
		if err != nil {
			return err
		}
		if err := e.joinFromWelcome(ctx, gi, envs, w); err != nil {
			return err
		}
	}
	// Each notice is done with: joined, already a member, or naming a
	// Welcome this device's keys do not open (nothing later can change
	// that).
	return e.client.WelcomesDone(ctx, notices)
}

// welcomeKeys are the private halves of this device's key packages, as
// JoinWelcome takes them, with each one's local ref.
type welcomeKeys struct {
	bundles []*mls.KeyPackageBundle
	refs    map[int][]byte
}

// joinFromWelcome joins gi from the newest Welcome of envs (a run of its
// log, ascending) that w opens, then processes the log after it.
func (e *Engine) joinFromWelcome(ctx context.Context, gi roster.GroupInfo, envs []wire.SeqEnvelope, w *welcomeKeys) error {
	for i := len(envs) - 1; i >= 0; i-- {
		env := &envs[i].Envelope
		if env.Kind != wire.KindMLSWelcome {
			continue
		}
		pub, isAgent, ok := e.authorPub(env.Author, gi.Policy.Group)
		if !ok || isAgent || wire.VerifyEnvelope(env, pub) != nil {
			continue
		}
		m, used, err := mls.JoinWelcome(e.mlsCfg, env.CT, w.bundles, nil)
		if errors.Is(err, groups.ErrUnboundLeaf) {
			// The roster may lag a leaf of the tree: fetch it once.
			if _, serr := e.syncRoster(ctx); serr == nil {
				m, used, err = mls.JoinWelcome(e.mlsCfg, env.CT, w.bundles, nil)
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
		// The self-joins before the Welcome, as every member counts them
		// (the run starts at the log's first seq where a self-join group
		// is joined by Welcome: an agent's).
		for j := range envs[:i] {
			env := &envs[j].Envelope
			if env.Kind != wire.KindMLSCommit {
				continue
			}
			if pub, _, ok := e.authorPub(env.Author, gi.Policy.Group); ok && wire.VerifyEnvelope(env, pub) == nil {
				_, _ = e.noteSelfJoin(g, &gi.Policy, env)
			}
		}
		if err := e.noteEpoch(g, gi.Policy.History == roster.HistoryClosed, gi.Policy.Kind == roster.KindWorkspace); err != nil {
			return err
		}
		lr := e.lastResort(w.refs[used])
		if lr {
			e.meta.LastResortUsed = true // replaced on the next top-up
		}
		if err := e.db.update(ctx, func(t *txn) error {
			if !lr {
				if err := t.tx.DeleteKeyPackage(w.refs[used]); err != nil {
					return err
				}
			} else if err := e.saveMeta(t); err != nil {
				return err
			}
			return e.saveGroup(t, g)
		}); err != nil {
			return err
		}
		// Commits and content after the Welcome; the chains are read
		// from it on.
		g.chainsFromHere()
		if e.agentMode() && gi.Policy.History == roster.HistoryOpen && i > 0 {
			// Owed until a member copy of the history keys opens: in the
			// log after the Welcome or, published later, in a later sync
			// (agentBackfill).
			g.rec.Backfill, g.rec.BackfillKeys = envs[i].Seq, false
		}
		if err := e.processEnvelopes(ctx, g, envs[i+1:]); err != nil {
			return err
		}
		if err := e.agentBackfill(ctx, g, &gi.Policy, envs[:i]); err != nil {
			return err
		}
		if err := e.welcomeWrap(ctx, g); err != nil {
			return err
		}
		e.emit(Event{Kind: EventChannels})
		// The added person is told on arrival (spec/channels.md
		// "Explicit groups and the pending add" step 4).
		msg := "You were added to " + gi.Name + "."
		if gi.Policy.Kind == roster.KindDM {
			msg = "A new direct message."
		}
		e.emit(Event{Kind: EventAdded, Channel: hexID(gi.Policy.Group).hex(), Message: msg})
		return nil
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
