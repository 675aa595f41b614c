package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Multi-admin retention policies (docs/protocol/retention.md
// "RetentionPolicy"): a policy is roster state authorized by the admin
// threshold, and the relay binds drops only to a relay-visible policy
// carrying that many admins' signatures. Each admin's retention-policy or
// retention-approve operation carries its device's signature of the
// relay-visible policy, so the proposal itself is where the signatures are
// collected; once the threshold is met any admin member of the channel
// publishes the policy with all of them.

// PendingRetention is a retention proposal waiting for admins' approvals,
// as the CLI and the app list it.
type PendingRetention struct {
	ID          string        `json:"id"` // the proposal's roster operation, hex
	Channel     string        `json:"channel"`
	TextWindow  time.Duration `json:"text_window_ns"`  // 0 = unlimited
	MediaWindow time.Duration `json:"media_window_ns"` // 0 = unlimited
	Proposer    string        `json:"proposer"`
	ProposedAt  time.Time     `json:"proposed_at"`
	Approvals   []string      `json:"approved_by"`
	Threshold   int           `json:"threshold"`
	// Approvable: this device is an admin whose user has not approved yet.
	Approvable bool `json:"approvable"`
	// Destroy: a compact-now proposal (the windows are zero): delete the
	// channel's history on the relay below the checkpoint of CheckpointAt
	// (zero when this device has not verified that checkpoint), if
	// approved before Expires. A resolution (Resolve) expires too (a day
	// after it was proposed); a policy never (Expires zero).
	Destroy      bool      `json:"destroy,omitempty"`
	CheckpointAt time.Time `json:"checkpoint_at,omitempty"`
	Expires      time.Time `json:"expires,omitempty"`
	// Resolve: the resolution of the channel's frozen retention chain
	// (the windows are zero), keeping the key of epoch ResolveEpoch
	// (zero when this device's chain does not hold that key). Approvable
	// is then also false when this device does not derive that key as
	// the legitimate one (its approval would be refused).
	Resolve      bool   `json:"resolve,omitempty"`
	ResolveEpoch uint64 `json:"resolve_epoch,omitempty"`
}

// ErrNoProposal: the named retention proposal is not waiting for approval.
var ErrNoProposal = errcode.New("retention/no_proposal", "no retention change with that id is waiting for approval")

// PendingRetentions lists the retention proposals not yet in force.
func (e *Engine) PendingRetentions() []PendingRetention {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []PendingRetention
	me := e.roster.IsAdmin(e.devID)
	var myUser identity.UserID
	if d, ok := e.roster.Device(e.devID); ok {
		myUser = d.User
	}
	for _, p := range e.roster.PendingRetentions() {
		gi, ok := e.roster.Group(p.Group)
		if !ok {
			continue
		}
		if p.Expired(e.now()) {
			continue // a destruction could no longer delete anything; a resolution waited its day
		}
		x := PendingRetention{ID: hex.EncodeToString(p.Proposal[:]), Channel: gi.Name, TextWindow: p.TextWindow,
			MediaWindow: p.MediaWindow, Proposer: e.userName(p.Proposer), ProposedAt: p.ProposedAt,
			Threshold: p.Threshold, Approvable: me, Expires: p.Expires}
		if d := p.Destruction; d != nil {
			x.Destroy = true
			if g := e.groups[p.Group]; g != nil {
				if cp := g.rec.Retention.trustedByRef(d.Checkpoint); cp != nil {
					x.CheckpointAt = cp.At
				}
			}
		}
		if p.Resolution != nil {
			x.Resolve = true
			g := e.groups[p.Group]
			if g != nil && !g.rec.Retention.Chain.Frozen {
				continue // resolved (by another proposal), or not frozen here
			}
			keep := (*retention.ChainKey)(nil)
			if g != nil {
				keep = e.legitimateTip(&g.rec.Retention)
				for _, k := range g.rec.Retention.Chain.Keys {
					if bytes.Equal(k.Key, p.Resolution.Key) {
						x.ResolveEpoch = k.Epoch
					}
				}
			}
			if keep == nil || !bytes.Equal(keep.Key, p.Resolution.Key) {
				x.Approvable = false
			}
		}
		for _, u := range p.Approvals {
			x.Approvals = append(x.Approvals, e.userName(u))
			if u == myUser {
				x.Approvable = false
			}
		}
		out = append(out, x)
	}
	return out
}

// ApproveRetention approves a pending retention proposal (id: its hex id,
// a unique prefix of at least 8 characters, or the name of a channel with
// exactly one pending proposal) with this admin device's
// signature of the relay-visible policy. When that meets the threshold the
// policy is in force and, if this device is in the channel, published to
// the relay at once (else by an admin member at its next sync).
func (e *Engine) ApproveRetention(ctx context.Context, id string) (RetentionChange, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return RetentionChange{}, err
	}
	if !e.roster.IsAdmin(e.devID) {
		return RetentionChange{}, retention.ErrNotAdmin
	}
	p, err := e.findProposal(id)
	if err != nil {
		return RetentionChange{}, err
	}
	gi, _ := e.roster.Group(p.Group)
	out := RetentionChange{Channel: gi.Name, Applied: true}
	if p.Expired(e.now()) {
		return out, ErrNoProposal
	}
	if p.Resolution != nil {
		return e.approvedResolution(ctx, p, out)
	}
	if d := p.Destruction; d != nil {
		// A destruction may name only a complete checkpoint: one that
		// leaves out expired days is a policy drop's, a window later.
		if g := e.groups[p.Group]; g != nil {
			if cp := g.rec.Retention.trustedByRef(d.Checkpoint); cp != nil && cp.Partial {
				return out, retention.ErrPartial
			}
		}
	}
	err = e.appendRoster(ctx, func() (roster.Body, error) {
		return &roster.RetentionApprove{Proposal: p.Proposal, Relay: e.approvalOf(p)}, nil
	})
	if err != nil {
		return out, err
	}
	if p.Destruction != nil {
		return e.approvedDestruction(ctx, p, out)
	}
	gi, _ = e.roster.Group(p.Group)
	out.Active = gi.Retention != nil && gi.Retention.Proposal == p.Proposal
	if !out.Active {
		out.Note = fmt.Sprintf("Approved; %d of %d admins so far.", len(p.Approvals)+1, p.Threshold)
		return out, nil
	}
	out.Published, out.Note, err = e.publishPolicy(ctx, &gi)
	return out, err
}

