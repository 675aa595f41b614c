// Package server is the relay's WebSocket transport: connection
// authentication, request dispatch to the relay service, subscriptions and
// fan-out of accepted envelopes (in-process, and across relay processes
// through the store's change notifications), prompt closing of connections
// whose key left the access set, limits with codes, /healthz and /metrics.
//
// It implements the "Connection" and "Access set" parts of design/gaps.md
// "Relay protocol" and spec/lifecycle.md "Removing a person" step 5 and
// "Provisional grants". The protocol is in docs/protocol/wire.md, section
// "Connection, authentication and limits".
package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"weald/backend/wire"
)

// Limits bound what one client can ask of the relay. Each refusal has a code.
type Limits struct {
	MaxFrameBytes          int           // limit/frame_size {limit_bytes}
	MaxEnvelopesPerRequest int           // limit/batch_size {limit}
	MaxConnsPerKey         int           // limit/connections {limit}
	RequestsPerSecond      float64       // limit/rate {retry_after_ms}
	RequestBurst           int           //
	MaxSubscriptions       int           // per connection; limit/subscriptions {limit}
	FetchPageSize          int           // envelopes per catch-up fetch
	OutboundQueue          int           // frames queued per connection before it is a slow consumer
	HandshakeTimeout       time.Duration // Hello to AuthOK
	WriteTimeout           time.Duration // one frame write
	RecheckInterval        time.Duration // how often open connections are rechecked against the access set
	PingInterval           time.Duration // WebSocket ping to detect dead peers (a pong is due within WriteTimeout)

	// Before authentication (docs/protocol/wire.md "Before authentication").
	MaxPreAuthConns   int     // unauthenticated connections at once; HTTP 503 beyond
	MaxPreAuthPerAddr int     // of them from one address (an IPv6 /64); HTTP 429 beyond
	PreAuthFrameBytes int     // largest frame read before AuthOK; a larger one closes with 1009 unread
	GenesisPerSecond  float64 // bootstrap publishes per address and second
	GenesisBurst      int     //
}

// DefaultLimits are used for zero fields.
var DefaultLimits = Limits{
	MaxFrameBytes:          wire.MaxCTSize + 1<<20,
	MaxEnvelopesPerRequest: 256,
	MaxConnsPerKey:         16,
	RequestsPerSecond:      200,
	RequestBurst:           400,
	MaxSubscriptions:       4096,
	FetchPageSize:          500,
	OutboundQueue:          1024,
	HandshakeTimeout:       10 * time.Second,
	WriteTimeout:           10 * time.Second,
	RecheckInterval:        time.Second,
	PingInterval:           30 * time.Second,
	MaxPreAuthConns:        1024,
	MaxPreAuthPerAddr:      32,
	PreAuthFrameBytes:      64 << 10,
	GenesisPerSecond:       0.2,
	GenesisBurst:           4,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxFrameBytes > 0 {
		d.MaxFrameBytes = l.MaxFrameBytes
	}
	if l.MaxEnvelopesPerRequest > 0 {
		d.MaxEnvelopesPerRequest = l.MaxEnvelopesPerRequest
	}
	if l.MaxConnsPerKey > 0 {
		d.MaxConnsPerKey = l.MaxConnsPerKey
	}
	if l.RequestsPerSecond > 0 {
		d.RequestsPerSecond = l.RequestsPerSecond
	}
	if l.RequestBurst > 0 {
		d.RequestBurst = l.RequestBurst
	}
	if l.MaxSubscriptions > 0 {
		d.MaxSubscriptions = l.MaxSubscriptions
	}
	if l.FetchPageSize > 0 {
		d.FetchPageSize = l.FetchPageSize
	}
	if l.OutboundQueue > 0 {
		d.OutboundQueue = l.OutboundQueue
	}
	if l.HandshakeTimeout > 0 {
		d.HandshakeTimeout = l.HandshakeTimeout
	}
	if l.WriteTimeout > 0 {
		d.WriteTimeout = l.WriteTimeout
	}
	if l.RecheckInterval > 0 {
		d.RecheckInterval = l.RecheckInterval
	}
	if l.PingInterval > 0 {
		d.PingInterval = l.PingInterval
	}
	if l.MaxPreAuthConns > 0 {
		d.MaxPreAuthConns = l.MaxPreAuthConns
	}
	if l.MaxPreAuthPerAddr > 0 {
		d.MaxPreAuthPerAddr = l.MaxPreAuthPerAddr
	}
	if l.PreAuthFrameBytes > 0 {
		d.PreAuthFrameBytes = l.PreAuthFrameBytes
	}
	if l.GenesisPerSecond > 0 {
		d.GenesisPerSecond = l.GenesisPerSecond
	}
	if l.GenesisBurst > 0 {
		d.GenesisBurst = l.GenesisBurst
	}
	return d
}

