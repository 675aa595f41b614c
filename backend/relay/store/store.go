package store

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"weald/backend/wire"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrExists is returned when a row to create already exists.
var ErrExists = errors.New("store: already exists")

// Store is one relay database.
type Store interface {
	// Update runs fn in a read-write transaction and commits if fn returns
	// nil; otherwise it rolls back and returns fn's error. Changes emitted by
	// fn are delivered to subscribers after the commit, never before and
	// never for a rolled-back transaction. The commit is durable when Update
	// returns nil.
	Update(ctx context.Context, fn func(Tx) error) error
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Subscribe registers fn to be called, on the committing goroutine, with
	// every change this process commits. fn must not block. The returned
	// function unregisters it.
	Subscribe(fn func(Change)) (cancel func())
	// InProcess reports whether the database engine runs in this process
	// (SQLite), so that its work competes with the caller's for CPU, rather
	// than in a server the caller waits on (PostgreSQL).
	InProcess() bool

	// Send is the fast send: it inserts r's envelopes at r's seqs, in a
	// write transaction of its own, if the workspace's access-set version
	// is r.AccessVersion, the batch fits r.MaxLogBytes and each group's
	// head is the one r builds on, and records (on PostgreSQL: notifies)
	// one ChangeEnvelopes per group. await reports the caller's signature
	// check: the store calls it before anything is committed, and an error
	// from it leaves nothing stored and is returned. ok = false: the gate
	// did not hold and nothing changed; ErrConflict: a seq or chain place
	// was taken. It checks no signature, no kind, no chain link and no
	// group ownership: the caller has, against heads it knows.
	Send(ctx context.Context, r SendRequest, await func() error) (ok bool, err error)

	// Changes delivers, until ctx ends, the changes committed by every relay
	// process on this database: this process's own on SQLite, everyone's
	// (this process included) by LISTEN on PostgreSQL. The reader should
	// drain it promptly; changes are hints to re-read state, never state.
	Changes(ctx context.Context) (<-chan Change, error)
	// Engine is "sqlite" or "postgres".
	Engine() string
	Close() error
}

// Workspace is a workspaces row.
type Workspace struct {
	ID              wire.ID
	GenesisKey      []byte
	GenesisConsumed bool
	AccessVersion   uint64
	RosterIndex     uint64
	RosterHead      wire.ID
	LogBytes        int64 // the trigger-maintained ct byte counter
	CreatedAt       int64
}

// Group is a groups row.
type Group struct {
	ID              wire.ID
	Workspace       wire.ID
	HeadSeq         uint64 // the highest seq (0 for a group without envelopes)
	DroppedBelow    uint64
	RetentionFrozen bool
}

// EnvelopeRow is a stored envelope.
type EnvelopeRow struct {
	Seq        uint64
	Envelope   wire.Envelope
	Hash       wire.ID
	AcceptedAt int64
}

// Tombstone marks a recovery.wrap deleted by the WrapsDelete whose hash is
// Deletion.
type Tombstone struct {
	Seq      uint64
	Tag      wire.ID
	Deletion wire.ID
}

// AuthorHead is the last accepted envelope of an author in a group.
type AuthorHead struct {
	Ctr  uint64
	Hash wire.ID
}

// RetentionKey is one published retention signing key of a group.
type RetentionKey struct {
	Key     []byte
	PrevKey []byte // empty for the chain root
	Epoch   uint64
	Seq     uint64 // of the retention.transition envelope
	Dead    bool   // on a branch a RetentionResolution discarded
}

// Policy is an accepted RetentionPolicy of a group.
type Policy struct {
	Version         uint64
	Seq             uint64
	Ref             wire.EnvelopeRef
	TextWindowDays  uint32
	MediaWindowDays uint32
	Body            []byte // the encoded wire.RetentionPolicy
}

// CheckpointRow is an accepted checkpoint envelope.
type CheckpointRow struct {
	Seq          uint64
	Ref          wire.EnvelopeRef
	ManifestHash wire.ID
	RetentionKey []byte
}

// KeyPackage is one stored key package.
type KeyPackage struct {
	Body       []byte
	LastResort bool
}

