package engine

import (
	"context"
	"errors"
	"strings"

	"weald/backend/errcode"
	"weald/backend/groups"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/roster"
	"weald/backend/wire"
)

// ensureRecovery gives this user a recovery principal in the roster if it
// has none: keys from the phrase drawn at creation (meta.Phrase), else from
// a fresh 24-word phrase. The phrase is kept until TakeRecoveryPhrase has
// handed it out once and its principal is registered.
func (e *Engine) ensureRecovery(ctx context.Context) error {
	if e.meta.RotatePhrase != "" {
		return nil // a rotation in progress registers its own phrase
	}
	if _, ok := e.recoveryKeys(); ok {
		if e.meta.PhraseTaken {
			e.meta.Phrase, e.meta.PhraseTaken = "", false
			return e.persistMeta(ctx)
		}
		return nil
	}
	var phrase identity.RecoveryPhrase
	var err error
	if e.meta.Phrase != "" {
		phrase, err = identity.ParseRecoveryPhrase(e.meta.Phrase)
	} else {
		phrase, err = identity.NewRecoveryPhrase(e.rand)
	}
	if err != nil {
		return err
	}
	keys, err := identity.DeriveRecoveryKeys(phrase)
	if err != nil {
		return err
	}
	user := identity.UserID(e.meta.User)
	pub := keys.Signature.Public()
	if err := e.appendRoster(ctx, func() (roster.Body, error) {
		if _, ok := e.recoveryKeys(); ok {
			return nil, nil
		}
		proof, err := keys.Signature.Sign(identity.LabelPossession, roster.PossessionContent(e.wsID(), user, identity.KindRecovery, pub.Bytes()))
		if err != nil {
			return nil, err
		}
		return &roster.AdmitRecovery{User: user, Recovery: pub, HPKE: keys.HPKE.PublicBytes(), Possession: proof}, nil
	}); err != nil {
		return err
	}
	if e.meta.PhraseTaken {
		e.meta.Phrase, e.meta.PhraseTaken = "", false // shown already: forget it
	} else {
		e.meta.Phrase = strings.Join(phrase.Words(), " ")
	}
	return e.persistMeta(ctx)
}

// recoveryKeys returns this user's live recovery principal from the roster.
func (e *Engine) recoveryKeys() (roster.RecoveryInfo, bool) {
	u, ok := e.roster.User(identity.UserID(e.meta.User))
	if !ok {
		return roster.RecoveryInfo{}, false
	}
	for _, id := range u.Recovery {
		if r, ok := e.roster.Recovery(id); ok && r.RevokedAt == nil {
			return r, true
		}
	}
	return roster.RecoveryInfo{}, false
}

// TakeRecoveryPhrase returns the recovery phrase once (to be shown and
// confirmed); later calls return "". A creator's phrase is there from
// CreateWorkspace on, even while the relay is not provisioned: it is then
// kept (not handed out again) until the bootstrap registers its principal,
// and forgotten at once otherwise.
func (e *Engine) TakeRecoveryPhrase(ctx context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.meta.Phrase
	if p == "" || e.meta.PhraseTaken {
		return "", nil
	}
	if _, ok := e.recoveryKeys(); ok {
		e.meta.Phrase = ""
	} else {
		e.meta.PhraseTaken = true
	}
	return p, e.persistMeta(ctx)
}

// recoveryWrap builds the recovery.wrap of group id at m's epoch for this
// user's recovery key (spec/channels.md "The join" step 4).
func (e *Engine) recoveryWrap(id identity.GroupID, m *mls.Group, history []groups.HistoryKey) ([]byte, error) {
	rec, ok := e.recoveryKeys()
	if !ok {
		return nil, errcode.New("recovery/none", "this user has no recovery principal yet")
	}
	tag, err := groups.RecoveryTag(m, rec.Public.Bytes())
	if err != nil {
		return nil, err
	}
	gi, err := m.GroupInfo(true)
	if err != nil {
		return nil, err
	}
	w, err := groups.SealRecoveryWrap(e.rand, rec.HPKE, [32]byte(id), tag, &groups.RecoveryPlain{GroupInfo: gi, Epoch: m.Epoch(), History: history})
	if err != nil {
		return nil, err
	}
	return w.Encode(), nil
}

