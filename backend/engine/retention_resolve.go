package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"slices"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/roster"
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
	// ErrResolveDisagrees: another admin proposed keeping a key this
	// device does not derive as the legitimate tip.
	ErrResolveDisagrees = errcode.New("retention/resolve_disagrees", "another admin proposed keeping a retention key this device does not derive as the legitimate one, so it will not approve it; compare the two devices' channel membership before resolving")
	// ErrResolveAlreadyApproved: this admin's approval of the pending
	// resolution is already in the roster.
	ErrResolveAlreadyApproved = errcode.New("retention/resolve_already_approved", "you already approved this resolution; another admin must approve it too")
)

// RetentionResolved is the answer of ResolveRetentionChain.
type RetentionResolved struct {
	Channel string `json:"channel"`
	// Epoch is the epoch of the key kept; Discarded counts the keys
	// discarded with the other line(s).
	Epoch     uint64 `json:"epoch"`
	Discarded int    `json:"discarded"`
	// Pending is set in a workspace with several admins while the
	// resolution waits for a second admin's approval: the proposal's id
	// (weald retention approve ID); Approvals and Threshold count them.
	Pending   string `json:"pending,omitempty"`
	Approvals int    `json:"approvals,omitempty"`
	Threshold int    `json:"threshold,omitempty"`
}

// ResolveRetentionChain ends a channel's frozen retention chain: this
// admin device approves a retention.resolution naming the contested tip it
// derives from its own epochs and publishes it; the relay and every member
// then discard the keys off that line and compaction resumes. In a
// workspace with several admins the first admin's resolve proposes the
// resolution in the roster (retention-resolve, with its signature) and
// returns it pending; a second admin's resolve (or retention approve)
// approves it when it derives the same key, and that admin publishes the
// resolution with both signatures; a pending proposal keeping another key
// is left alone (ApproveRetention refuses it with ErrResolveDisagrees).
// It refuses, changing nothing, when the chain is not frozen, this device
// is not an admin, this device derives none of the competing keys, or its
// user already approved the pending resolution of its key
// (ErrResolveAlreadyApproved).
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
	}
	keep := e.legitimateTip(r)
	if keep == nil {
		return out, ErrUnknownLine
	}
	x := wire.RetentionResolution{Group: wire.ID(g.rec.ID), Key: append([]byte(nil), keep.Key...)}
	if e.roster.LiveAdmins() > 1 {
		gathered, pending, err := e.gatherResolution(ctx, g, x)
		if err != nil || gathered == nil {
			pending.Channel = gi.Name
			return pending, err
		}
		x = *gathered
	} else {
		x.Approve(e.edKey)
	}
	return e.publishResolution(ctx, g, x, keep.Epoch, out)
}

// publishResolution sends x, approved by the admin threshold, and checks
// this device applied it.
func (e *Engine) publishResolution(ctx context.Context, g *group, x wire.RetentionResolution, epoch uint64, out RetentionResolved) (RetentionResolved, error) {
	r := &g.rec.Retention
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
		return out, fmt.Errorf("engine: the relay took the resolution of #%s but this device did not apply it; run sync", out.Channel)
	}
	out.Epoch, out.Discarded = epoch, before-liveKeys(&r.Chain)
	return out, nil
}

// gatherResolution is the several-admin path of ResolveRetentionChain for
// the resolution x (without approvals) this device derives: it returns x
// with the admin threshold's approvals when the roster has them (already,
// or after this device's approval), else the pending proposal. An approved
// resolution of the same key that was never published (the publishing
// admin's send failed) is returned for publishing again.
func (e *Engine) gatherResolution(ctx context.Context, g *group, x wire.RetentionResolution) (*wire.RetentionResolution, RetentionResolved, error) {
	gid := identity.GroupID(g.rec.ID)
	for _, a := range e.roster.ApprovedResolutions() {
		if a.Group == gid && bytes.Equal(a.Resolution.Key, x.Key) {
			return &a.Resolution, RetentionResolved{}, nil
		}
	}
	var myUser identity.UserID
	if d, ok := e.roster.Device(e.devID); ok {
		myUser = d.User
	}
	var mine, agree *roster.PendingRetention
	for _, p := range e.roster.PendingRetentions() {
		if p.Resolution == nil || p.Group != gid || !bytes.Equal(p.Resolution.Key, x.Key) || p.Expired(e.now()) {
			continue // another line's proposal (this device will not approve it), or expired
		}
		switch {
		case slices.Contains(p.Approvals, myUser):
			mine = &p
		case agree == nil:
			agree = &p
		}
	}
	switch {
	case agree != nil:
		return e.approveResolution(ctx, *agree)
	case mine != nil:
		return nil, RetentionResolved{}, ErrResolveAlreadyApproved
	}
	// No proposal keeps this device's key: it proposes one, beside any
	// proposal of another line (one admin's wrong proposal must not block
	// the others; either needs two admins' approvals).
	body := &roster.RetentionResolve{Group: gid, Key: slices.Clone(x.Key)}
	signed := body.Resolution()
	signed.Approve(e.edKey)
	body.Relay = &signed.Approvals[0]
	if err := e.appendRoster(ctx, func() (roster.Body, error) { return body, nil }); err != nil {
		return nil, RetentionResolved{}, err
	}
	h := e.roster.Head()
	return e.resolutionState(h, gid, x.Key)
}