// WorkspaceStats are counts over one workspace's envelope log.
type WorkspaceStats struct {
	LogBytes      int64
	Envelopes     int64
	Groups        int64
	OverRetention int64 // envelopes accepted before the cutoff given
	OldestAt      int64 // accept time of the oldest envelope; 0 if none
	SumCT         int64 // sum of length(ct) over the rows (equals LogBytes)
}

// Tx is one transaction. Methods that write are only valid inside
// [Store.Update]. Uint64 values are stored as signed 64-bit integers. A
// group is keyed by (workspace, group id): every group method takes the
// workspace, and the same id in two workspaces is two unrelated groups.
type Tx interface {
	CreateWorkspace(ctx context.Context, id wire.ID, genesisKey []byte, now int64) error
	Workspace(ctx context.Context, id wire.ID) (Workspace, error)
	// LockWorkspace reads the row and, on PostgreSQL, locks it until the end
	// of the transaction: every workspace-scoped write takes it first.
	LockWorkspace(ctx context.Context, id wire.ID) (Workspace, error)
	ConsumeGenesis(ctx context.Context, id wire.ID) error
	// DeleteUnconsumedWorkspace deletes a workspace whose genesis key was
	// never consumed (no access set ever accepted, so nothing else refers
	// to it) and reports whether it did: false for a consumed one, which is
	// kept. ErrNotFound when there is none.
	DeleteUnconsumedWorkspace(ctx context.Context, id wire.ID) (bool, error)
	ListWorkspaces(ctx context.Context) ([]wire.ID, error)
	// RelayID returns the relay's id, storing fresh as it when there is
	// none yet (the first caller's value wins on every process).
	RelayID(ctx context.Context, fresh wire.ID) (wire.ID, error)
	// CreateProvisionToken stores a provisioning token's hash, good for
	// uses provisions until expiresAt (unix seconds; 0 = never).
	CreateProvisionToken(ctx context.Context, hash wire.ID, uses, expiresAt, now int64) error
	// UseProvisionToken takes one use of a token atomically; ErrNotFound,
	// ErrTokenExpired or ErrTokenUsedUp (nothing changed) when it cannot.
	UseProvisionToken(ctx context.Context, hash wire.ID, now int64) error

	AccessSet(ctx context.Context, ws wire.ID, version uint64) (body []byte, acceptedAt int64, err error)
	// PutAccessSet stores version and makes it current (the caller holds the
	// workspace lock and has checked version = current + 1).
	PutAccessSet(ctx context.Context, ws wire.ID, version uint64, body []byte, now int64) error
	AddDepartedKeys(ctx context.Context, ws wire.ID, keys []wire.ID, version uint64) error
	KeyDeparted(ctx context.Context, ws wire.ID, key wire.ID) (bool, error)
	// AddGrants records grants (invite grant keys) as live unless they are already known.
	AddGrants(ctx context.Context, ws wire.ID, hashes []wire.ID, version uint64) error
	VoidGrants(ctx context.Context, ws wire.ID, hashes []wire.ID, version uint64) error
	GrantVoid(ctx context.Context, ws wire.ID, hash wire.ID) (bool, error)
	// BindGrantKey records that key authenticated with grant, unless key is
	// bound already or grant already carries uses keys: a grant carries at
	// most uses keys (its invite's max_uses), a key one grant, and the first
	// bindings win.
	BindGrantKey(ctx context.Context, ws, grant wire.ID, key []byte, uses int) error
	// GrantKey returns the key with id keyID bound to a grant and that grant.
	GrantKey(ctx context.Context, ws, keyID wire.ID) (key []byte, grant wire.ID, err error)

	Group(ctx context.Context, ws, id wire.ID) (Group, error)
	CreateGroup(ctx context.Context, ws, id wire.ID, now int64) error
	// GroupHead returns the highest seq of the group (0 if none). seq is never
	// reused: a drop always keeps the checkpoint above what it deletes.
	GroupHead(ctx context.Context, ws, id wire.ID) (uint64, error)
	SetRetentionFrozen(ctx context.Context, ws, id wire.ID) error
	// AuthorHead returns the newest envelope of author in group, or the head
	// a drop recorded; ErrNotFound if the author never wrote there.
	AuthorHead(ctx context.Context, ws, group, author wire.ID) (AuthorHead, error)
	InsertEnvelope(ctx context.Context, ws wire.ID, row *EnvelopeRow) error
	// Envelopes returns up to limit envelopes with seq > afterSeq, ascending,
	// stopping before the first whose ct would bring the page past maxBytes
	// (the first envelope is always included).
	Envelopes(ctx context.Context, ws, group wire.ID, afterSeq uint64, limit int, maxBytes int64) ([]EnvelopeRow, error)
	// LatestEnvelopes returns the newest envelope (highest seq) of each kind
	// in kinds that the group holds, in the order of kinds; kinds without
	// one are left out.
	LatestEnvelopes(ctx context.Context, ws, group wire.ID, kinds []wire.Kind) ([]EnvelopeRow, error)
	// EnvelopeByAuthor finds the envelope of author with ctr in group.
	EnvelopeByAuthor(ctx context.Context, ws, group, author wire.ID, ctr uint64) (EnvelopeRow, error)
	// DropEnvelopesBelow records every author's chain head of the group, then
	// deletes the group's envelopes with seq < barrier that covered reaches
	// (the author is in covered and its ctr is at most that entry's ctr: a
	// checkpoint's author barrier), except anchors and the kinds in
	// keepKinds, and returns how many rows and ct bytes went. An envelope of
	// an author covered leaves out, or past its entry, stays: it reached
	// the relay after the checkpoint's writer read the log, so no snapshot
	// holds it. It is the only way envelopes are ever deleted.
	DropEnvelopesBelow(ctx context.Context, ws, group wire.ID, barrier uint64, covered []wire.EnvelopeRef, keepKinds []wire.Kind) (n, bytes int64, err error)
	// DeleteRecoveryWraps records every author's chain head of the group,
	// then deletes the group's recovery.wrap envelopes whose blinded tag is
	// in d.Tags (spec/lifecycle.md "Removing a person", step 4), leaving a
	// Tombstone per deleted seq and keeping d, and returns how many rows
	// and ct bytes went. Beside DropEnvelopesBelow it is the only way
	// envelopes are deleted, and it deletes no other kind.
	DeleteRecoveryWraps(ctx context.Context, ws, group wire.ID, d *wire.WrapsDelete) (n, bytes int64, err error)
	// Tombstones returns the group's tombstones with afterSeq < seq <= upto,
	// ascending, at most limit (docs/protocol/wire.md "Gaps").
	Tombstones(ctx context.Context, ws, group wire.ID, afterSeq, upto uint64, limit int) ([]Tombstone, error)
	// WrapDeletion returns the signed WrapsDelete a tombstone names;
	// ErrNotFound if none.
	WrapDeletion(ctx context.Context, ws, group, hash wire.ID) ([]byte, error)
	AddAnchors(ctx context.Context, ws, group wire.ID, seqs []uint64) error
	// DropAnchorsBelow forgets the group's anchors with seq < barrier, so
	// the next DropEnvelopesBelow deletes those envelopes like any other
	// (docs/protocol/wire.md "drop_before": a drop's checkpoint and its
	// snapshots become the group's only anchors).
	DropAnchorsBelow(ctx context.Context, ws, group wire.ID, barrier uint64) error
	// AddAccessRefusal keeps a refused access-set publication (at: unix
	// seconds) under the next id, and only the newest
	// wire.MaxAccessRefusals of the workspace.
	AddAccessRefusal(ctx context.Context, ws wire.ID, at uint64, set []byte) error
	// AccessRefusals returns the kept refusals with id > after, ascending.
	AccessRefusals(ctx context.Context, ws wire.ID, after uint64) ([]wire.AccessRefusal, error)
	SetDroppedBelow(ctx context.Context, ws, group wire.ID, seq uint64) error
	// AddWelcomeNotice keeps a notice that the Welcome ref adds owner (at:
	// unix seconds), and only the newest wire.MaxWelcomesKept of owner; added
	// is false when owner already had that notice.
	AddWelcomeNotice(ctx context.Context, ws, owner wire.ID, ref wire.WelcomeRef, at uint64) (added bool, err error)
	// WelcomeNotices returns owner's oldest wire.MaxWelcomes kept notices,
	// oldest first.
	WelcomeNotices(ctx context.Context, ws, owner wire.ID) ([]wire.WelcomeRef, error)
	// RecoveryDirPut makes e the current entry of owner's slot of group
	// (the caller checked e names a recovery.wrap of the owner's user);
	// the entry it replaces becomes the fallback. added: the slot is new.
	RecoveryDirPut(ctx context.Context, ws, owner, group wire.ID, e wire.DirEntry) (added bool, err error)
	// RecoveryDirCount returns how many slots owner has.
	RecoveryDirCount(ctx context.Context, ws, owner wire.ID) (int, error)
	// RecoveryDir returns owner's slots by group id (at most
	// wire.MaxDirSlots), each entry Present when the recovery.wrap at its
	// seq is still stored.
	RecoveryDir(ctx context.Context, ws, owner wire.ID) ([]wire.DirSlot, error)
	// DropRecoveryDir deletes owner's slots of d.Groups (every slot when
	// it names none) and, when any went, keeps the signed d; it returns
	// how many went. It is the only way a slot is deleted.
	DropRecoveryDir(ctx context.Context, ws wire.ID, d *wire.RecoveryDirDrop) (int64, error)
	// RecoveryDirDrop returns a kept drop's signed body; ErrNotFound if none.
	RecoveryDirDrop(ctx context.Context, ws, hash wire.ID) ([]byte, error)
	// ClearWelcomeNotices deletes those of refs owner has.
	ClearWelcomeNotices(ctx context.Context, ws, owner wire.ID, refs []wire.WelcomeRef) error

	RosterAppend(ctx context.Context, ws wire.ID, index uint64, head wire.ID, op []byte) error
	// RosterOps returns up to limit operations with index > afterIndex, at
	// most maxBytes of them beyond the first.
	RosterOps(ctx context.Context, ws wire.ID, afterIndex uint64, limit int, maxBytes int64) ([][]byte, error)

	PutKeyPackage(ctx context.Context, ws, owner wire.ID, kp KeyPackage, now int64) error
	// ClaimKeyPackage removes and returns the oldest one-use package of owner,
	// or returns (without removing) its last-resort package; ErrNotFound if neither.
	ClaimKeyPackage(ctx context.Context, ws, owner wire.ID) (KeyPackage, error)
	KeyPackageStock(ctx context.Context, ws, owner wire.ID) (oneUse int, lastResort bool, err error)
	// KeyPackageBytes is the size of every key package ws stores.
	KeyPackageBytes(ctx context.Context, ws wire.ID) (uint64, error)

	RetentionKeys(ctx context.Context, ws, group wire.ID) ([]RetentionKey, error)
	PutRetentionKey(ctx context.Context, ws, group wire.ID, k RetentionKey) error
	// ResolveRetention marks keys dead and clears the group's frozen flag.
	ResolveRetention(ctx context.Context, ws, group wire.ID, dead [][]byte) error
	PutPolicy(ctx context.Context, ws, group wire.ID, p Policy) error
	LatestPolicy(ctx context.Context, ws, group wire.ID) (Policy, error)
	PutCheckpoint(ctx context.Context, ws, group wire.ID, c CheckpointRow) error

	Stats(ctx context.Context, ws wire.ID, overRetentionBefore int64) (WorkspaceStats, error)

	// Emit records a change to deliver after commit (and, on PostgreSQL, to
	// NOTIFY in this transaction, at the latest just before commit).
	Emit(ctx context.Context, c Change) error

	// LockForSend is LockWorkspace plus the head seq of group and the head
	// of author in it (found = false if the author never wrote there), read
	// after the lock is held, in one statement.
	LockForSend(ctx context.Context, ws, group, author wire.ID) (w Workspace, groupHead uint64, head AuthorHead, found bool, err error)
	// InsertEnvelopes inserts rows as InsertEnvelope does, in as few
	// statements as the engine allows.
	InsertEnvelopes(ctx context.Context, ws wire.ID, rows []EnvelopeRow) error
	// LogBytesAndNotify reads the workspace's trigger-maintained byte counter
	// and, on PostgreSQL, sends the pending notifications in the same
	// statement.
	LogBytesAndNotify(ctx context.Context, ws wire.ID) (int64, error)
}