// ensureRecoveryWrap sends this user's recovery.wrap of g at its current
// epoch once (step "wrap/<group>"), for a group this device created or
// entered by Welcome: recovery coverage is never behind membership
// (spec/channels.md "The join" step 4; a self-joiner sends its wrap with its
// commit, sendJoin).
func (e *Engine) ensureRecoveryWrap(ctx context.Context, g *group) error {
	id := identity.GroupID(g.rec.ID)
	step := "wrap/" + hexID(id).hex()
	if e.meta.Steps[step] {
		return nil
	}
	wrap, err := e.recoveryWrap(id, g.mls, g.history)
	if err != nil {
		return err
	}
	seq, err := e.sendCT(ctx, g, wire.KindRecoveryWrap, wrap)
	if err != nil {
		return err
	}
	e.ownWrapSent(g, g.mls.Epoch(), seq)
	if err := e.persistGroup(ctx, g); err != nil {
		return err
	}
	e.meta.Steps[step] = true
	return e.persistMeta(ctx)
}

// sendJoin sends an external commit and this user's recovery wrap for the
// epoch it creates in one all-or-nothing batch; it returns the commit's seq.
// noted, when not nil, is handed the signed envelopes before each SEND (a
// self-join persists them to settle a SEND whose answer was lost:
// resendJoin); its error stops the SEND.
func (e *Engine) sendJoin(ctx context.Context, g *group, commit []byte, m *mls.Group, history []groups.HistoryKey, noted func([]wire.Envelope) error) (uint64, error) {
	wrap, err := e.recoveryWrap(identity.GroupID(g.rec.ID), m, history)
	if err != nil {
		return 0, err
	}
	items := []outgoing{{wire.KindMLSCommit, commit}, {wire.KindRecoveryWrap, wrap}}
	seqs, err := e.sendNoting(ctx, g, len(items), func(i int, env *wire.Envelope) error {
		env.Kind, env.CT = items[i].kind, items[i].ct
		return nil
	}, noted)
	if err != nil {
		return 0, err
	}
	e.ownWrapSent(g, m.Epoch(), seqs[1])
	return seqs[0], nil
}

type outgoing struct {
	kind wire.Kind
	ct   []byte
}

// sendBatch sends envelopes of this device in g as one batch (consecutive
// ctrs), accepted all or none; it returns their seqs.
func (e *Engine) sendBatch(ctx context.Context, g *group, items []outgoing) ([]uint64, error) {
	return e.sendBuilt(ctx, g, len(items), func(i int, env *wire.Envelope) error {
		env.Kind, env.CT = items[i].kind, items[i].ct
		return nil
	})
}

// sendBuilt is sendBatch for n envelopes whose kind and ct fill(i, env)
// sets, given the envelope's group, ctr and prev (a content envelope's ct
// binds its ctr); it fills them again when the chain head was stale.
func (e *Engine) sendBuilt(ctx context.Context, g *group, n int, fill func(i int, env *wire.Envelope) error) ([]uint64, error) {
	return e.sendNoting(ctx, g, n, fill, nil)
}

// sendNoting is sendBuilt that hands the envelopes to noted (when not nil)
// before each SEND; noted's error stops it.
func (e *Engine) sendNoting(ctx context.Context, g *group, n int, fill func(i int, env *wire.Envelope) error, noted func([]wire.Envelope) error) ([]uint64, error) {
	build := func() ([]wire.Envelope, error) {
		out := make([]wire.Envelope, 0, n)
		ctr, prev := g.rec.OwnCtr, wire.ID(g.rec.OwnPrev)
		for i := 0; i < n; i++ {
			ctr++
			env := wire.Envelope{Group: wire.ID(g.rec.ID), Ctr: ctr, Prev: prev}
			if err := fill(i, &env); err != nil {
				return nil, err
			}
			wire.SignEnvelope(&env, e.edKey)
			prev = env.Hash()
			out = append(out, env)
		}
		return out, nil
	}
	send := func(envs []wire.Envelope) ([]wire.AckItem, error) {
		if noted != nil {
			if err := noted(envs); err != nil {
				return nil, err
			}
		}
		return e.client.Send(ctx, envs...)
	}
	envs, err := build()
	if err != nil {
		return nil, err
	}
	acks, err := send(envs)
	var we *wire.Error
	if errors.As(err, &we) && (we.Code == wire.CodeChainReplay || we.Code == wire.CodeChainFork || we.Code == wire.CodeChainGap) {
		if err := e.learnOwnHead(ctx, g); err != nil {
			return nil, err
		}
		if envs, err = build(); err != nil {
			return nil, err
		}
		acks, err = send(envs)
	}
	if err != nil {
		return nil, err
	}
	last := envs[len(envs)-1]
	g.rec.OwnCtr, g.rec.OwnPrev = last.Ctr, hexID(last.Hash())
	seqs := make([]uint64, len(acks))
	for i, a := range acks {
		seqs[i] = a.Seq
	}
	if len(seqs) != n {
		return nil, errors.New("engine: the relay acknowledged a different number of envelopes")
	}
	return seqs, nil
}
