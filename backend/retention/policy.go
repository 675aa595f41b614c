package retention

import (
	"bytes"
	"crypto/ed25519"
	"time"

	"weald/backend/identity"
	"weald/backend/roster"
	"weald/backend/wire"
)

// Day is one day of retention window.
const Day = roster.Day

// Defaults (spec/lifecycle.md "Dropping": "unlimited for text and 180 days
// for media, because media is what actually fills a disk and text is what
// people search").
const (
	DefaultTextWindow  time.Duration = 0 // unlimited
	DefaultMediaWindow               = 180 * Day
)

// Policy is a group's retention windows; 0 means unlimited.
type Policy struct {
	TextWindow  time.Duration
	MediaWindow time.Duration
	// Active: set by a threshold-approved roster operation (RetentionPolicy
	// as roster state, docs/protocol/roster.md ops 17 and 18); false means
	// the defaults apply.
	Active      bool
	ActiveSince time.Time
}

// Effective returns the group's active policy, or the defaults.
func Effective(g roster.GroupInfo) Policy {
	if r := g.Retention; r != nil {
		return Policy{TextWindow: r.TextWindow, MediaWindow: r.MediaWindow, Active: true, ActiveSince: r.ActiveSince}
	}
	return Policy{TextWindow: DefaultTextWindow, MediaWindow: DefaultMediaWindow}
}

// WindowDays is a window in whole days for the relay (roster.WindowDays).
func WindowDays(d time.Duration) uint32 { return roster.WindowDays(d) }

// WirePolicy is the relay-visible form of an active policy (the
// retention.policy envelope the relay binds drops to): the proposal's
// policy (roster.RelayPolicy) with the admins' approvals the roster
// gathered, and admin's own when it is not among them.
func WirePolicy(group wire.ID, r roster.ActiveRetention, admin ed25519.PrivateKey) wire.RetentionPolicy {
	w := roster.RelayPolicy(identity.GroupID(group), r.ProposedAt, r.TextWindow, r.MediaWindow)
	pub := admin.Public().(ed25519.PublicKey)
	mine := false
	for _, a := range r.Approvals {
		w.Approvals = append(w.Approvals, a)
		mine = mine || bytes.Equal(a.DeviceKey, pub)
	}
	if !mine {
		w.Approve(admin)
	}
	return w
}

// RelayApproval is admin's approval of the relay-visible policy a roster
// proposal (made at proposedAt) names, carried in its retention-policy or
// retention-approve operation.
func RelayApproval(group identity.GroupID, proposedAt time.Time, text, media time.Duration, admin ed25519.PrivateKey) *wire.Approval {
	w := roster.RelayPolicy(group, proposedAt, text, media)
	w.Approve(admin)
	return &w.Approvals[0]
}

// WindowAt is the text window under which a checkpoint written at at may
// leave out expired days: the active policy's, when it is finite and was
// already active at at; else 0 (no policy, an unlimited text window, or a
// policy that became active after at), and such a checkpoint is refused.
func WindowAt(p Policy, at time.Time) time.Duration {
	if !p.Active || p.TextWindow <= 0 || p.ActiveSince.After(at) {
		return 0
	}
	return p.TextWindow
}
