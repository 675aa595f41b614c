package relay

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"weald/backend/internal/ed25519batch"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Defaults for [Config] fields left zero.
const (
	DefaultMaxBatch   = 256
	DefaultFetchLimit = 256
	MaxFetchLimit     = 4096
	// MaxFetchBytes bounds the ct bytes of one FETCH answer (beyond its
	// first envelope).
	MaxFetchBytes = 4 << 20
	// MaxKeyPackages bounds the one-use key packages stored per device.
	MaxKeyPackages = 1024
)

// Config configures a [Service].
type Config struct {
	Store store.Store
	// Clock returns the current time; nil means time.Now.
	Clock func() time.Time
	// MaxLogBytes is the per-workspace byte budget on ct
	// (WEALD_RELAY_MAX_LOG_GB); 0 means no budget.
	MaxLogBytes uint64
	// RetentionDays is the warning threshold of WEALD_RELAY_RETENTION_DAYS
	// (0 = off). It never deletes anything.
	RetentionDays uint32
	// MaxBatch bounds the envelopes of one Send (limit/batch_size).
	MaxBatch int
	// MaxKeyPackageBytes bounds the bytes of all key packages a workspace
	// stores (limit/key_package_bytes); 0 means DefaultMaxKeyPackageBytes.
	MaxKeyPackageBytes uint64
	// ClaimBurst and ClaimInterval are the claim rate per owner key: a
	// burst, then one per interval; 0 means the defaults.
	ClaimBurst    int
	ClaimInterval time.Duration
	// MaxRosterBytes bounds the encoded roster operations of one workspace
	// (quota/roster_budget_exhausted); 0 means DefaultMaxRosterBytes.
	MaxRosterBytes uint64
	// MaxRosterFolds bounds the workspaces whose folded roster is kept in
	// memory (the least recently used goes first); 0 means
	// DefaultMaxRosterFolds.
	MaxRosterFolds int
	// Provisioning says who may provision a workspace over the wire
	// (PROVISION): nobody (ProvisionOperator, the zero value), holders of
	// a token (ProvisionToken) or anyone (ProvisionOpen). provision.go.
	Provisioning ProvisionMode
}

// Service is the accept path. It is safe for concurrent use; several
// Services (in several processes) may share one PostgreSQL store.
type Service struct {
	st            store.Store
	now           func() time.Time
	maxLogBytes   uint64
	retentionDays uint32
	maxBatch      int
	maxKPBytes    uint64
	claimBurst    int
	claimInterval time.Duration
	// maxRosterBytes bounds one workspace's stored roster operations.
	maxRosterBytes uint64
	// provisioning is Config.Provisioning.
	provisioning ProvisionMode

	mu      sync.Mutex
	cache   map[wire.ID]*cachedSet // parsed current access set per workspace
	rosters *rosterFolds           // folded rosters of recently used workspaces (rosterfolds.go)
	// Groups known to exist (a group is never deleted).
	exists map[groupKey]bool
	// Heads this Service's own commits reached (fastPlan; the store's gate
	// checks them, since other relay processes may have moved them on).
	known map[groupKey]*knownGroup
	// Prepared public keys for single-envelope sends (verifyOne).
	prepared map[wire.ID]*ed25519batch.PreparedKey
	// Claim allowance per (workspace, owner key).
	claims map[[2]wire.ID]*claimBucket
	// relayID is the relay's id, read once (relayid.go).
	relayID relayID

	// Sends accepted by store.Store.Send, and by the general path.
	fastSends, generalSends atomic.Uint64
	// sending counts the Sends in flight.
	sending atomic.Int64
	// checking admits the in-process sends' signature checks (see Send):
	// one fewer at once than there are Ps, so the goroutine holding the
	// store's one write transaction always finds one.
	checking chan struct{}
}

// AcceptPaths returns how many sends were accepted on the fast path
// (store.Store.Send) and how many by the general path.
func (s *Service) AcceptPaths() (fast, general uint64) {
	return s.fastSends.Load(), s.generalSends.Load()
}

type cachedSet struct {
	version uint64
	set     wire.AccessSet
	keys    map[wire.ID][]byte // key id → public key, every kind
	kinds   map[wire.ID]wire.PrincipalKind
	// acceptedAt is when the relay accepted the set (Unix seconds).
	acceptedAt int64
}

