// Package hostilerelay is a relay that lies, for regression tests written
// from the attacker's side (issue 11, docs/security.md): a real relay
// (relay.Service over SQLite and the WebSocket server, on 127.0.0.1) whose
// backend is wrapped so a test can substitute key packages on claim, inject,
// drop or reorder roster operations on fetch, and withhold envelopes from
// fetches (covering them with deletions it never made), erase an envelope
// from a log and number the rest without a hole, or substitute another
// envelope for one. Everything the wrapper does not intercept is the honest
// relay.
//
// The relay operator is untrusted for content and membership (README, the
// threat model of docs/security.md section 0): whatever this wrapper makes
// a client believe must never let the relay read a group or change who is
// in it.
package hostilerelay

import (
	"context"
	"sync"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/wire"
)

// Relay is a running hostile relay. The zero behaviour is honest; each
// method turns on one lie.
type Relay struct {
	// URL is the WebSocket endpoint (ws://127.0.0.1:port/v1/ws).
	URL string
	// Service is the honest relay underneath.
	Service *relay.Service

	mu       sync.Mutex
	kps      map[wire.ID][][]byte // owner → key packages served on claim, first first
	claims   map[wire.ID]int      // owner → substituted key packages served
	roster   func(ops *wire.RosterOps) *wire.RosterOps
	withhold func(group wire.ID, env *wire.SeqEnvelope) bool
	cover    func(ans *wire.Envelopes)
	erased   map[wire.ID]uint64 // group → the seq served as if never accepted
	subst    func(group wire.ID, env *wire.SeqEnvelope)
}

// Start runs a hostile relay until the test ends.
func Start(t testing.TB) *Relay {
	t.Helper()
	return StartWith(t, relay.Config{})
}

// StartWith is Start with the honest relay underneath configured by cfg
// (its clock, its limits).
func StartWith(t testing.TB, cfg relay.Config) *Relay {
	t.Helper()
	r := &Relay{kps: map[wire.ID][][]byte{}, claims: map[wire.ID]int{}, erased: map[wire.ID]uint64{}}
	honest := relaytest.StartWrapped(t, cfg, func(svc *relay.Service) server.Backend {
		return &backend{Backend: svc, r: r}
	})
	r.URL, r.Service = honest.URL, honest.Service
	return r
}

// Provision registers a workspace with its genesis key, as an operator
// does (the signature of engine.Options.Provision).
func (r *Relay) Provision(ctx context.Context, _ string, ws wire.ID, genesisKey []byte) error {
	return r.Service.ProvisionWorkspace(ctx, ws, genesisKey)
}

// SubstituteKeyPackage makes the next claim of owner's key packages return
// kp (an MLSMessage(KeyPackage) of the relay's choosing) instead of one the
// owner published; several calls queue several.
func (r *Relay) SubstituteKeyPackage(owner wire.ID, kp []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kps[owner] = append(r.kps[owner], append([]byte(nil), kp...))
}

// Substituted reports how many substituted key packages of owner were
// handed out by claims.
func (r *Relay) Substituted(owner wire.ID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claims[owner]
}

// RewriteRoster makes every roster fetch return f(ops) instead of ops: f
// may inject, drop or reorder operations (nil: honest again).
func (r *Relay) RewriteRoster(f func(ops *wire.RosterOps) *wire.RosterOps) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.roster = f
}

// Withhold makes fetches leave out every envelope for which f reports true
// (nil: honest again). The envelopes stay stored; a later fetch after
// Withhold(nil) returns them.
func (r *Relay) Withhold(f func(group wire.ID, env *wire.SeqEnvelope) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.withhold = f
}

// Cover makes every fetch answer pass through f after withholding: f may
// claim deletions (tombstones, instructions, a drop barrier) the relay
// never made, to explain what it withholds (nil: honest again).
func (r *Relay) Cover(f func(ans *wire.Envelopes)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cover = f
}

// Erase makes every fetch of group serve its log as if the envelope at seq
// had never been accepted: left out, and every later envelope numbered one
// lower, so no seq is missing (a relay that dropped the envelope and
// re-sequenced its log). One seq per group; 0 is honest again. Pushes are
// not rewritten: a test reads by FETCH (Sync).
func (r *Relay) Erase(group wire.ID, seq uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq == 0 {
		delete(r.erased, group)
	} else {
		r.erased[group] = seq
	}
}