// Config configures a Server.
type Config struct {
	Backend Backend
	Limits  Limits
	Clock   func() time.Time // default time.Now
	Rand    io.Reader        // challenge nonces; default crypto/rand
	Logger  *slog.Logger     // default: discard
	Metrics *Metrics         // default: NewMetrics()
	// PublicHosts are the hosts (an authority: "name" or "name:port")
	// clients reach this relay at. An AUTH must name one of them. Empty:
	// the AUTH must name the Host header of the request that opened the
	// connection (behind a reverse proxy that rewrites Host, set these;
	// weald-relay's -public-host, WEALD_RELAY_PUBLIC_HOST).
	PublicHosts []string
}

// Server serves the relay protocol over WebSocket at /v1/ws, plus /healthz
// and /metrics.
type Server struct {
	backend Backend
	lim     Limits
	now     func() time.Time
	rand    io.Reader
	log     *slog.Logger
	metrics *Metrics
	hub     *hub
	pre     *preAuth
	heads   heads
	mux     *http.ServeMux
	hosts   map[string]bool // CanonicalHost of Config.PublicHosts; nil: the request's Host

	ctx    context.Context
	cancel context.CancelFunc
	// wg counts the work Close waits for: the background loops, every
	// goroutine started with spawn and every WebSocket being served (track).
	// bgMu and closing order a spawn or track against Close's Wait: once
	// Close began, nothing is added.
	wg      sync.WaitGroup
	bgMu    sync.Mutex
	closing bool
	ready   chan struct{} // closed once the change feed is listening (or known absent)

	// statsMu guards stats: a workspace whose gauges are being refreshed
	// off the request path (statsSoon), true when another refresh is owed.
	statsMu sync.Mutex
	stats   map[wire.ID]bool
}

// New returns a server; call Run to start its background work (change
// notifications and access-set rechecks) and Close to stop it.
func New(cfg Config) *Server {
	s := &Server{backend: cfg.Backend, lim: cfg.Limits.withDefaults(), now: cfg.Clock, rand: cfg.Rand,
		log: cfg.Logger, metrics: cfg.Metrics}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	for _, h := range cfg.PublicHosts {
		if c := wire.CanonicalHost(h); c != "" {
			if s.hosts == nil {
				s.hosts = map[string]bool{}
			}
			s.hosts[c] = true
		}
	}
	s.pre = newPreAuth(s.lim.MaxPreAuthConns, s.lim.MaxPreAuthPerAddr, s.lim.GenesisPerSecond, s.lim.GenesisBurst)
	s.hub = newHub(s.lim.MaxConnsPerKey, func(d int) { s.metrics.Connections.Add(float64(d)) })
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ready = make(chan struct{})
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("/v1/ws", s.serveWS)
	s.mux.HandleFunc("/healthz", s.serveHealth)
	s.mux.Handle("/metrics", loopbackOnly(s.metrics.Handler()))
	s.wg.Add(2)
	go s.watchChanges()
	go s.recheckLoop()
	return s
}

// Ready is closed once the server accepts connections (its change feed
// listens, or there is none to follow).
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Metrics returns the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close closes every connection with relay/shutting_down, stops the
// background work and waits for it and for every connection's handler to
// end, so the caller may close the backend once it returns. It does not
// close the backend.
func (s *Server) Close() {
	s.bgMu.Lock()
	s.closing = true
	s.bgMu.Unlock()
	s.cancel()
	for _, ws := range s.hub.workspaces() {
		for _, m := range s.hub.connections(ws) {
			m.(*conn).closeWith(websocket.StatusGoingAway, string(wire.CodeRelayShuttingDown))
		}
	}
	s.wg.Wait()
}

// track counts one piece of work Close must wait for; false once Close
// began (then the caller does nothing). The caller calls s.wg.Done.
func (s *Server) track() bool {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	return true
}

