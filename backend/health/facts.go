package health

import "time"

// Facts is what the engine knows about the workspace when it runs the
// checks. A zero field means "nothing wrong seen"; what the client cannot
// know is said by the Known flags.
type Facts struct {
	Now time.Time
	// HasRecovery: this user has a live recovery principal in the roster.
	HasRecovery bool
	// DirKnown: the relay's recovery tag directory of that principal was
	// read (Group.DirValid then says, per group, what it holds).
	DirKnown bool
	// Groups are the groups this device is an active member of.
	Groups []Group
	// Probation names the live devices admitted by a recovery rotation
	// and not yet confirmed (roster.DeviceInfo.Probation).
	Probation []string
	// AccessSetAt is when the relay accepted the workspace's current
	// access set; AccessSetKnown is false when it could not be read.
	AccessSetAt    time.Time
	AccessSetKnown bool
	// AccessRepaired: this (admin) device republished the access set
	// during this run.
	AccessRepaired bool
	// RosterRefused is the index of the roster operation the relay serves
	// after the valid prefix that this client refused at its last roster
	// sync; -1 when the log was continuous to its head.
	RosterRefused int
	// RosterBreak says what was wrong there: "roster/invalid_op" (an
	// operation the rules refuse), "roster/log_gap" (operations lost or
	// withheld) or "roster/log_fork" (another history).
	RosterBreak string
	// AdminDevices counts the live admin devices that are not on
	// probation; RecoveryQuorum: a recovery quorum is registered and could
	// vouch for any admin's recovered device (roster State.QuorumLive).
	AdminDevices   int
	RecoveryQuorum bool
	// QuorumRegistered: a recovery quorum is registered, live or not.
	QuorumRegistered bool
	// Admin: this device is an admin's (only an admin can act on the
	// admin-devices row: promote or pair).
	Admin bool
	// Dismissed are the checks the user dismissed (AdminDevices only).
	Dismissed map[ID]bool
	// Attested counts the other devices whose head attestation this
	// client has read; SplitViews the relay/split_view alerts it raised;
	// Silent names devices that kept writing with no attestation of
	// theirs arriving (relay/attestation_silence).
	Attested   int
	SplitViews int
	Silent     []string
	// Storage is the relay's STATS for the workspace; StorageKnown is
	// false when it could not be read.
	StorageKnown bool
	LogBytes     uint64
	LimitBytes   uint64
}

// Group is one group's facts.
type Group struct {
	Name string
	// Epoch is the group's current MLS epoch.
	Epoch uint64
	// Wrapped: a recovery.wrap of this user's is in the group's log at
	// WrapEpoch, and the relay still holds it (no drop removed it).
	// WrapRepaired: the run sent a fresh one.
	Wrapped      bool
	WrapEpoch    uint64
	WrapRepaired bool
	// DirValid: the recovery tag directory's slot of this group names a
	// wrap of this user's that the relay still holds (its current or its
	// fallback entry). DirRepaired: it did not, and the run sent a fresh
	// wrap and named it.
	DirValid    bool
	DirRepaired bool
	// OpenParent: history open and joined from the workspace, so joiners
	// need a history.publish. HistoryEpoch is the root epoch of the newest
	// history.publish in the log (HasHistory false: none); RootEpoch the
	// workspace root's current epoch.
	OpenParent bool
	HasHistory bool
	// HistoryRepaired: the run republished the group's standing bundles.
	HistoryRepaired bool
	HistoryEpoch    uint64
	RootEpoch       uint64
	// ChainFrozen: the group's retention chain has two successors.
	ChainFrozen bool
	// ExpiredAgents names agents whose leaves are still in the group
	// though their delegation is expired or revoked.
	ExpiredAgents []string
}
