package engine

import (
	"context"
	"time"

	"weald/backend/documents"
	"weald/backend/identity"
	"weald/backend/retention"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// RetentionInfo is a channel's retention state as `weald retention show`
// and the UI show it.
type RetentionInfo struct {
	Channel     string        `json:"channel"`
	TextWindow  time.Duration `json:"text_window_ns"`  // 0 = unlimited
	MediaWindow time.Duration `json:"media_window_ns"` // 0 = unlimited
	// Default: no policy is active; the defaults apply (text unlimited,
	// media 180 days).
	Default bool `json:"default"`
	// OnRelay: the admin-approved policy has reached the relay, so drops
	// can be bound to it.
	OnRelay        bool      `json:"on_relay"`
	ChainEpoch     uint64    `json:"chain_epoch,omitempty"` // epoch of the retention chain's head
	ChainFrozen    bool      `json:"chain_frozen,omitempty"`
	LastCheckpoint time.Time `json:"last_checkpoint,omitzero"`
	Checkpoints    int       `json:"checkpoints_trusted"`
	ChangesSince   int       `json:"changes_since_checkpoint"`
	DroppedBelow   uint64    `json:"dropped_below_seq,omitempty"`
	// VerifiedFrom: this device read the channel's history from a
	// checkpoint; author chains are verified from then on ("history
	// verified from").
	VerifiedFrom time.Time `json:"history_verified_from,omitzero"`
}

// Retention returns a channel's retention state.
func (e *Engine) Retention(channel string) (RetentionInfo, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return RetentionInfo{}, err
	}
	pol := retention.Effective(gi)
	out := RetentionInfo{Channel: gi.Name, TextWindow: pol.TextWindow, MediaWindow: pol.MediaWindow, Default: !pol.Active}
	if g := e.groups[gi.Policy.Group]; g != nil {
		r := &g.rec.Retention
		out.OnRelay = r.Policy != nil
		if h := r.Chain.Head(); h != nil {
			out.ChainEpoch = h.Epoch
		}
		out.ChainFrozen = r.Chain.Frozen
		if n := len(r.Trusted); n > 0 {
			out.LastCheckpoint = r.Trusted[n-1].At
		}
		out.Checkpoints, out.ChangesSince = len(r.Trusted), r.Changes
		out.DroppedBelow, out.VerifiedFrom = r.DroppedBelow, r.VerifiedFrom
	}
	return out, nil
}

// RetentionImpact is what a new text window would delete, as a number
// shown before it is applied.
type RetentionImpact struct {
	Messages int `json:"messages"` // messages older than the window (local count)
	// Bytes estimates the relay bytes of their envelopes: Messages times
	// the mean ct size of the channel's content envelopes on the relay.
	Bytes uint64 `json:"bytes_estimate"`
}

// RetentionChange is the answer of SetRetention.
type RetentionChange struct {
	Channel string          `json:"channel"`
	Impact  RetentionImpact `json:"impact"`
	Applied bool            `json:"applied"`
	// Active: the policy is in force (threshold reached); Published: it
	// reached the relay. A workspace with several admins needs a second
	// admin's approval first.
	Active    bool   `json:"active"`
	Published bool   `json:"published"`
	Note      string `json:"note,omitempty"`
}

// SetRetention shows what a channel's new windows would delete and, when
// apply is set, proposes them (an admin's retention-policy roster
// operation; in force at once in a one-admin workspace, else once a second
// admin approves) and publishes the approved policy to the relay, which
// binds drops to it.
func (e *Engine) SetRetention(ctx context.Context, channel string, text, media time.Duration, apply bool) (RetentionChange, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return RetentionChange{}, err
	}
	gi, err := e.resolveChannel(channel)
	if err != nil {
		return RetentionChange{}, err
	}
	out := RetentionChange{Channel: gi.Name}
	if !e.roster.IsAdmin(e.devID) {
		return out, retention.ErrNotAdmin
	}
	if out.Impact, err = e.retentionImpact(ctx, &gi, text); err != nil {
		return out, err
	}
	if !apply {
		return out, nil
	}
	err = e.appendRosterAt(ctx, func(at time.Time) (roster.Body, error) {
		return &roster.RetentionPolicy{Group: gi.Policy.Group, TextWindow: text, MediaWindow: media,
			Relay: retention.RelayApproval(gi.Policy.Group, at, text, media, e.edKey)}, nil
	})
	if err != nil {
		return out, err
	}
	out.Applied = true
	gi, _ = e.roster.Group(gi.Policy.Group)
	pol := retention.Effective(gi)
	out.Active = pol.Active && gi.Retention.TextWindow == text && gi.Retention.MediaWindow == media
	if !out.Active {
		out.Note = "Proposed; a second admin must approve it (weald retention approve) before it is in force."
		return out, nil
	}
	out.Published, out.Note, err = e.publishPolicy(ctx, &gi)
	return out, err
}

