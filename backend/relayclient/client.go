// Package relayclient is the client of the Weald relay protocol that the
// engine and the CLI use: connect and authenticate over WebSocket, send
// batches and wait for acks, fetch, subscribe (an events channel), roster
// append and fetch, access-set publication, key packages, drop_before and
// stats. It reconnects with capped exponential backoff with jitter and
// re-subscribes from the last seq it delivered, so a subscription has no
// gaps across reconnects.
//
// Protocol: design/gaps.md "Relay protocol"; docs/protocol/wire.md, section
// "Connection, authentication and limits". Byte budget handling follows
// spec/lifecycle.md "The workspace byte budget": quota/log_budget_exhausted
// is a [*QuotaError] and is never retried.
package relayclient

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"weald/backend/wire"
)

// Subprotocol is the WebSocket subprotocol of protocol version 1.
const Subprotocol = "weald.relay.v1"

// Credential answers the relay's challenge: b names the workspace, the
// connection's nonce, the relay id the challenge carried and the host the
// client dialled, and the answer's signatures cover all four.
type Credential interface {
	Answer(b wire.AuthBinding) *wire.Auth
}

type keyCred struct {
	priv ed25519.PrivateKey
	kind wire.PrincipalKind
}

func (k keyCred) Answer(b wire.AuthBinding) *wire.Auth {
	return wire.SignChallenge(k.priv, k.kind, b)
}

// KeyCredential authenticates with a device, agent or recovery key.
func KeyCredential(priv ed25519.PrivateKey, kind wire.PrincipalKind) Credential {
	return keyCred{priv: priv, kind: kind}
}

type grantCred struct {
	priv, grant ed25519.PrivateKey
}

func (g grantCred) Answer(b wire.AuthBinding) *wire.Auth {
	return wire.SignGrantChallenge(g.priv, g.grant, b)
}

// GrantCredential authenticates a joining device (priv, not yet in the access
// set) carried by an invite's grant key (identity.InviteSecret.GrantKey),
// whose public key is the grant; the grant carries the device until an
// admin republishes the set with it. Neither the invite secret nor anything
// it derives but the grant key's signature reaches the relay.
func GrantCredential(priv, grant ed25519.PrivateKey) Credential {
	return grantCred{priv: priv, grant: grant}
}

// Config configures a Client.
type Config struct {
	URL        string // the relay's address, normalized by NormalizeAddress
	Workspace  wire.ID
	Credential Credential
	// RelayID is the relay id the workspace pinned on its first contact
	// with the relay (trust on first use). A relay that presents another is
	// refused with relay/changed before anything is signed for it. The zero
	// id pins none: the client takes the first id it is shown, keeps it
	// across reconnects, and RelayID reports it for the caller to persist.
	RelayID wire.ID
	Clock   Clock        // default: real time
	Rand    io.Reader    // backoff jitter; default crypto/rand
	Backoff Backoff      // default DefaultBackoff
	Logger  *slog.Logger // default: discard
	// HandshakeTimeout bounds one connect + authenticate (default 10 s).
	HandshakeTimeout time.Duration
	// EventBuffer is the events channel's capacity (default 256). When it is
	// full an envelope event holds the connection's reader (the relay then
	// disconnects the client as a slow consumer and it resumes from the last
	// delivered seq); other events are dropped.
	EventBuffer int
	// MaxFrameBytes bounds a frame received from the relay (default 128 MiB).
	MaxFrameBytes int64
}

// EventKind says what an Event reports.
type EventKind uint8

// Event kinds.
const (
	EventEnvelopes    EventKind = 1 // Group, Envelopes: newly accepted, ascending seq, gapless per group
	EventAccessSet    EventKind = 2 // Version: a new access set was accepted
	EventRoster       EventKind = 3 // Index, Head: the roster head moved
	EventConnected    EventKind = 4 // Principal: (re)connected and authenticated
	EventDisconnected EventKind = 5 // Err: the connection ended; the client reconnects unless Err is permanent
	EventWelcome      EventKind = 6 // Group, Index (the seq): a Welcome notice for this key was kept
)