// Substitute makes fetches pass every envelope through f, which may
// replace it (another envelope at the same seq; nil: honest again).
func (r *Relay) Substitute(f func(group wire.ID, env *wire.SeqEnvelope)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subst = f
}

// backend is the relay's server.Backend with the lies applied.
type backend struct {
	server.Backend
	r *Relay
}

func (b *backend) KeyPackageClaim(ctx context.Context, ws wire.ID, p server.Principal, owner wire.ID) (*wire.KeyPackageClaimed, error) {
	b.r.mu.Lock()
	if q := b.r.kps[owner]; len(q) > 0 {
		kp := q[0]
		b.r.kps[owner] = q[1:]
		b.r.claims[owner]++
		b.r.mu.Unlock()
		return &wire.KeyPackageClaimed{Owner: owner, KeyPackage: kp}, nil
	}
	b.r.mu.Unlock()
	return b.Backend.KeyPackageClaim(ctx, ws, p, owner)
}

func (b *backend) RosterFetch(ctx context.Context, ws wire.ID, afterIndex uint64, limit uint32) (*wire.RosterOps, error) {
	ops, err := b.Backend.RosterFetch(ctx, ws, afterIndex, limit)
	if err != nil {
		return nil, err
	}
	b.r.mu.Lock()
	f := b.r.roster
	b.r.mu.Unlock()
	if f != nil {
		ops = f(ops)
	}
	return ops, nil
}

func (b *backend) Fetch(ctx context.Context, ws, group wire.ID, afterSeq uint64, limit uint32) (*wire.Envelopes, error) {
	b.r.mu.Lock()
	erased := b.r.erased[group]
	b.r.mu.Unlock()
	if erased != 0 && afterSeq >= erased {
		afterSeq++ // the client's seq, one lower than the relay's
	}
	envs, err := b.Backend.Fetch(ctx, ws, group, afterSeq, limit)
	if err != nil || envs == nil {
		return envs, err
	}
	if erased != 0 {
		eraseFrom(envs, erased)
	}
	envs.Envelopes = b.r.filter(group, envs.Envelopes)
	b.r.mu.Lock()
	cover := b.r.cover
	b.r.mu.Unlock()
	if cover != nil {
		cover(envs)
	}
	return envs, nil
}

func (b *backend) FetchLatest(ctx context.Context, ws, group wire.ID, kinds []wire.Kind) (*wire.Latest, error) {
	l, err := b.Backend.FetchLatest(ctx, ws, group, kinds)
	if err != nil || l == nil {
		return l, err
	}
	b.r.mu.Lock()
	erased := b.r.erased[group]
	b.r.mu.Unlock()
	if erased != 0 {
		kept := l.Envelopes[:0:0]
		for _, se := range l.Envelopes {
			if se.Seq != erased {
				se.Seq = lower(se.Seq, erased)
				kept = append(kept, se)
			}
		}
		l.Envelopes, l.HeadSeq = kept, lower(l.HeadSeq, erased)
	}
	l.Envelopes = b.r.filter(group, l.Envelopes)
	return l, nil
}

// lower is seq as served once the envelope at erased is gone.
func lower(seq, erased uint64) uint64 {
	if seq >= erased && seq > 0 {
		return seq - 1
	}
	return seq
}

// eraseFrom rewrites a fetch answer as if the envelope at erased had never
// been accepted.
func eraseFrom(ans *wire.Envelopes, erased uint64) {
	kept := ans.Envelopes[:0:0]
	for _, se := range ans.Envelopes {
		if se.Seq != erased {
			se.Seq = lower(se.Seq, erased)
			kept = append(kept, se)
		}
	}
	ans.Envelopes = kept
	ans.HeadSeq, ans.Through = lower(ans.HeadSeq, erased), lower(ans.Through, erased)
	if ans.DroppedBelow > erased {
		ans.DroppedBelow--
	}
	for i := range ans.Deleted {
		ans.Deleted[i].Seq = lower(ans.Deleted[i].Seq, erased)
	}
}

func (r *Relay) filter(group wire.ID, envs []wire.SeqEnvelope) []wire.SeqEnvelope {
	r.mu.Lock()
	f, sub := r.withhold, r.subst
	r.mu.Unlock()
	if f == nil && sub == nil {
		return envs
	}
	kept := envs[:0:0]
	for i := range envs {
		if f == nil || !f(group, &envs[i]) {
			kept = append(kept, envs[i])
		}
	}
	if sub != nil {
		for i := range kept {
			sub(group, &kept[i])
		}
	}
	return kept
}
