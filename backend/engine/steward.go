package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"weald/backend/retention"
	"weald/backend/roster"
)

// The steward (spec/lifecycle.md "Dropping"; docs/protocol/retention.md
// "Dropping and the steward"): per group, the member with the lowest leaf
// index writes a checkpoint every 512 changes or 7 days, whichever first,
// and the matching drop_before only for material older than the
// already-authorized policy; a member stands in when the steward is away.

// isSteward reports whether this device is g's steward: the member with
// the lowest leaf index (every member computes the same one), so one
// device checkpoints each group rather than all of them.
func (e *Engine) isSteward(g *group) bool {
	if g.mls == nil || !g.mls.Active() {
		return false
	}
	own := g.mls.OwnLeaf()
	for _, m := range g.mls.Members() {
		if m.Index < own {
			return false
		}
	}
	return true
}

// steward runs the steward's duties for every group this device stewards
// (spec/lifecycle.md "Dropping"): a checkpoint every 512 changes or 7
// days, whichever first, and the matching drop_before only for material
// older than the already-authorized policy. A failure is raised as an
// alert, never a failed sync.
func (e *Engine) steward(ctx context.Context) {
	near := e.checkBudget(ctx)
	for _, gi := range e.roster.Groups() {
		g := e.groups[gi.Policy.Group]
		if gi.Deleted || g == nil || g.mls == nil || !g.mls.Active() {
			continue
		}
		r := &g.rec.Retention
		steward := e.isSteward(g)
		// Ahead of the ceiling (spec/lifecycle.md "The workspace byte
		// budget"): once usage has crossed 80 %, each group with changes
		// since its last checkpoint gets one now, while the relay still
		// accepts the envelopes, so compact-now works at the ceiling.
		ahead := steward && near && r.Changes > 0 && (len(r.Trusted) == 0 || r.Trusted[len(r.Trusted)-1].At.Before(e.meta.NearBudgetSince))
		due := ahead || steward && retention.CheckpointDue(r.Changes, r.Since, e.now())
		// A quiet channel under a text window: a checkpoint leaving out
		// the days expired since its newest one, and a policy drop once a
		// checkpoint is a window old, with no new message needed.
		due = due || steward && r.Changes == 0 && expiryDue(g, &gi, e.now())
		if !due && steward && compactable(&gi) && e.now().Sub(r.DropTried) >= time.Hour && dropDue(r, &gi, e.now()) {
			r.DropTried = e.now()
			_, _ = e.policyDrop(ctx, g, &gi, CompactReport{})
			_ = e.persistGroup(ctx, g)
		}
		// A stand-in: the steward has been away a whole cadence past due,
		// and this member tries once a cadence (it may not hold the full
		// history, or the chain head's key).
		standIn := !steward && retention.StandInDue(r.Changes, r.Since, e.now()) && e.now().Sub(r.StandInTried) >= retention.CheckpointAge
		if !due && !standIn {
			continue
		}
		if standIn {
			r.StandInTried = e.now()
			_ = e.persistGroup(ctx, g)
		}
		// A checkpoint written ahead of the ceiling is complete, since
		// compact-now at the ceiling deletes below it.
		if _, err := e.writeCheckpoint(ctx, g, &gi, !ahead); err != nil {
			// A steward that joined a closed channel late holds no key of
			// its first epochs: not a fault, and nothing it can repair;
			// nor is a stand-in's missing key of the chain's head.
			quiet := errors.Is(err, retention.ErrChainFrozen) || errors.Is(err, ErrContested) || errors.Is(err, ErrNotFullHistory) || standIn && errors.Is(err, retention.ErrNoKey)
			if !quiet {
				e.raise(ctx, Alert{Code: "retention/steward", Group: hexID(gi.Policy.Group).hex(),
					Message: fmt.Sprintf("The checkpoint of %s could not be written: %v", gi.Name, err)})
			}
			continue
		}
		if !compactable(&gi) {
			continue
		}
		if ahead || (gi.Retention != nil && gi.Retention.TextWindow > 0) {
			// The standing bundles above the checkpoint: a drop below it
			// leaves joiners what they need.
			if err := e.publishBundles(ctx, g, &gi.Policy); err != nil {
				continue
			}
			r.Trusted[len(r.Trusted)-1].BundlesAbove = true
			_ = e.persistGroup(ctx, g)
		}
		if gi.Retention != nil && gi.Retention.TextWindow > 0 {
			_, _ = e.policyDrop(ctx, g, &gi, CompactReport{})
		}
	}
}

// expiryDue reports whether g's newest trusted checkpoint holds a chat day
// that a checkpoint written now would leave out under gi's text window
// (retention.ExpiryCheckpointDue).
func expiryDue(g *group, gi *roster.GroupInfo, now time.Time) bool {
	r := &g.rec.Retention
	pol := retention.Effective(*gi)
	if len(r.Trusted) == 0 || !pol.Active || pol.TextWindow <= 0 {
		return false
	}
	last := &r.Trusted[len(r.Trusted)-1]
	if c := &g.newestDays; c.days == nil || c.ref != last.Ref {
		m, err := retention.DecodeManifest(last.Manifest)
		if err != nil {
			return false
		}
		// Never nil once read: a manifest without chat days is cached too.
		c.ref, c.days = last.Ref, append([]uint32{}, m.ChatDays()...)
	}
	return retention.ExpiryCheckpointDue(pol, g.newestDays.days, last.At, now)
}

// dropDue reports whether a policy drop below one of g's trusted
// checkpoints is due under gi's text window.
func dropDue(r *retentionRec, gi *roster.GroupInfo, now time.Time) bool {
	return r.Policy != nil && dueForDrop(r, retention.Effective(*gi), now) != nil
}

// dueForDrop is the newest trusted checkpoint above the group's drop that
// is older than pol's text window, or nil.
func dueForDrop(r *retentionRec, pol retention.Policy, now time.Time) *trustedCP {
	var due *trustedCP
	for i := range r.Trusted {
		if t := &r.Trusted[i]; t.Seq > r.DroppedBelow && retention.DropDue(pol, t.At, now) {
			due = t
		}
	}
	return due
}

// checkBudget reads the relay's STATS at most hourly on a device that is
// an admin (storage/near_budget) or stewards a group, and reports whether
// the workspace is at 80 % of its byte budget or more, as last read.
func (e *Engine) checkBudget(ctx context.Context) bool {
	if e.now().Sub(e.storageChecked) >= time.Hour && (e.roster.IsAdmin(e.devID) || e.stewardsAny()) {
		e.storageChecked = e.now()
		_, _ = e.storage(ctx) // raises storage/near_budget at 80 %; sets NearBudgetSince
	}
	return !e.meta.NearBudgetSince.IsZero()
}

func (e *Engine) stewardsAny() bool {
	for _, g := range e.groups {
		if e.isSteward(g) {
			return true
		}
	}
	return false
}
