package engine

import (
	"bytes"
	"context"
	"fmt"

	"weald/backend/errcode"
	"weald/backend/retention"
	"weald/backend/wire"
)

// Resolving a frozen retention chain (docs/protocol/retention.md
// "Resolving a frozen chain"; design/gaps.md "Retention policy": two
// successor keys for one epoch freeze the chain "until a member resolves
// it"). The key kept is the contested tip this device derives from an
// epoch it held: every member of an epoch derives that epoch's key from the
// MLS exporter, so the legitimate line is the one the members' epochs
// extend, and a key a member fabricated (before being removed, say) is
// derivable by nobody else.

var (
	// ErrChainNotFrozen: there is nothing to resolve.
	ErrChainNotFrozen = errcode.New("retention/not_frozen", "this channel's retention chain is not frozen, so there is nothing to resolve")
	// ErrUnknownLine: none of the competing keys is one this device
	// derives, so it cannot tell which line is legitimate.
	ErrUnknownLine = errcode.New("retention/unknown_line", "this device derives none of the competing retention keys, so it cannot tell which is legitimate; an admin who was in the channel when they were published must resolve it")
	// ErrResolveSeveralAdmins: a resolution needs two admins' approvals in
	// a workspace with several, and this version cannot gather a second.
	ErrResolveSeveralAdmins = errcode.New("retention/resolve_needs_second_admin", "this workspace has several admins, so a resolution needs two admins' approvals, which this version cannot gather yet")
)

// RetentionResolved is the answer of ResolveRetentionChain.
type RetentionResolved struct {
	Channel string `json:"channel"`
	// Epoch is the epoch of the key kept; Discarded counts the keys
	// discarded with the other line(s).
	Epoch     uint64 `json:"epoch"`
	Discarded int    `json:"discarded"`
}

// ResolveRetentionChain ends a channel's frozen retention chain: this
// admin device approves a retention.resolution naming the contested tip it
// derives from its own epochs and publishes it; the relay and every member
// then discard the keys off that line and compaction resumes. It refuses,
// changing nothing, when the chain is not frozen, this device is not an
// admin, the workspace has several admins (ErrResolveSeveralAdmins), or
// this device derives none of the competing keys.
func (e *Engine) ResolveRetentionChain(ctx context.Context, channel string) (RetentionResolved, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return RetentionResolved{}, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return RetentionResolved{}, err
	}
	out := RetentionResolved{Channel: gi.Name}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return out, ErrNotMember
	}
	if err := e.catchUp(ctx, g); err != nil {
		return out, err
	}
	r := &g.rec.Retention
	switch {
	case !r.Chain.Frozen:
		return out, ErrChainNotFrozen
	case !e.roster.IsAdmin(e.devID):
		return out, retention.ErrNotAdmin
	case e.roster.LiveAdmins() > 1:
		return out, ErrResolveSeveralAdmins
	}
	keep := e.legitimateTip(r)
	if keep == nil {
		return out, ErrUnknownLine
	}
	x := wire.RetentionResolution{Group: wire.ID(g.rec.ID), Key: append([]byte(nil), keep.Key...)}
	x.Approve(e.edKey)
	if _, err := e.sendCT(ctx, g, wire.KindRetentionResolution, x.Encode()); err != nil {
		return out, err
	}
	before := liveKeys(&r.Chain)
	if err := e.catchUp(ctx, g); err != nil {
		return out, err
	}
	if r.Chain.Frozen {
		// The relay accepted it, so the members apply it; this client did
		// not (its roster's admins disagree with the relay's access set).
		return out, fmt.Errorf("engine: the relay took the resolution of #%s but this device did not apply it; run sync", gi.Name)
	}
	out.Epoch, out.Discarded = keep.Epoch, before-liveKeys(&r.Chain)
	return out, nil
}

// legitimateTip returns the contested tip of r's frozen chain whose key
// this device derives from one of its epochs' seeds (the newest such
// epoch when several do: each is a key the members of its epoch hold), or
// nil when it derives none.
func (e *Engine) legitimateTip(r *retentionRec) *retention.ChainKey {
	derived := map[string]bool{}
	for _, seed := range r.Seeds {
		if k, err := retention.Key(seed); err == nil {
			derived[string(retention.Pub(k))] = true
		}
	}
	var best *retention.ChainKey
	for i := range r.Chain.Keys {
		k := &r.Chain.Keys[i]
		if k.Dead || !r.Chain.IsTip(k.Key) || !derived[string(k.Key)] {
			continue
		}
		if best == nil || k.Epoch > best.Epoch || k.Epoch == best.Epoch && bytes.Compare(k.Key, best.Key) < 0 {
			best = k
		}
	}
	return best
}

func liveKeys(c *retention.Chain) int {
	n := 0
	for _, k := range c.Keys {
		if !k.Dead {
			n++
		}
	}
	return n
}