// Event is one item of the events channel.
type Event struct {
	Kind      EventKind
	Group     wire.ID
	Envelopes []wire.SeqEnvelope
	Version   uint64
	Index     uint64
	Head      wire.ID
	Principal wire.AuthOK
	Err       error
}

// Client is a relay connection that survives reconnects. Its methods are
// safe for concurrent use.
type Client struct {
	cfg    Config
	clock  Clock
	rnd    io.Reader
	log    *slog.Logger
	events chan Event
	nextID atomic.Uint32

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	cur     *session
	ready   chan struct{} // closed while cur != nil or stopped
	stopErr error         // set when the client stops for good
	subs    map[wire.ID]uint64
	relayID wire.ID // pinned (Config.RelayID) or first seen; zero until then
}

// Dial connects and authenticates, retrying transient failures with backoff
// until ctx ends; a refusal that reconnecting cannot fix (a revoked or
// unknown key, a voided grant) is returned at once as a *wire.Error. The
// client then keeps itself connected until Close.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.Credential == nil {
		return nil, errors.New("relayclient: Config.Credential is required")
	}
	url, err := NormalizeAddress(cfg.URL)
	if err != nil {
		return nil, err
	}
	cfg.URL = url
	c := &Client{cfg: cfg, clock: cfg.Clock, rnd: cfg.Rand, log: cfg.Logger, subs: map[wire.ID]uint64{},
		ready: make(chan struct{}), relayID: cfg.RelayID}
	if c.clock == nil {
		c.clock = realClock{}
	}
	if c.rnd == nil {
		c.rnd = rand.Reader
	}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.cfg.Backoff == (Backoff{}) {
		c.cfg.Backoff = DefaultBackoff
	}
	if c.cfg.HandshakeTimeout <= 0 {
		c.cfg.HandshakeTimeout = 10 * time.Second
	}
	if c.cfg.EventBuffer <= 0 {
		c.cfg.EventBuffer = 256
	}
	if c.cfg.MaxFrameBytes <= 0 {
		c.cfg.MaxFrameBytes = 128 << 20
	}
	c.events = make(chan Event, c.cfg.EventBuffer)
	c.ctx, c.cancel = context.WithCancel(context.Background())

	var s *session
	for attempt := 0; ; attempt++ {
		var err error
		s, err = c.connect(ctx)
		if err == nil {
			break
		}
		// The relay answered with a refusal: report it rather than retry.
		// So did something that is not a relay.
		var we *wire.Error
		var ae *AddressError
		if errors.As(err, &we) || (errors.As(err, &ae) && ae.Code == CodeNotARelay) {
			c.cancel()
			return nil, err
		}
		select {
		case <-ctx.Done():
			c.cancel()
			return nil, errors.Join(err, ctx.Err()) // the reason first: its code leads the text
		case <-c.clock.After(c.cfg.Backoff.Delay(attempt, c.rnd)):
		}
	}
	c.install(s)
	c.wg.Add(1)
	go c.supervise(s)
	return c, nil
}

// Events returns the channel of pushes and connection changes. It is closed
// after Close, or when the client stops for good.
func (c *Client) Events() <-chan Event { return c.events }

// Principal returns who the current connection authenticated as.
func (c *Client) Principal() (wire.AuthOK, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return wire.AuthOK{}, false
	}
	return c.cur.principal, true
}

// Close ends the connection and stops reconnecting.
func (c *Client) Close() error {
	c.stop(ErrClosed)
	c.wg.Wait()
	return nil
}

// Err returns why the client stopped, or nil while it runs.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stopErr
}

func (c *Client) stop(err error) {
	c.mu.Lock()
	if c.stopErr == nil {
		c.stopErr = err
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
	}
	s := c.cur
	c.mu.Unlock()
	c.cancel()
	if s != nil {
		s.close()
	}
}

