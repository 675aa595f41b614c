package engine

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"weald/backend/errcode"
	"weald/backend/identity"
	"weald/backend/mls"
	"weald/backend/relayclient"
	"weald/backend/roster"
	"weald/backend/store"
	"weald/backend/wire"
)

// hexID is a 32-byte id that is hex in JSON.
type hexID [32]byte

func (h hexID) hex() string                   { return hex.EncodeToString(h[:]) }
func (h hexID) MarshalText() ([]byte, error)  { return []byte(h.hex()), nil }
func (h *hexID) UnmarshalText(b []byte) error { return parseHexID(string(b), (*[32]byte)(h)) }

func parseHexID(s string, out *[32]byte) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		return fmt.Errorf("engine: %q is not a 64-hex-digit id", s)
	}
	copy(out[:], b)
	return nil
}

// Options configure an Engine.
type Options struct {
	// Dir is the workspace's local state directory (created if missing).
	Dir string
	// Rand is the source of all randomness; nil means crypto/rand.
	Rand io.Reader
	// Clock is the time source; nil means time.Now.
	Clock func() time.Time
	// OnEvent receives events (called with the engine's lock held: do not
	// call back into the engine from it; hand the event to another goroutine).
	OnEvent func(Event)
	// Provision records a new workspace and its genesis key at the relay
	// (an operator step: weald-relay provision). Nil means the relay must
	// already hold it; CreateWorkspace then stops with ErrNotProvisioned
	// until it does.
	Provision func(ctx context.Context, relayURL string, ws wire.ID, genesisPub []byte) error
	// Crash, if set, is called after each bootstrap step, each self-join
	// step (JoinStep*) and once a new channel's bundles are published
	// ("channel_published"), with the step's name; a non-nil error aborts
	// there, as a crash or a transient failure would (tests).
	Crash func(step string) error
	// DisplayName is the user's name, asked at create and join and written
	// into the roster (set-name) once the user is in it. Optional.
	DisplayName string
}

// meta is the workspace record, persisted as the store record
// store.RecordWorkspace (sealed, docs/protocol/store.md).
type meta struct {
	Workspace   hexID  `json:"workspace"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name,omitempty"` // this user's name, as asked at create or join
	Relay       string `json:"relay"`
	// RelayID is the id the relay presented on this device's first
	// connection for this workspace (trust on first use): a relay at the
	// same address presenting another is refused (relay/changed,
	// docs/security.md section 7). Zero until the first connection.
	RelayID     hexID                  `json:"relay_id"`
	User        hexID                  `json:"user"`
	DeviceSeed  []byte                 `json:"device_seed"`
	GenesisSeed []byte                 `json:"genesis_seed,omitempty"` // the creator only, until the genesis set is accepted
	Creator     bool                   `json:"creator"`
	Steps       map[string]bool        `json:"steps"`
	Muted       map[string]bool        `json:"muted"`
	Invite      *inviteUse             `json:"invite,omitempty"`     // a redemption in progress or done
	Recovery    *recoveryUse           `json:"recovery,omitempty"`   // a recovery onto this device, in progress or done
	SelfJoins   map[string][]time.Time `json:"self_joins,omitempty"` // per group (hex): recent self-join commits
	// Creating is a channel creation whose roster record is not known to
	// have landed (CreateChannel).
	Creating *channelCreation `json:"creating,omitempty"`
	// Phrase is the recovery phrase until it has been handed out once and
	// its principal is in the roster (a creator's phrase is drawn with its
	// keys, so it can be shown before the bootstrap registers it).
	Phrase string `json:"phrase,omitempty"`
	// PhraseTaken: Phrase was handed out (TakeRecoveryPhrase) before its
	// principal was registered; it is forgotten once it is.
	PhraseTaken bool `json:"phrase_taken,omitempty"`
	// RotatePhrase is the new phrase of a recovery rotation in progress
	// (recovery_rotate.go), until the rotation has registered it.
	RotatePhrase string `json:"rotate_phrase,omitempty"`
	// RefusalsSeen is the id of the last refused access-set publication
	// this (admin) device read from the relay (takeover.go).
	RefusalsSeen uint64 `json:"refusals_seen,omitempty"`
	// ReadUpTo is the read marker per channel (hex group id): the time of
	// the newest message read.
	ReadUpTo map[string]time.Time `json:"read_up_to,omitempty"`
	// KeyPackages is the format of this device's key-package stock on the
	// relay (keyPackageFormat); an older stock is drained and replaced.
	KeyPackages int `json:"key_packages,omitempty"`
	// LastResort holds the references of this device's last-resort key
	// packages (RFC 9420 §16.8), newest last: the current one and the one
	// it replaced, whose Welcomes may still be in flight.
	LastResort [][]byte `json:"last_resort,omitempty"`
	// LastResortUsed: a Welcome used the current last-resort package; the
	// next top-up replaces it.
	LastResortUsed bool `json:"last_resort_used,omitempty"`
	// HealthDismissed: health checks the user dismissed (health.go).
	HealthDismissed map[string]bool `json:"health_dismissed,omitempty"`
	// NearBudgetSince: when the relay's STATS first showed the workspace at
	// 80 % of its byte budget or more; zero below it (compact.go).
	NearBudgetSince time.Time `json:"near_budget_since,omitzero"`
	// SoloAdminNagged: when this device told its person, once, that they
	// are the only admin (soloadmin.go); zero until then.
	SoloAdminNagged time.Time `json:"solo_admin_nagged,omitzero"`
	// Agent is set when this engine runs as an agent (agent.go): DeviceSeed
	// then holds the agent key's seed, and User is zero.
	Agent *agentMeta `json:"agent,omitempty"`
}

