package engine

import (
	"context"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/wire"
)

// Author chains (spec/lifecycle.md "Checkpoints": "Clients verify chain
// continuity above the newest checkpoint they trust, and verify the
// checkpoint's signature rather than replaying beneath it";
// docs/protocol/retention.md "Author chains"). The relay accepts an
// envelope only as the next of its author's chain (ctr one more, prev the
// hash of the author's previous envelope), but it numbers the log itself:
// a relay that leaves an envelope out and numbers the rest without a hole,
// or passes it off as a deleted wrap, leaves no seq missing. Its author's
// next envelope still names it, so every member checks each chain it reads.

// Alert codes of author chains.
const (
	AlertChainGap  errcode.Code = "relay/chain_gap"
	AlertChainFork errcode.Code = "relay/chain_fork"
)

// authorChains is what this client read of each author's chain in a group.
type authorChains struct {
	// Tracked: Heads covers every envelope this client read of the group
	// since it held the group (false in state from before chains were
	// tracked: then tracking starts at the next envelope, as Mid).
	Tracked bool `json:"tracked,omitempty"`
	// Mid: this client started reading the group's log past its start (a
	// closed group joined at a later seq, a Welcome), so an author it meets
	// for the first time may be anywhere in its chain. Otherwise an author
	// met for the first time, above any drop, starts at ctr 1.
	Mid bool `json:"mid,omitempty"`
	// Heads: per author (hex id), the last envelope of its chain read.
	Heads map[string]chainHead `json:"heads,omitempty"`
}

type chainHead struct {
	Ctr  uint64 `json:"ctr"`
	Hash hexID  `json:"hash"`
}

// startChains marks g's chains as read from the log's start (a group this
// client creates or joins from seq 0).
func (g *group) startChains() { g.rec.Chains.Tracked = true }

// chainsFromHere marks g's chains as read from here on, in the middle of
// its log: what was read of them before (a partial read, an earlier
// membership) no longer counts.
func (g *group) chainsFromHere() {
	g.rec.Chains = authorChains{Tracked: true, Mid: true}
}

// checkChain checks env, verified under its author's key and met at se.Seq
// of g's log, against what this client read of its author's chain, raises
// relay/chain_gap or relay/chain_fork when it does not continue it, and
// moves the author's head. Beneath a drop barrier (seq below the barrier
// this client read across) the holes are the drop's: heads only move
// forward there, and the checkpoint at the barrier anchors the chains
// (anchorChains). This device's own chain is its own writing and not
// checked.
func (e *Engine) checkChain(ctx context.Context, g *group, se *wire.SeqEnvelope) {
	env := &se.Envelope
	if env.Author == wire.ID(e.devID) {
		return
	}
	c := &g.rec.Chains
	if !c.Tracked {
		g.chainsFromHere()
		c = &g.rec.Chains
	}
	if c.Heads == nil {
		c.Heads = map[string]chainHead{}
	}
	key := hexID(env.Author).hex()
	h, known := c.Heads[key]
	next := chainHead{Ctr: env.Ctr, Hash: hexID(env.Hash())}
	group := wire.ID(g.rec.ID)
	if se.Seq < e.barriers[group] {
		if !known || env.Ctr > h.Ctr {
			c.Heads[key] = next
		}
		return
	}
	switch {
	case !known && c.Mid:
	case !known && (env.Ctr != 1 || env.Prev != wire.ID{}):
		e.alertChainGap(ctx, g, se, 1)
	case !known:
	case env.Ctr == h.Ctr+1 && env.Prev == wire.ID(h.Hash):
	case env.Ctr > h.Ctr+1:
		e.alertChainGap(ctx, g, se, h.Ctr+1)
	default: // a second envelope at a ctr read already, or one not following it
		e.alertChainFork(ctx, g, se)
	}
	if !known || env.Ctr > h.Ctr {
		c.Heads[key] = next
	}
}