// retentionImpact counts the channel's messages older than text (0 =
// unlimited: none) and estimates their relay bytes.
func (e *Engine) retentionImpact(ctx context.Context, gi *roster.GroupInfo, text time.Duration) (RetentionImpact, error) {
	var out RetentionImpact
	if text <= 0 {
		return out, nil
	}
	cut := e.now().Add(-time.Duration(retention.WindowDays(text)) * retention.Day)
	var stored []store.ShardID
	if err := e.db.view(ctx, func(tx *store.Tx) (err error) {
		stored, err = tx.Shards(gi.Policy.Group)
		return err
	}); err != nil {
		return out, err
	}
	for _, id := range stored {
		if documents.Day(id.Day).Start().Add(retention.Day).After(cut) {
			continue // a day not wholly older than the window
		}
		sh, err := e.shardFor(ctx, shardKey{identity.GroupID(id.Group), documents.Day(id.Day), id.Epoch})
		if err != nil {
			return out, err
		}
		for _, m := range sh.s.Messages() {
			if !m.Deleted && m.Time.Before(cut) {
				out.Messages++
			}
		}
	}
	if out.Messages == 0 {
		return out, nil
	}
	log, _, err := e.fetchLogTo(ctx, wire.ID(gi.Policy.Group), ^uint64(0))
	if err != nil {
		return out, err
	}
	var n, b uint64
	for _, se := range log {
		if se.Envelope.Kind == wire.KindContent {
			n++
			b += uint64(len(se.Envelope.CT))
		}
	}
	if n > 0 {
		out.Bytes = b / n * uint64(out.Messages)
	}
	return out, nil
}

// Storage is the workspace's use of the relay's envelope log (STATS).
type Storage struct {
	LogBytes   uint64 `json:"log_bytes"`
	LimitBytes uint64 `json:"limit_bytes"` // 0 = no budget
	Percent    uint64 `json:"percent"`     // of the budget, 0 without one
	Envelopes  uint64 `json:"envelopes"`
	Groups     uint64 `json:"groups"`
	// NearBudget: at or above 80 % of the budget (compact now).
	NearBudget bool `json:"near_budget"`
	// OverRetention counts envelopes older than the relay's warning
	// threshold (WEALD_RELAY_RETENTION_DAYS); the relay deletes none.
	OverRetention uint64 `json:"over_retention,omitempty"`
}

// Storage asks the relay for the workspace's usage; at 80 % of the budget
// an admin device raises storage/near_budget once.
func (e *Engine) Storage(ctx context.Context) (Storage, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.connect(ctx); err != nil {
		return Storage{}, err
	}
	return e.storage(ctx)
}

func (e *Engine) storage(ctx context.Context) (Storage, error) {
	st, err := e.client.Stats(ctx)
	if err != nil {
		return Storage{}, err
	}
	out := Storage{LogBytes: st.LogBytes, LimitBytes: st.LimitBytes, Envelopes: st.Envelopes, Groups: st.Groups,
		OverRetention: st.OverRetention, NearBudget: retention.NearBudget(st.LogBytes, st.LimitBytes)}
	if st.LimitBytes > 0 {
		out.Percent = st.LogBytes * 100 / st.LimitBytes
	}
	e.keepStorageSample(ctx, StorageSample{At: e.now().UTC(), LogBytes: st.LogBytes, LimitBytes: st.LimitBytes})
	if out.NearBudget == e.meta.NearBudgetSince.IsZero() {
		if out.NearBudget {
			e.meta.NearBudgetSince = e.now().UTC()
		} else {
			e.meta.NearBudgetSince = time.Time{}
		}
		_ = e.persistMeta(ctx)
	}
	if out.NearBudget && e.roster.IsAdmin(e.devID) {
		e.raise(ctx, Alert{Code: "storage/near_budget",
			Message: "This workspace is using 80 % or more of the relay's storage budget. Compact now (weald compact --all --now) to free space; writes are refused once the budget is full."})
	}
	return out, nil
}