// Engine is one workspace's running client.
type Engine struct {
	mu   sync.Mutex
	opts Options
	rand io.Reader
	now  func() time.Time
	db   *db
	meta meta
	// signAs, when set, signs roster appends instead of the device key
	// (a recovery principal's recover-device and approve-device).
	signAs roster.Signer
	// revokedOld: the older devices this recovered device revoked (recover.go).
	revokedOld []string
	// wrapOpens counts the recovery wraps a recovery tried to open
	// (joinByWrap): one per group joined when the directory names it.
	wrapOpens int
	dev       identity.DevicePrivate
	devID     identity.DeviceID // for an agent: its agent id
	edKey     ed25519.PrivateKey
	// agentKey is set when this engine runs as an agent (dev is then zero).
	agentKey identity.AgentPrivate

	// nameless counts userName's answers without a name ("user 1a2b3c4d"),
	// so an alert's view can tell that it named someone not named yet.
	nameless atomic.Int64

	roster *roster.State
	groups map[identity.GroupID]*group
	shards map[shardKey]*shard
	client *relayclient.Client
	mlsCfg *mls.Config
	alerts []Alert // kept in the store (alerts.go)
	// att: head attestations received and sent (attest.go), kept in the
	// store; attestEvery and silenceAfter are their intervals.
	att                       *attestState
	attestEvery, silenceAfter time.Duration
	// deferSaves, while a batch of commits merges, collects the groups
	// processEnvelopes changed instead of persisting each in its own
	// transaction (flushDeferred writes them in one).
	deferSaves map[*group]bool
	// prefetched: first pages a batch fetched together (prefetch.go).
	prefetched map[fetchKey]*wire.Envelopes
	// rosterStuck names where the relay's roster stopped continuing this
	// client's at the last roster sync (an operation refused, a gap or a
	// fork); rosterBreak is that alert's code.
	rosterStuck *AlertOp
	rosterBreak string
	// barriers: each group's highest drop barrier this client checked
	// against its checkpoint (gaps.go).
	barriers map[wire.ID]uint64
	live     chan relayclient.Event // set while Run is running
	liveMu   sync.Mutex
	missed   atomic.Bool // an event was dropped: Run must sync
	// offline: the relay connection dropped and is not back (false
	// before the first dial); workCancel (under liveMu) cancels Run's
	// work in progress when it drops.
	offline    atomic.Bool
	workCancel context.CancelFunc
	// outbox: messages waiting to be sent, oldest first; kick wakes Run.
	outbox []outboxItem
	kick   chan struct{}
	// sentAs maps outbox ids of messages sent this session to their ids.
	sentAs map[string]string
	// rootFresh: the root was caught up at the start of this join loop.
	rootFresh bool
	// storageChecked: when the steward last read the relay's STATS.
	storageChecked time.Time
	// healthLast: when the health check last ran (health.go).
	healthLast time.Time
	// tamper, in tests only, alters a checkpoint being written (compact.go).
	tamper func(stage string, d *checkpointDraft)
}