// NotifyChannel is the PostgreSQL LISTEN/NOTIFY channel the relay's store
// notifies on, inside the accepting transaction.
const NotifyChannel = "weald_relay"

// ChangeKind says what a [Change] reports.
type ChangeKind byte

// Change kinds; the byte is the first field of the payload.
const (
	ChangeEnvelopes ChangeKind = 'e' // new envelopes in Group, up to Seq
	ChangeAccessSet ChangeKind = 'a' // access set Version accepted
	ChangeRoster    ChangeKind = 'r' // roster operation Index appended, head Head
	ChangeDrop      ChangeKind = 'd' // envelopes of Group below Seq dropped
	ChangeWelcome   ChangeKind = 'w' // a Welcome notice (Group, Seq) kept for the key Head
	// ChangeResync is never sent by NOTIFY: Changes reports it after a lost
	// LISTEN connection was re-established, since notifications may have
	// been missed meanwhile.
	ChangeResync ChangeKind = 's'
)

// Change is a committed state change others may need to act on.
type Change struct {
	Kind      ChangeKind
	Workspace wire.ID
	Group     wire.ID // envelopes, drop
	Seq       uint64  // envelopes: highest new seq; drop: the barrier
	Version   uint64  // access set: version; roster: index
	Head      wire.ID // roster head; welcome: the key the notice is for
}