// approveResolution appends this admin device's approval of the pending
// resolution p and returns the resolution with every approval once the
// threshold is met.
func (e *Engine) approveResolution(ctx context.Context, p roster.PendingRetention) (*wire.RetentionResolution, RetentionResolved, error) {
	err := e.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.RetentionApprove{Proposal: p.Proposal, Relay: e.approvalOf(p)}, nil
	})
	if err != nil {
		return nil, RetentionResolved{}, err
	}
	return e.resolutionState(p.Proposal, p.Group, p.Resolution.Key)
}

// resolutionState returns the resolution proposed by proposal with its
// approvals when the threshold is met, else the pending proposal.
func (e *Engine) resolutionState(proposal roster.Head, gid identity.GroupID, key []byte) (*wire.RetentionResolution, RetentionResolved, error) {
	for _, a := range e.roster.ApprovedResolutions() {
		if a.Proposal == proposal {
			return &a.Resolution, RetentionResolved{}, nil
		}
	}
	for _, p := range e.roster.PendingRetentions() {
		if p.Proposal == proposal {
			return nil, RetentionResolved{Pending: hex.EncodeToString(proposal[:]), Approvals: len(p.Approvals), Threshold: p.Threshold}, nil
		}
	}
	return nil, RetentionResolved{}, fmt.Errorf("engine: the resolution of group %s is neither pending nor approved after this device's operation", hexID(gid).hex())
}

// checkResolution refuses, with a coded error, this admin device's
// approval of the pending resolution p unless the channel's chain is
// frozen here and the key p keeps is the contested tip this device
// derives. It returns the group and the epoch of the key.
func (e *Engine) checkResolution(ctx context.Context, p roster.PendingRetention) (*group, uint64, error) {
	g := e.groups[p.Group]
	if g == nil || g.mls == nil || !g.mls.Active() {
		return nil, 0, ErrUnknownLine
	}
	if err := e.catchUp(ctx, g); err != nil {
		return nil, 0, err
	}
	r := &g.rec.Retention
	if !r.Chain.Frozen {
		return nil, 0, ErrChainNotFrozen
	}
	keep := e.legitimateTip(r)
	switch {
	case keep == nil:
		return nil, 0, ErrUnknownLine
	case !bytes.Equal(keep.Key, p.Resolution.Key):
		return nil, 0, ErrResolveDisagrees
	}
	return g, keep.Epoch, nil
}

// approvedResolution finishes ApproveRetention for a resolution proposal:
// it checks this device derives the key kept, approves, and publishes the
// resolution once the threshold is met.
func (e *Engine) approvedResolution(ctx context.Context, p roster.PendingRetention, out RetentionChange) (RetentionChange, error) {
	g, epoch, err := e.checkResolution(ctx, p)
	if err != nil {
		return out, err
	}
	x, pending, err := e.approveResolution(ctx, p)
	if err != nil {
		return out, err
	}
	if x == nil {
		out.Note = fmt.Sprintf("Approved; %d of %d admins so far.", pending.Approvals, pending.Threshold)
		return out, nil
	}
	res, err := e.publishResolution(ctx, g, *x, epoch, RetentionResolved{Channel: out.Channel})
	if err != nil {
		return out, err
	}
	out.Active, out.Published = true, true
	out.Note = fmt.Sprintf("Resolved: kept the key of epoch %d, discarded %d; compaction can resume.", res.Epoch, res.Discarded)
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