// Errors of the engine, each a stable code and one sentence.
var (
	ErrNotProvisioned = errcode.New("workspace/not_provisioned", "the relay does not hold this workspace yet; provision it (weald-relay provision) and run the command again")
	ErrNotReady       = errcode.New("workspace/not_ready", "the workspace has not finished setting up; run sync")
	ErrNoChannel      = errcode.New("channel/unknown", "there is no channel with that name or id")
	ErrNotMember      = errcode.New("channel/not_member", "this device has not joined that channel yet; run sync")
	ErrExists         = errcode.New("workspace/exists", "a workspace is already stored in this directory")
	ErrNoWorkspace    = errcode.New("workspace/none", "no workspace is stored in this directory")
	ErrBadPage        = errcode.New("history/bad_page", "a page of history holds from 1 to 1000 messages")
)

func (o *Options) defaults() {
	if o.Rand == nil {
		o.Rand = cryptoRand{}
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
}

func newEngine(ctx context.Context, opts Options) (*Engine, error) {
	opts.defaults()
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, err
	}
	existed := Exists(opts.Dir)
	d, err := openDB(ctx, filepath.Join(opts.Dir, "state.db"))
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, rand: opts.Rand, now: opts.Clock, db: d, groups: map[identity.GroupID]*group{},
		shards: map[shardKey]*shard{}, kick: make(chan struct{}, 1), attestEvery: AttestEvery, silenceAfter: AttestSilence}
	e.mlsCfg = &mls.Config{Rand: e.rand, Now: e.now, Credential: e.authLeaf}
	if !existed { // a stored workspace is indexed once loaded (Open): rows count by its user
		if err := e.buildIndex(ctx); err != nil {
			d.close()
			return nil, err
		}
	}
	return e, nil
}

// Exists reports whether dir holds a workspace.
func Exists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "state.db"))
	return err == nil
}

// Open loads the workspace stored in opts.Dir. It does not connect; call
// Sync (or Run) to connect, resume any incomplete setup and catch up.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if !Exists(opts.Dir) {
		return nil, ErrNoWorkspace
	}
	e, err := newEngine(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := e.load(ctx); err != nil {
		e.db.close()
		return nil, err
	}
	if err := e.buildIndex(ctx); err != nil {
		e.db.close()
		return nil, err
	}
	if err := e.seedReadMarks(ctx); err != nil {
		e.db.close()
		return nil, err
	}
	return e, nil
}

func (e *Engine) load(ctx context.Context) error {
	b, ok, err := e.db.record(ctx, store.RecordWorkspace)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNoWorkspace
	}
	if err := json.Unmarshal(b, &e.meta); err != nil {
		return fmt.Errorf("engine: stored workspace record: %w", err)
	}
	if err := e.initKeys(); err != nil {
		return err
	}
	if err := e.loadAlerts(ctx); err != nil {
		return err
	}
	e.roster = roster.New(roster.Options{})
	ops, err := e.db.rosterOps(ctx)
	if err != nil {
		return err
	}
	for i, op := range ops {
		if err := e.roster.ApplyBytes(op); err != nil {
			return fmt.Errorf("engine: stored roster operation %d: %w", i, err)
		}
	}
	if err := e.loadOutbox(ctx); err != nil {
		return err
	}
	return e.loadGroups(ctx)
}

