package server

import (
	"context"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Change is a committed state change (store.Change).
type Change = store.Change

// Principal is who a connection authenticated as.
type Principal = wire.AuthOK

// Backend is what the transport needs from the relay service. Errors that
// are *wire.Error go to the client as they are; any other error is
// internal/error.
type Backend interface {
	Ping(ctx context.Context) error
	// RelayID is this relay's id, sent in every CHALLENGE.
	RelayID(ctx context.Context) (wire.ID, error)
	// Authenticate checks an Auth answering the challenge b (this relay's
	// id, a host it serves) against the workspace's current access set
	// (keys) or its live grants.
	Authenticate(ctx context.Context, b wire.AuthBinding, a *wire.Auth) (Principal, error)
	// Send accepts a batch all-or-nothing and returns the ack items and the
	// accepted envelopes with their seqs, after the commit.
	Send(ctx context.Context, ws wire.ID, p Principal, envs []wire.Envelope) ([]wire.AckItem, []wire.SeqEnvelope, error)
	Fetch(ctx context.Context, ws, group wire.ID, afterSeq uint64, limit uint32) (*wire.Envelopes, error)
	// FetchLatest returns the newest envelope of each of kinds in group
	// (FETCH_LATEST).
	FetchLatest(ctx context.Context, ws, group wire.ID, kinds []wire.Kind) (*wire.Latest, error)
	RosterAppend(ctx context.Context, ws wire.ID, p Principal, expected wire.ID, op []byte) (*wire.RosterAppended, error)
	RosterFetch(ctx context.Context, ws wire.ID, afterIndex uint64, limit uint32) (*wire.RosterOps, error)
	// Provision records a workspace and its genesis key for a client, as
	// the relay's provisioning mode allows (PROVISION before AUTH;
	// relay.Service.Provision).
	Provision(ctx context.Context, ws wire.ID, genesisKey, token []byte) error
	// Teardown deletes a workspace whose genesis key was never consumed,
	// on its genesis key's signature (TEARDOWN before AUTH;
	// relay.Service.Teardown).
	Teardown(ctx context.Context, ws wire.ID, sig []byte) error
	// PublishAccessSet accepts set as the next version (CAS on version).
	PublishAccessSet(ctx context.Context, ws wire.ID, p Principal, set wire.AccessSet) (uint64, error)
	AccessSet(ctx context.Context, ws wire.ID) (wire.AccessSet, error)
	// CurrentAccessSet returns the current access set and when it was
	// accepted (ACCESS_SET_CURRENT).
	CurrentAccessSet(ctx context.Context, ws wire.ID) (*wire.AccessSetCurrent, error)
	// AccessRefusals returns the refused access-set publications kept with
	// id > after (relay.Service.AccessRefusals).
	AccessRefusals(ctx context.Context, ws wire.ID, after uint64) (*wire.AccessRefusals, error)
	// Allowed reports whether a principal may still be connected under the
	// workspace's current access set (a key present, a grant live).
	Allowed(ctx context.Context, ws wire.ID, kind wire.PrincipalKind, principal wire.ID) (bool, error)
	KeyPackagePut(ctx context.Context, ws wire.ID, p Principal, items []wire.KeyPackageItem) (*wire.KeyPackageStock, error)
	KeyPackageClaim(ctx context.Context, ws wire.ID, p Principal, owner wire.ID) (*wire.KeyPackageClaimed, error)
	KeyPackageClaimBatch(ctx context.Context, ws wire.ID, p Principal, owners []wire.ID) ([]wire.ClaimedItem, error)
	DropBefore(ctx context.Context, ws wire.ID, p Principal, d wire.DropBefore) (*wire.Dropped, error)
	// DeleteWraps deletes a group's recovery wraps by tag on an admin's
	// signed instruction (relay.Service.DeleteWraps).
	DeleteWraps(ctx context.Context, ws wire.ID, p Principal, d wire.WrapsDelete) (*wire.WrapsDeleted, error)
	// DeleteWrapsBatch executes several in one transaction, all or none.
	DeleteWrapsBatch(ctx context.Context, ws wire.ID, p Principal, items []wire.WrapsDelete) ([]wire.WrapsDeleted, error)
	// WelcomeNotice, Welcomes and WelcomesDone keep, serve and clear the
	// Welcome notices of keys (relay.Service.WelcomeNotice).
	WelcomeNotice(ctx context.Context, ws wire.ID, p Principal, n wire.WelcomeNotice) error
	Welcomes(ctx context.Context, ws wire.ID, p Principal) (*wire.Welcomes, error)
	WelcomesDone(ctx context.Context, ws wire.ID, p Principal, items []wire.WelcomeRef) error
	// RecoveryDirPut, RecoveryDir and RecoveryDirDrop write, read and drop
	// the recovery tag directory (relay.Service.RecoveryDirPut).
	RecoveryDirPut(ctx context.Context, ws wire.ID, p Principal, items []wire.DirPut) error
	RecoveryDir(ctx context.Context, ws wire.ID, p Principal, owner wire.ID) (*wire.RecoveryDir, error)
	RecoveryDirDrop(ctx context.Context, ws wire.ID, p Principal, d wire.RecoveryDirDrop) (*wire.RecoveryDirDropped, error)
	Stats(ctx context.Context, ws wire.ID) (*wire.Stats, error)
	// Changes delivers committed changes (on PostgreSQL from every relay
	// process on the database, this one included) until ctx ends; a nil
	// channel means there are none to follow.
	Changes(ctx context.Context) (<-chan store.Change, error)
}