// New returns a Service over cfg.Store.
func New(cfg Config) *Service {
	s := &Service{st: cfg.Store, now: cfg.Clock, maxLogBytes: cfg.MaxLogBytes,
		retentionDays: cfg.RetentionDays, maxBatch: cfg.MaxBatch, maxKPBytes: cfg.MaxKeyPackageBytes,
		claimBurst: cfg.ClaimBurst, claimInterval: cfg.ClaimInterval, claims: map[[2]wire.ID]*claimBucket{}, cache: map[wire.ID]*cachedSet{}, exists: map[groupKey]bool{},
		rosters: newRosterFolds(cfg.MaxRosterFolds), maxRosterBytes: cfg.MaxRosterBytes, provisioning: cfg.Provisioning,
		known: map[groupKey]*knownGroup{}, prepared: map[wire.ID]*ed25519batch.PreparedKey{},
		checking: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxBatch <= 0 {
		s.maxBatch = DefaultMaxBatch
	}
	if s.maxKPBytes == 0 {
		s.maxKPBytes = DefaultMaxKeyPackageBytes
	}
	if s.claimBurst <= 0 {
		s.claimBurst = DefaultClaimBurst
	}
	if s.claimInterval <= 0 {
		s.claimInterval = DefaultClaimInterval
	}
	if s.maxRosterBytes == 0 {
		s.maxRosterBytes = DefaultMaxRosterBytes
	}
	return s
}

// Store returns the service's store.
func (s *Service) Store() store.Store { return s.st }

// Ping checks that the store answers.
func (s *Service) Ping(ctx context.Context) error {
	return s.st.View(ctx, func(tx store.Tx) error {
		_, err := tx.ListWorkspaces(ctx)
		return err
	})
}

func (s *Service) unix() int64 { return s.now().Unix() }

// errUnknownWorkspace is the refusal for a workspace the relay does not hold.
func errUnknownWorkspace(ws wire.ID) *wire.Error {
	return wire.Errorf(wire.CodeWorkspaceUnknown, "This relay holds no workspace with that id.", wire.B("workspace", ws[:]))
}

// lockWorkspace locks ws, mapping a missing row to workspace/unknown.
func lockWorkspace(ctx context.Context, tx store.Tx, ws wire.ID) (store.Workspace, error) {
	w, err := tx.LockWorkspace(ctx, ws)
	if errors.Is(err, store.ErrNotFound) {
		return w, errUnknownWorkspace(ws)
	}
	return w, err
}

// ProvisionWorkspace records a new workspace and its genesis public key
// (design/gaps.md "Invites and bootstrap"). The genesis key may sign the
// first access set, once.
func (s *Service) ProvisionWorkspace(ctx context.Context, ws wire.ID, genesisKey []byte) error {
	if !wire.PrimeOrderKey(genesisKey) {
		return wire.Errorf(wire.CodeMalformed, "A genesis key is a 32-byte canonical Ed25519 public key of the prime-order subgroup.")
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		err := tx.CreateWorkspace(ctx, ws, genesisKey, s.unix())
		if errors.Is(err, store.ErrExists) {
			return wire.Errorf(wire.CodeWorkspaceExists, "This relay already holds a workspace with that id.", wire.B("workspace", ws[:]))
		}
		return err
	})
}

// currentSet returns the parsed access set of ws at version, from the cache
// or the store (inside tx).
func (s *Service) currentSet(ctx context.Context, tx store.Tx, ws wire.ID, version uint64) (*cachedSet, error) {
	if version == 0 {
		return nil, wire.Errorf(wire.CodeNoAccessSet, "This workspace has no access set yet.")
	}
	s.mu.Lock()
	c := s.cache[ws]
	s.mu.Unlock()
	if c != nil && c.version == version {
		return c, nil
	}
	body, at, err := tx.AccessSet(ctx, ws, version)
	if err != nil {
		return nil, fmt.Errorf("load access set %d: %w", version, err)
	}
	set, err := wire.DecodeAccessSet(body)
	if err != nil {
		return nil, fmt.Errorf("stored access set %d: %w", version, err)
	}
	c = newCachedSet(set, at)
	s.mu.Lock()
	if old := s.cache[ws]; old == nil || old.version < c.version {
		s.cache[ws] = c
	}
	s.mu.Unlock()
	return c, nil
}

func newCachedSet(set wire.AccessSet, acceptedAt int64) *cachedSet {
	c := &cachedSet{version: set.Version, set: set, acceptedAt: acceptedAt, keys: map[wire.ID][]byte{}, kinds: set.KeyIDs()}
	for _, d := range set.Devices {
		c.keys[wire.KeyID(d.Pub)] = d.Pub
	}
	for _, k := range set.Agents {
		c.keys[wire.KeyID(k)] = k
	}
	for _, k := range set.Recovery {
		c.keys[wire.KeyID(k)] = k
	}
	return c
}

// viewSet returns the current access set of ws in a read transaction.
func (s *Service) viewSet(ctx context.Context, ws wire.ID) (*cachedSet, error) {
	var c *cachedSet
	err := s.st.View(ctx, func(tx store.Tx) error {
		w, err := tx.Workspace(ctx, ws)
		if errors.Is(err, store.ErrNotFound) {
			return errUnknownWorkspace(ws)
		}
		if err != nil {
			return err
		}
		c, err = s.currentSet(ctx, tx, ws, w.AccessVersion)
		return err
	})
	return c, err
}

// CurrentAccessSet returns the workspace's current access set and when the
// relay accepted it (ACCESS_SET_CURRENT): an admin republishes a set older
// than a day, so it stays fresher than the spec's 7 days.
func (s *Service) CurrentAccessSet(ctx context.Context, ws wire.ID) (*wire.AccessSetCurrent, error) {
	c, err := s.viewSet(ctx, ws)
	if err != nil {
		return nil, err
	}
	return &wire.AccessSetCurrent{Set: c.set, AcceptedAt: uint64(max(c.acceptedAt, 0))}, nil
}

// AccessSet returns the workspace's current access set.
func (s *Service) AccessSet(ctx context.Context, ws wire.ID) (wire.AccessSet, error) {
	c, err := s.viewSet(ctx, ws)
	if err != nil {
		return wire.AccessSet{}, err
	}
	return c.set, nil
}

// Changes delivers committed changes (from every relay process on the
// database, on PostgreSQL) until ctx ends; see store.Store.Changes.
func (s *Service) Changes(ctx context.Context) (<-chan store.Change, error) {
	return s.st.Changes(ctx)
}
