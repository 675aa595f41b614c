package retention

import "weald/backend/errcode"

// Errors of retention, each a stable code and one sentence.
var (
	ErrBadManifest   = errcode.New("retention/bad_manifest", "the checkpoint manifest is malformed")
	ErrBadCheckpoint = errcode.New("retention/bad_checkpoint", "the checkpoint does not verify")
	ErrOmitted       = errcode.New("retention/omitted_document", "the checkpoint leaves out a document of the channel")
	ErrExpiry        = errcode.New("retention/expiry_refused", "the checkpoint leaves out expired days, but the channel had no finite text window in force when it was written")
	ErrPartial       = errcode.New("retention/partial_checkpoint", "that checkpoint leaves out expired days, so compact-now cannot delete below it")
	ErrBarrier       = errcode.New("retention/barrier", "a snapshot of the checkpoint does not sit exactly at its author barrier")
	ErrNotInChain    = errcode.New("retention/not_in_chain", "the checkpoint is not signed by a current key of the group's retention chain")
	ErrBadTransition = errcode.New("retention/bad_transition", "the retention key transition does not verify")
	ErrChainFrozen   = errcode.New("retention/chain_frozen", "the group's retention chain has two successors for one key; compaction stops until an admin resolves it")
	ErrNoKey         = errcode.New("retention/no_key", "this device does not hold the group's current retention key")
	ErrTooLarge      = errcode.New("retention/too_large", "a document snapshot is larger than one envelope can carry")
	ErrNotAdmin      = errcode.New("retention/not_admin", "only an admin can change retention or compact now")
)
