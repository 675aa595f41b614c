package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Compact-now with several admins (docs/protocol/retention.md "Compact-now
// with several admins"): the relay drops under a RetentionDestruction only
// when it carries the admin threshold's signatures, so the requesting
// admin proposes it in the roster (retention-destroy, with its own
// signature) and the others approve it there (retention-approve, each
// with its device's signature of the same destruction). Once the threshold
// is met, the approving admin, or any admin member of the channel at its
// next sync, sends the drop_before with every signature.

// destroyWindow is how long a multi-admin destruction stays valid: the
// other admins' approvals must arrive within it.
const destroyWindow = 24 * time.Hour

// proposeDestruction puts a destruction of everything below cp to the
// admins, signed by this device; in a one-admin workspace it is approved
// at once and the caller drops.
func (e *Engine) proposeDestruction(ctx context.Context, g *group, cp trustedCP) (roster.Head, error) {
	if cp.Partial {
		return roster.Head{}, retention.ErrPartial
	}
	now := uint64(e.now().Unix())
	body := &roster.RetentionDestroy{Group: identity.GroupID(g.rec.ID), Checkpoint: cp.Ref, NotBefore: now - 60, NotAfter: now + uint64(destroyWindow/time.Second)}
	d := body.Destruction()
	d.Approve(e.edKey)
	body.Relay = &d.Approvals[0]
	if err := e.appendRoster(ctx, func() (roster.Body, error) { return body, nil }); err != nil {
		return roster.Head{}, err
	}
	return e.roster.Head(), nil
}

// approvalOf is this admin device's signature of what a pending proposal
// names: its relay-visible policy, destruction or resolution.
func (e *Engine) approvalOf(p roster.PendingRetention) *wire.Approval {
	if p.Resolution != nil {
		x := *p.Resolution
		x.Approve(e.edKey)
		return &x.Approvals[len(x.Approvals)-1]
	}
	if p.Destruction != nil {
		d := *p.Destruction
		d.Approve(e.edKey)
		return &d.Approvals[len(d.Approvals)-1]
	}
	return retention.RelayApproval(p.Group, p.ProposedAt, p.TextWindow, p.MediaWindow, e.edKey)
}

// runDestructions sends the drop_before of every destruction the admin
// threshold approved that is due, unexpired and not done yet, in the
// channels this admin device is in. It reports how many it dropped; a
// failure is an alert.
func (e *Engine) runDestructions(ctx context.Context) int {
	if !e.roster.IsAdmin(e.devID) {
		return 0
	}
	n := 0
	now := uint64(e.now().Unix())
	for _, a := range e.roster.ApprovedDestructions() {
		g := e.groups[a.Group]
		if g == nil || g.mls == nil || !g.mls.Active() || now > a.Destruction.NotAfter || now < a.Destruction.NotBefore {
			continue
		}
		cp := g.rec.Retention.trustedByRef(a.Destruction.Checkpoint)
		if cp == nil || cp.Seq <= g.rec.Retention.DroppedBelow {
			continue // not verified here (yet), or already dropped
		}
		if cp.Partial {
			e.raise(ctx, Alert{Code: string(retention.ErrPartial.ErrorCode()), Group: hexID(a.Group).hex(),
				Message: "An approved compact-now names a checkpoint that leaves out expired days; nothing was deleted under it."})
			continue
		}
		seq := cp.Seq
		if _, err := e.dropBelow(ctx, g, *cp, &a.Destruction); err != nil {
			e.raise(ctx, Alert{Code: "retention/steward", Group: hexID(a.Group).hex(),
				Message: fmt.Sprintf("An approved compact-now could not delete history: %v", err)})
			continue
		}
		n++
		// The proposer may have found no room for the standing bundles
		// above the checkpoint before the drop (proposeThenPublish); the
		// drop deleted those below it, so they go above it now, in the
		// space the drop freed.
		if t := g.rec.Retention.trustedAt(seq); t != nil && !t.BundlesAbove {
			if gi, ok := e.roster.Group(a.Group); ok {
				if err := e.publishBundles(ctx, g, &gi.Policy); err != nil {
					e.raise(ctx, Alert{Code: "retention/steward", Group: hexID(a.Group).hex(),
						Message: fmt.Sprintf("After an approved compact-now the channel's join bundles could not be republished: %v", err)})
					continue
				}
				t.BundlesAbove = true
				if err := e.persistGroup(ctx, g); err != nil {
					e.raise(ctx, Alert{Code: "retention/steward", Group: hexID(a.Group).hex(), Message: err.Error()})
				}
			}
		}
	}
	return n
}

// trustedByRef returns the trusted checkpoint with reference ref, or nil.
func (r *retentionRec) trustedByRef(ref wire.EnvelopeRef) *trustedCP {
	for i := range r.Trusted {
		if r.Trusted[i].Ref == ref {
			return &r.Trusted[i]
		}
	}
	return nil
}

func hexHead(h roster.Head) string { return hex.EncodeToString(h[:]) }