func (e *Engine) findProposal(id string) (roster.PendingRetention, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	gi, named := e.resolveChannel(id)
	var found []roster.PendingRetention
	for _, p := range e.roster.PendingRetentions() {
		if (len(id) >= 8 && strings.HasPrefix(hex.EncodeToString(p.Proposal[:]), id)) || (named == nil && p.Group == gi.Policy.Group) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return roster.PendingRetention{}, ErrNoProposal
	}
	return found[0], nil
}

// publishPolicy sends the group's active policy to the relay with the
// approvals the roster gathered, when this device is an admin in the
// channel and the relay-visible policy this client has seen is older. It
// returns whether it published and a note when it could not.
func (e *Engine) publishPolicy(ctx context.Context, gi *roster.GroupInfo) (bool, string, error) {
	r := gi.Retention
	if r == nil {
		return false, "", nil
	}
	g := e.groups[gi.Policy.Group]
	if g == nil || g.mls == nil {
		return false, "In force; this device is not in the channel, so a member admin publishes it to the relay.", nil
	}
	if g.rec.Retention.PolicyVersion >= uint64(r.ProposedAt.UnixMilli()) {
		return false, "", nil
	}
	wp := retention.WirePolicy(wire.ID(gi.Policy.Group), *r, e.edKey)
	if _, err := e.sendCT(ctx, g, wire.KindRetentionPolicy, wp.Encode()); err != nil {
		// Another admin's device published it first (both saw the
		// threshold met: the approver at once, the others at the end of a
		// sync): the relay refuses a second copy of the version it holds.
		// Read the log; if it carries this version, it is published.
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.CodeRetentionBadPolicy {
			return false, "", err
		}
		if cerr := e.catchUp(ctx, g); cerr != nil {
			return false, "", cerr
		}
		if g.rec.Retention.PolicyVersion < uint64(r.ProposedAt.UnixMilli()) {
			return false, "", err
		}
		return true, "", nil
	}
	return true, "", e.catchUp(ctx, g)
}

// publishPolicies publishes, at the end of a sync, every active policy
// this admin device can publish and the relay does not carry yet (the
// approval that met the threshold may have come from an admin outside the
// channel). A failure is an alert.
func (e *Engine) publishPolicies(ctx context.Context) {
	if !e.roster.IsAdmin(e.devID) {
		return
	}
	for _, gi := range e.roster.Groups() {
		if gi.Deleted || gi.Retention == nil {
			continue
		}
		if g := e.groups[gi.Policy.Group]; g == nil || g.mls == nil || g.rec.Retention.PolicyVersion >= uint64(gi.Retention.ProposedAt.UnixMilli()) {
			continue
		}
		if _, _, err := e.publishPolicy(ctx, &gi); err != nil {
			e.raise(ctx, Alert{Code: "retention/steward", Group: hexID(gi.Policy.Group).hex(),
				Message: fmt.Sprintf("The retention policy of %s could not be published: %v", gi.Name, err)})
		}
	}
}

// approvedDestruction finishes ApproveRetention for a compact-now
// proposal: once approved by the threshold, this device drops at once if
// it is in the channel (else an admin member does at its next sync).
func (e *Engine) approvedDestruction(ctx context.Context, p roster.PendingRetention, out RetentionChange) (RetentionChange, error) {
	for _, a := range e.roster.ApprovedDestructions() {
		if a.Proposal != p.Proposal {
			continue
		}
		out.Active = true
		if g := e.groups[p.Group]; g == nil || g.mls == nil {
			out.Note = "Approved; this device is not in the channel, so an admin member deletes the history at its next sync."
			return out, nil
		}
		if err := e.catchUp(ctx, e.groups[p.Group]); err != nil {
			return out, err
		}
		if e.runDestructions(ctx) > 0 {
			out.Note = "Approved; the history below the checkpoint was deleted from the relay."
		} else {
			out.Note = "Approved; the history could not be deleted yet (see the alerts)."
		}
		return out, nil
	}
	out.Note = fmt.Sprintf("Approved; %d of %d admins so far.", len(p.Approvals)+1, p.Threshold)
	return out, nil
}