func (c *Client) install(s *session) {
	c.mu.Lock()
	c.cur = s
	select {
	case <-c.ready:
	default:
		close(c.ready)
	}
	c.mu.Unlock()
	c.emit(Event{Kind: EventConnected, Principal: s.principal})
}

// emit delivers an event unless the client is stopping. Envelope events
// wait for room (backpressure: a consumer that falls far behind is
// disconnected by the relay and resumes from its last seq); the others are
// advisory and are dropped when the channel is full, so a client whose owner
// never reads Events keeps working.
func (c *Client) emit(e Event) bool {
	if e.Kind != EventEnvelopes {
		select {
		case c.events <- e:
		case <-c.ctx.Done():
			return false
		default:
		}
		return true
	}
	select {
	case c.events <- e:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// supervise waits for each session to end and reconnects with backoff.
func (c *Client) supervise(s *session) {
	defer c.wg.Done()
	defer close(c.events)
	for {
		select {
		case <-s.done:
		case <-c.ctx.Done():
			s.close()
			<-s.done
			return
		}
		c.mu.Lock()
		c.cur = nil
		c.ready = make(chan struct{})
		c.mu.Unlock()
		serr := s.reason()
		if pe := permanent(serr); pe != nil {
			c.emit(Event{Kind: EventDisconnected, Err: pe})
			c.stop(pe)
			return
		}
		c.emit(Event{Kind: EventDisconnected, Err: serr})
		for attempt := 0; ; attempt++ {
			select {
			case <-c.ctx.Done():
				return
			case <-c.clock.After(c.cfg.Backoff.Delay(attempt, c.rnd)):
			}
			ctx, cancel := context.WithTimeout(c.ctx, c.cfg.HandshakeTimeout)
			ns, err := c.connect(ctx)
			cancel()
			if err != nil {
				if pe := permanent(err); pe != nil {
					c.emit(Event{Kind: EventDisconnected, Err: pe})
					c.stop(pe)
					return
				}
				c.log.Debug("reconnect failed", "attempt", attempt, "err", err)
				continue
			}
			s = ns
			break
		}
		c.install(s)
		c.resubscribe(s)
	}
}

func permanent(err error) error {
	var we *wire.Error
	if errors.As(err, &we) && permanentCode(we.Code) {
		return &PermanentError{Err: we}
	}
	return nil
}

// resubscribe renews every subscription from the last delivered seq.
func (c *Client) resubscribe(s *session) {
	c.mu.Lock()
	items := make([]wire.SubscribeItem, 0, len(c.subs))
	for g, last := range c.subs {
		items = append(items, wire.SubscribeItem{Group: g, AfterSeq: last})
	}
	c.mu.Unlock()
	if len(items) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.HandshakeTimeout)
	defer cancel()
	if _, err := s.roundTrip(ctx, c.newID(), &wire.Subscribe{Items: items}); err != nil {
		c.log.Warn("resubscribe failed", "err", err)
		s.close()
	}
}

func (c *Client) newID() uint32 {
	for {
		if id := c.nextID.Add(1); id != 0 {
			return id
		}
	}
}

// session returns the current connection, waiting for a reconnect.
func (c *Client) session(ctx context.Context) (*session, error) {
	for {
		c.mu.Lock()
		s, ready, stopErr := c.cur, c.ready, c.stopErr
		c.mu.Unlock()
		if stopErr != nil {
			return nil, stopErr
		}
		if s != nil {
			select {
			case <-s.done:
				// Ended, and the supervisor has not retired it yet.
				select {
				case <-c.clock.After(5 * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				continue
			default:
			}
			return s, nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// delivered records that envelopes up to seq of group were handed out.
func (c *Client) delivered(group wire.ID, seq uint64) {
	c.mu.Lock()
	if last, ok := c.subs[group]; ok && seq > last {
		c.subs[group] = seq
	}
	c.mu.Unlock()
}