// alertChainFork raises relay/chain_fork at env: it does not follow the
// envelope of its author's chain read before it.
func (e *Engine) alertChainFork(ctx context.Context, g *group, se *wire.SeqEnvelope) {
	env := &se.Envelope
	e.raise(ctx, Alert{Code: string(AlertChainFork), Group: hexID(g.rec.ID).hex(), Actor: identity.DeviceID(env.Author).String(),
		Message: fmt.Sprintf("The chain of %s in this channel forks at its envelope %d (seq %d): the relay served an envelope there that does not follow the one read before. Either that device signed two different envelopes, or the relay shows members different histories.",
			identity.DeviceID(env.Author).ShortString(), env.Ctr, se.Seq)})
}

// checkAcrossDrop checks, for a reader beneath the drop whose checkpoint
// has barrier, what the relay kept of each barrier author's chain below
// it. A drop deletes an author's envelopes only up to its barrier entry
// (retention.md "What a drop deletes"), so those past the entry that
// reached the relay before the checkpoint are all still in log (the group's
// log below the checkpoint) and must continue the chain from the entry: a
// relay that deleted one of them and pointed at the drop would otherwise
// go unnoticed beneath the barrier, where missing seqs are the drop's.
// Only envelopes verified under their author's roster key count.
func (e *Engine) checkAcrossDrop(ctx context.Context, g *group, log []wire.SeqEnvelope, barrier []wire.EnvelopeRef) {
	entry := make(map[wire.ID]uint64, len(barrier))
	last := make(map[wire.ID]wire.EnvelopeRef, len(barrier)) // per author: the last link checked
	for _, b := range barrier {
		if b.Author != wire.ID(e.devID) {
			entry[b.Author], last[b.Author] = b.Ctr, b
		}
	}
	for i := range log {
		se := &log[i]
		env := &se.Envelope
		if at, ok := entry[env.Author]; !ok || env.Ctr <= at {
			continue // no entry, or covered (a kept kind or an anchor)
		}
		if pub, ok := e.devicePub(env.Author); !ok || wire.VerifyEnvelope(env, pub) != nil {
			continue
		}
		l := last[env.Author]
		switch {
		case env.Ctr == l.Ctr+1 && env.Prev == l.Hash:
		case env.Ctr > l.Ctr+1:
			e.alertChainGap(ctx, g, se, l.Ctr+1)
		default:
			e.alertChainFork(ctx, g, se)
		}
		last[env.Author] = wire.EnvelopeRef{Author: env.Author, Ctr: env.Ctr, Hash: env.Hash()}
	}
}

// alertChainGap raises relay/chain_gap: envelopes from ctr from up to the
// one before env are missing from its author's chain.
func (e *Engine) alertChainGap(ctx context.Context, g *group, se *wire.SeqEnvelope, from uint64) {
	env := &se.Envelope
	missing := fmt.Sprintf("envelope %d", from)
	if env.Ctr-1 > from {
		missing = fmt.Sprintf("envelopes %d to %d", from, env.Ctr-1)
	}
	e.raise(ctx, Alert{Code: string(AlertChainGap), Group: hexID(g.rec.ID).hex(), Actor: identity.DeviceID(env.Author).String(),
		Message: fmt.Sprintf("The relay left %s of the chain of %s out of this channel's log: its envelope %d (seq %d) comes next, and no deletion this device can check explains the gap. What was left out is not read.",
			missing, identity.DeviceID(env.Author).ShortString(), env.Ctr, se.Seq)})
}

// anchorChains moves the heads of g's chains up to the barrier of a
// checkpoint this client trusts without replaying beneath it (it read
// across the drop at it): the envelopes between an author's last one read
// and its barrier entry went with the drop, and its chain continues from
// the barrier.
func (g *group) anchorChains(barrier []wire.EnvelopeRef) {
	c := &g.rec.Chains
	if c.Heads == nil {
		c.Heads = map[string]chainHead{}
	}
	for _, b := range barrier {
		key := hexID(b.Author).hex()
		if h, ok := c.Heads[key]; !ok || b.Ctr > h.Ctr {
			c.Heads[key] = chainHead{Ctr: b.Ctr, Hash: hexID(b.Hash)}
		}
	}
}