func (e *Engine) initKeys() error {
	if e.meta.Agent != nil {
		if err := e.initAgentKey(); err != nil {
			return err
		}
	} else if err := e.initDeviceKey(); err != nil {
		return err
	}
	e.edKey = ed25519.NewKeyFromSeed(e.meta.DeviceSeed)
	if e.meta.Steps == nil {
		e.meta.Steps = map[string]bool{}
	}
	if e.meta.Muted == nil {
		e.meta.Muted = map[string]bool{}
	}
	return nil
}

func (e *Engine) initDeviceKey() error {
	k, err := identity.PrivateFromSeed[identity.Device](e.meta.DeviceSeed)
	if err != nil {
		return fmt.Errorf("engine: device key: %w", err)
	}
	e.dev = k
	e.devID = identity.DeviceIDOf(k.Public())
	return nil
}

func (e *Engine) saveMeta(t *txn) error {
	b, err := json.Marshal(&e.meta)
	if err != nil {
		return err
	}
	return t.putRecord(store.RecordWorkspace, b)
}

func (e *Engine) persistMeta(ctx context.Context) error {
	return e.db.update(ctx, func(t *txn) error { return e.saveMeta(t) })
}

// Close disconnects and closes the local state.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		e.client.Close()
		e.client = nil
	}
	return e.db.close()
}

// WorkspaceID returns the workspace id in hex.
func (e *Engine) WorkspaceID() string { return e.meta.Workspace.hex() }

// DeviceID returns this device's id.
func (e *Engine) DeviceID() identity.DeviceID { return e.devID }

func (e *Engine) wsID() identity.WorkspaceID { return identity.WorkspaceID(e.meta.Workspace) }

func (e *Engine) crash(step string) error {
	if e.opts.Crash != nil {
		return e.opts.Crash(step)
	}
	return nil
}

// connect dials the relay with the device key, or with the invite grant
// while the device is not yet in the access set.
func (e *Engine) connect(ctx context.Context) error {
	if e.client != nil {
		return nil
	}
	cfg, err := e.dialConfig(ctx)
	if err != nil {
		return err
	}
	c, err := relayclient.Dial(ctx, cfg)
	if err != nil {
		return err
	}
	if err := e.pinRelay(ctx, c); err != nil {
		c.Close()
		return err
	}
	e.install(c)
	return nil
}

// pinRelay keeps the relay id c was shown on this workspace's first
// connection; later dials pass it as relayclient.Config.RelayID.
func (e *Engine) pinRelay(ctx context.Context, c *relayclient.Client) error {
	if e.meta.RelayID != (hexID{}) {
		return nil
	}
	e.meta.RelayID = hexID(c.RelayID())
	return e.persistMeta(ctx)
}

// dialLive is connect for Run: it dials without holding e.mu, so the
// engine's reads answer while the relay is unreachable.
func (e *Engine) dialLive(ctx context.Context) error {
	e.mu.Lock()
	if e.client != nil {
		_, up := e.client.Principal()
		e.offline.Store(!up)
		e.mu.Unlock()
		e.emit(Event{Kind: EventConnection, Connected: up})
		return nil
	}
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	cfg, err := e.dialConfig(gctx)
	cancel()
	e.mu.Unlock()
	if err != nil {
		return err
	}
	c, err := relayclient.Dial(ctx, cfg)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		c.Close()
		return nil
	}
	if err := e.pinRelay(ctx, c); err != nil {
		c.Close()
		return err
	}
	e.install(c)
	return nil
}