// spawn runs f on a goroutine Close waits for (nothing once Close began).
func (s *Server) spawn(f func()) {
	if !s.track() {
		return
	}
	go func() {
		defer s.wg.Done()
		f()
	}()
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.ready:
	default:
		http.Error(w, "starting: change notifications are not listening yet", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.backend.Ping(ctx); err != nil {
		// The error's text stays in the log: it can name hosts, users and
		// paths, and /healthz answers anyone who can reach the listener.
		s.log.Warn("health check: database does not answer", "err", err)
		http.Error(w, "unhealthy: the database does not answer", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "ok\n")
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// The handler of a hijacked connection is not waited for by
	// http.Server.Shutdown; Close waits for it instead.
	if !s.track() {
		http.Error(w, "relay is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.wg.Done()
	// Accept connections only once the change feed listens, so nothing
	// accepted by another relay process after a subscriber's catch-up read
	// can go unnoticed.
	select {
	case <-s.ready:
	case <-time.After(s.lim.HandshakeTimeout):
		http.Error(w, "relay is starting: change notifications are not listening yet", http.StatusServiceUnavailable)
		return
	case <-r.Context().Done():
		return
	case <-s.ctx.Done():
		http.Error(w, "relay is shutting down", http.StatusServiceUnavailable)
		return
	}
	addr := clientAddr(r.RemoteAddr)
	if ok, perAddr := s.pre.admit(addr); !ok {
		if perAddr {
			s.metrics.Refused.WithLabelValues("http/pre_auth_per_address").Inc()
			http.Error(w, "too many unauthenticated connections from this address", http.StatusTooManyRequests)
		} else {
			s.metrics.Refused.WithLabelValues("http/pre_auth_total").Inc()
			http.Error(w, "too many unauthenticated connections", http.StatusServiceUnavailable)
		}
		return
	}
	admitted := true
	releasePre := func() {
		if admitted {
			admitted = false
			s.pre.release(addr)
		}
	}
	defer releasePre()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:       []string{Subprotocol},
		InsecureSkipVerify: true, // non-browser clients; authentication is the signed challenge
	})
	if err != nil {
		return
	}
	// Before authentication a frame larger than PreAuthFrameBytes closes
	// the connection with status 1009 without being read.
	ws.SetReadLimit(int64(s.lim.PreAuthFrameBytes))
	ctx, cancel := context.WithCancel(s.ctx)
	c := &conn{s: s, ws: ws, ctx: ctx, cancel: cancel, out: make(chan []byte, s.lim.OutboundQueue),
		subs: map[wire.ID]*subState{}, addr: addr, host: r.Host}
	defer c.closeWith(websocket.StatusNormalClosure, "")
	if !s.handshake(c, releasePre) {
		return
	}
	// The transport's hard limit is twice the frame limit: a frame between
	// the two is drained and refused with limit/frame_size, one beyond it
	// closes the connection with status 1009.
	ws.SetReadLimit(int64(2*s.lim.MaxFrameBytes) + frameHeaderLen)
	defer s.hub.remove(c)
	go c.writeLoop()
	go c.keepalive()
	c.rate = newBucket(s.lim.RequestsPerSecond, s.lim.RequestBurst, s.now())
	s.readLoop(c)
	c.waitKicked()
}

// loopbackOnly serves h only to peers on a loopback address. /metrics names
// workspaces (their ids label the byte and retention series), and the
// listener is public; a scraper on another host goes through a local agent
// or proxy. The peer is the socket's, never a forwarded header.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !peerIP(r.RemoteAddr).IsLoopback() {
			http.Error(w, "metrics are served to loopback addresses only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Subprotocol is the WebSocket subprotocol name of this protocol version.
const Subprotocol = "weald.relay.v1"

// handshake runs Hello → Challenge → Auth → AuthOK (or Error and close).
// authenticated frees the connection's pre-authentication place; it runs
// before AuthOK goes out, so a client that has read AuthOK finds its place
// already free.
func (s *Server) handshake(c *conn, authenticated func()) bool {
	ctx, cancel := context.WithTimeout(c.ctx, s.lim.HandshakeTimeout)
	defer cancel()
	writeNow := func(f wire.Frame) error {
		b, err := wire.EncodeFrame(f)
		if err != nil {
			return err
		}
		return c.ws.Write(ctx, websocket.MessageBinary, b)
	}
	refuse := func(id uint32, e *wire.Error) bool {
		s.metrics.Refused.WithLabelValues(string(e.Code)).Inc()
		_ = writeNow(wire.Frame{ID: id, Body: &wire.ErrorBody{Err: e}})
		c.closeWith(websocket.StatusPolicyViolation, string(e.Code))
		return false
	}
	f, ok := s.readHandshakeFrame(ctx, c, refuse)
	if !ok {
		return false
	}
	hello, isHello := f.Body.(*wire.Hello)
	if !isHello {
		return refuse(f.ID, wire.Errorf(wire.CodeAuthRequired, "The first frame on a connection must be Hello."))
	}
	if hello.Version != wire.ProtocolVersion {
		return refuse(f.ID, wire.Errorf(wire.CodeBadVersion, "This relay speaks a different protocol version.",
			wire.U("version", uint64(wire.ProtocolVersion))))
	}
	var nonce wire.ID
	if _, err := io.ReadFull(s.rand, nonce[:]); err != nil {
		return refuse(f.ID, wire.Errorf(wire.CodeInternal, "The relay could not make a challenge."))
	}
	relayID, err := s.backend.RelayID(ctx)
	if err != nil {
		s.log.Warn("handshake: relay id", "err", err)
		return refuse(f.ID, wire.Errorf(wire.CodeInternal, "The relay could not make a challenge."))
	}
	if err := writeNow(wire.Frame{ID: f.ID, Body: &wire.Challenge{Nonce: nonce, Relay: relayID}}); err != nil {
		return false
	}
	// Bootstrap: before authenticating, a client may publish a workspace's
	// first access set (version 1), once per connection and a few times a
	// minute per address. It needs no connection credential: the relay
	// accepts it only if the workspace's genesis key signed it, and
	// consumes that key (design/gaps.md "Invites and bootstrap"). The
	// backend refuses anything else from cached state before it checks a
	// signature or opens a write transaction.
	f, ok = s.readHandshakeFrame(ctx, c, refuse)
	if !ok {
		return false
	}
	// Provisioning: before authenticating, a client may ask the relay to
	// record the workspace (token or open mode), once per connection and
	// within a per-address allowance like the bootstrap publish's.
	if prov, isProv := f.Body.(*wire.Provision); isProv {
		if !s.pre.takeProvision(c.addr, s.now()) {
			return refuse(f.ID, wire.Errorf(wire.CodeLimitRate,
				"Too many provisions from this address; wait a few seconds and try again.",
				wire.U("retry_after_ms", uint64(1000/s.lim.GenesisPerSecond))))
		}
		if err := s.backend.Provision(ctx, hello.Workspace, prov.GenesisKey[:], prov.Token); err != nil {
			return refuse(f.ID, asWireError(err))
		}
		if err := writeNow(wire.Frame{ID: f.ID, Body: &wire.Provisioned{}}); err != nil {
			return false
		}
		if f, ok = s.readHandshakeFrame(ctx, c, refuse); !ok {
			return false
		}
	}
	// Teardown: the client holding a provisioned workspace's genesis key
	// asks the relay to delete it while no trust root was ever admitted
	// (relay.Service.Teardown); the connection ends after the answer.
	if td, isTD := f.Body.(*wire.Teardown); isTD {
		if !s.pre.takeTeardown(c.addr, s.now()) {
			return refuse(f.ID, wire.Errorf(wire.CodeLimitRate,
				"Too many teardowns from this address; wait a few seconds and try again.",
				wire.U("retry_after_ms", uint64(1000/s.lim.GenesisPerSecond))))
		}
		if err := s.backend.Teardown(ctx, hello.Workspace, td.Signature); err != nil {
			return refuse(f.ID, asWireError(err))
		}
		_ = writeNow(wire.Frame{ID: f.ID, Body: &wire.TornDown{}})
		c.closeWith(websocket.StatusNormalClosure, "torn down")
		return false
	}
	if pub, isPub := f.Body.(*wire.AccessSetPublish); isPub {
		if pub.Set.Version != 1 {
			return refuse(f.ID, wire.Errorf(wire.CodeAuthRequired,
				"Only the first access set (version 1) may be published before authenticating."))
		}
		if !s.pre.takePublish(c.addr, s.now()) {
			return refuse(f.ID, wire.Errorf(wire.CodeLimitRate,
				"Too many publishes before authentication from this address; slow down.",
				wire.U("retry_after_ms", uint64(1000/s.lim.GenesisPerSecond))))
		}
		v, err := s.backend.PublishAccessSet(ctx, hello.Workspace, Principal{}, pub.Set)
		if err != nil {
			return refuse(f.ID, asWireError(err))
		}
		if err := writeNow(wire.Frame{ID: f.ID, Body: &wire.AccessSetAccepted{Version: v}}); err != nil {
			return false
		}
		if f, ok = s.readHandshakeFrame(ctx, c, refuse); !ok {
			return false
		}
	}
	auth, isAuth := f.Body.(*wire.Auth)
	if !isAuth {
		return refuse(f.ID, wire.Errorf(wire.CodeAuthRequired, "After Hello (and at most one provision and one bootstrap publish) the next frame must be Auth."))
	}
	host, e := s.servedHost(c, auth)
	if e != nil {
		return refuse(f.ID, e)
	}
	p, err := s.backend.Authenticate(ctx, wire.AuthBinding{Workspace: hello.Workspace, Nonce: nonce, Relay: relayID, Host: host}, auth)
	if err != nil {
		return refuse(f.ID, asWireError(err))
	}
	c.workspace, c.key, c.kind, c.pub = hello.Workspace, p.Principal, p.Kind, auth.Key
	if e := s.hub.add(c); e != nil {
		return refuse(f.ID, e)
	}
	authenticated()
	// The access set may have changed between Authenticate and add; the
	// recheck loop closes such a connection within RecheckInterval.
	s.metrics.ConnsTotal.WithLabelValues(p.Kind.String()).Inc()
	if err := writeNow(wire.Frame{ID: f.ID, Body: &p}); err != nil {
		s.hub.remove(c)
		return false
	}
	return true
}

// servedHost returns the host an AUTH must name on connection c: the one
// it names if it is a configured public host, else the request's Host
// header. A client that dialled another host made its signature for
// another relay (or a proxy in front of this one rewrites Host and
// PublicHosts is not set): auth/wrong_relay.
func (s *Server) servedHost(c *conn, a *wire.Auth) (string, *wire.Error) {
	if s.hosts != nil {
		if s.hosts[a.Host] {
			return a.Host, nil
		}
		return "", wire.Errorf(wire.CodeAuthWrongRelay,
			fmt.Sprintf("This authentication was made for the relay at %q, which is not a public host of this relay.", a.Host),
			wire.T("host", a.Host))
	}
	served := wire.CanonicalHost(c.host)
	if served == "" || served != a.Host {
		return "", wire.Errorf(wire.CodeAuthWrongRelay,
			fmt.Sprintf("This authentication was made for the relay at %q, but the connection reached %q; "+
				"a proxy in front of the relay must pass the Host header through, or the relay must be given its public host.", a.Host, served),
			wire.T("host", served))
	}
	return served, nil
}

func (s *Server) readHandshakeFrame(ctx context.Context, c *conn, refuse func(uint32, *wire.Error) bool) (wire.Frame, bool) {
	b, err := c.readFrame(ctx)
	var over *errOversize
	switch {
	case errors.As(err, &over):
		return wire.Frame{}, refuse(over.id, frameSizeError(s.lim.MaxFrameBytes))
	case errors.Is(err, errText):
		return wire.Frame{}, refuse(0, wire.Errorf(wire.CodeMalformed, "Frames are binary WebSocket messages."))
	case err != nil:
		return wire.Frame{}, false
	}
	f, err := wire.DecodeFrame(b)
	if err != nil {
		return wire.Frame{}, refuse(f.ID, decodeError(err))
	}
	return f, true
}

func frameSizeError(limit int) *wire.Error {
	return wire.Errorf(wire.CodeLimitFrameSize, "The frame is larger than this relay accepts.",
		wire.U("limit_bytes", uint64(limit)))
}

func decodeError(err error) *wire.Error {
	var uf *wire.UnknownFrameError
	if errors.As(err, &uf) {
		return wire.Errorf(wire.CodeUnknownFrame, "The relay does not know this frame type.",
			wire.U("type", uint64(uf.Type)))
	}
	return wire.Errorf(wire.CodeMalformed, "The frame could not be decoded: "+err.Error())
}

// asWireError turns a backend error into a protocol error; anything that is
// not already one is internal (and its text is not sent).
func asWireError(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return wire.Errorf(wire.CodeInternal, "The relay hit an internal error; retry the request later.")
}
