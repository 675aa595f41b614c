package retention

import (
	"crypto/ed25519"
	"time"

	"weald/backend/roster"
	"weald/backend/wire"
)

// Day is one day of retention window.
const Day = 24 * time.Hour

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

// WindowDays is a window in whole days for the relay, rounded up so the
// relay never drops sooner than the policy says (0 stays unlimited).
func WindowDays(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	n := (d + Day - 1) / Day
	if n > 1<<31 {
		n = 1 << 31
	}
	return uint32(n)
}

// WirePolicy is the relay-visible form of an active policy (the
// retention.policy envelope the relay binds drops to), approved by admin.
// Its version is the activation time in Unix milliseconds, so a later
// activation always has a higher one.
func WirePolicy(group wire.ID, p Policy, admin ed25519.PrivateKey) wire.RetentionPolicy {
	w := wire.RetentionPolicy{Group: group, Version: uint64(p.ActiveSince.UnixMilli()),
		TextWindowDays: WindowDays(p.TextWindow), MediaWindowDays: WindowDays(p.MediaWindow)}
	w.Approve(admin)
	return w
}