func (e *Engine) dialConfig(ctx context.Context) (relayclient.Config, error) {
	cred := relayclient.KeyCredential(e.edKey, wire.PrincipalDevice)
	if e.agentMode() {
		cred = relayclient.KeyCredential(e.edKey, wire.PrincipalAgent)
	}
	if e.meta.Invite != nil {
		set, err := e.grantNeeded(ctx)
		if err != nil {
			return relayclient.Config{}, err
		}
		if set {
			if cred, err = grantCredential(e.edKey, e.meta.Invite.Secret); err != nil {
				return relayclient.Config{}, err
			}
		}
	}
	return relayclient.Config{URL: e.meta.Relay, Workspace: wire.ID(e.meta.Workspace), Credential: cred, Rand: e.rand,
		RelayID: wire.ID(e.meta.RelayID)}, nil
}

func (e *Engine) install(c *relayclient.Client) {
	e.client = c
	e.offline.Store(false)
	go e.drainEvents(c)
	e.emit(Event{Kind: EventConnection, Connected: true})
}

// drainEvents forwards the client's events to Run while it runs and drops
// them otherwise (Sync catches up by fetching).
func (e *Engine) drainEvents(c *relayclient.Client) {
	for ev := range c.Events() {
		switch ev.Kind {
		case relayclient.EventDisconnected:
			e.offline.Store(true)
			e.liveMu.Lock()
			if e.workCancel != nil {
				e.workCancel()
			}
			e.liveMu.Unlock()
		case relayclient.EventConnected:
			e.offline.Store(false)
		}
		e.liveMu.Lock()
		ch := e.live
		e.liveMu.Unlock()
		if ch == nil {
			continue
		}
		select {
		case ch <- ev:
		default:
			// Never block the connection's reader (its answers share
			// it): Run catches up by fetching instead.
			e.missed.Store(true)
		}
	}
	// The client stopped for good (a permanent refusal, such as the invite
	// grant it dialled with being spent once the device is in the access
	// set). Unless Close did it, forget it, so the next sync dials afresh
	// with the credential that fits now; Run's ticker starts that sync.
	// Keeping the stopped client left the engine offline until a restart.
	e.mu.Lock()
	dropped := e.client == c
	if dropped {
		e.client = nil
	}
	e.mu.Unlock()
	if dropped {
		e.offline.Store(false)
		e.missed.Store(true)
	}
}

// grantCredential answers the relay's challenge for the joining device
// with the grant key derived from the link's invite secret; the secret
// itself never leaves this process (docs/protocol/invites.md).
func grantCredential(device ed25519.PrivateKey, secret []byte) (relayclient.Credential, error) {
	sec, err := identity.InviteSecretFromBytes(secret)
	if err != nil {
		return nil, err
	}
	gk, err := sec.GrantKey()
	if err != nil {
		return nil, err
	}
	return relayclient.GrantCredential(device, ed25519.NewKeyFromSeed(gk.Seed())), nil
}

// grantNeeded reports whether the device must still connect with its grant
// (true until a connection with the device key succeeds).
func (e *Engine) grantNeeded(ctx context.Context) (bool, error) {
	if e.meta.Steps["device_in_access_set"] {
		return false, nil
	}
	c, err := relayclient.Dial(ctx, relayclient.Config{URL: e.meta.Relay, Workspace: wire.ID(e.meta.Workspace),
		Credential: relayclient.KeyCredential(e.edKey, wire.PrincipalDevice), Rand: e.rand,
		Backoff: relayclient.Backoff{Min: time.Millisecond, Max: time.Millisecond}, RelayID: wire.ID(e.meta.RelayID)})
	if err == nil {
		c.Close()
		e.meta.Steps["device_in_access_set"] = true
		if e.meta.RelayID == (hexID{}) {
			e.meta.RelayID = hexID(c.RelayID())
		}
		return false, e.persistMeta(ctx)
	}
	var we *wire.Error
	if errors.As(err, &we) && (we.Code == wire.CodeAuthUnknownKey) {
		return true, nil
	}
	return false, err
}