// Payload is the NOTIFY payload of c, space-separated lower-case hex ids and
// decimal numbers:
//
//	e <workspace> <group> <seq>
//	a <workspace> <version>
//	r <workspace> <index> <head>
//	d <workspace> <group> <barrier>
//	w <workspace> <group> <seq> <key>
func (c Change) Payload() string {
	switch c.Kind {
	case ChangeEnvelopes, ChangeDrop:
		return fmt.Sprintf("%c %s %s %d", c.Kind, c.Workspace, c.Group, c.Seq)
	case ChangeWelcome:
		return fmt.Sprintf("w %s %s %d %s", c.Workspace, c.Group, c.Seq, c.Head)
	case ChangeAccessSet:
		return fmt.Sprintf("a %s %d", c.Workspace, c.Version)
	case ChangeRoster:
		return fmt.Sprintf("r %s %d %s", c.Workspace, c.Version, c.Head)
	}
	return ""
}

// ParseChange decodes a NOTIFY payload made by [Change.Payload].
func ParseChange(payload string) (Change, error) {
	f := strings.Fields(payload)
	bad := fmt.Errorf("store: bad change payload %q", payload)
	if len(f) < 3 || len(f[0]) != 1 {
		return Change{}, bad
	}
	c := Change{Kind: ChangeKind(f[0][0])}
	var ok bool
	if c.Workspace, ok = parseID(f[1]); !ok {
		return Change{}, bad
	}
	num := func(s string) (uint64, bool) { n, err := strconv.ParseUint(s, 10, 64); return n, err == nil }
	switch c.Kind {
	case ChangeEnvelopes, ChangeDrop:
		if len(f) != 4 {
			return Change{}, bad
		}
		g, ok1 := parseID(f[2])
		n, ok2 := num(f[3])
		if !ok1 || !ok2 {
			return Change{}, bad
		}
		c.Group, c.Seq = g, n
	case ChangeWelcome:
		if len(f) != 5 {
			return Change{}, bad
		}
		g, ok1 := parseID(f[2])
		n, ok2 := num(f[3])
		k, ok3 := parseID(f[4])
		if !ok1 || !ok2 || !ok3 {
			return Change{}, bad
		}
		c.Group, c.Seq, c.Head = g, n, k
	case ChangeAccessSet:
		n, ok := num(f[2])
		if len(f) != 3 || !ok {
			return Change{}, bad
		}
		c.Version = n
	case ChangeRoster:
		if len(f) != 4 {
			return Change{}, bad
		}
		n, ok1 := num(f[2])
		h, ok2 := parseID(f[3])
		if !ok1 || !ok2 {
			return Change{}, bad
		}
		c.Version, c.Head = n, h
	default:
		return Change{}, bad
	}
	return c, nil
}

func parseID(s string) (wire.ID, bool) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return wire.ID{}, false
	}
	return wire.IDFromBytes(b)
}
