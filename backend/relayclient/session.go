package relayclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"weald/backend/wire"
)

// session is one authenticated WebSocket connection.
type session struct {
	c         *Client
	ws        *websocket.Conn
	principal wire.AuthOK

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	pending map[uint32]chan wire.Frame
	err     error // why the session ended
	wmu     sync.Mutex
}

// connect dials and runs Hello → Challenge → Auth → AuthOK.
func (c *Client) connect(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.HandshakeTimeout)
	defer cancel()
	ws, err := dial(ctx, c.cfg.URL)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(c.cfg.MaxFrameBytes)
	fail := func(err error) (*session, error) {
		ws.CloseNow()
		return nil, err
	}
	exchange := func(id uint32, body wire.Body) (wire.Frame, error) {
		b, err := wire.EncodeFrame(wire.Frame{ID: id, Body: body})
		if err != nil {
			return wire.Frame{}, err
		}
		if err := ws.Write(ctx, websocket.MessageBinary, b); err != nil {
			return wire.Frame{}, fmt.Errorf("relayclient: handshake write: %w", err)
		}
		_, rb, err := ws.Read(ctx)
		if err != nil {
			return wire.Frame{}, fmt.Errorf("relayclient: handshake read: %w", err)
		}
		f, err := wire.DecodeFrame(rb)
		if err != nil {
			return wire.Frame{}, fmt.Errorf("relayclient: handshake: %w", err)
		}
		if eb, ok := f.Body.(*wire.ErrorBody); ok {
			return wire.Frame{}, eb.Err
		}
		return f, nil
	}
	f, err := exchange(c.newID(), &wire.Hello{Version: wire.ProtocolVersion, Workspace: c.cfg.Workspace})
	if err != nil {
		return fail(err)
	}
	ch, ok := f.Body.(*wire.Challenge)
	if !ok {
		return fail(fmt.Errorf("relayclient: expected a challenge, got frame 0x%02x", uint8(f.Body.FrameType())))
	}
	if err := c.pinRelay(ch.Relay); err != nil {
		return fail(err)
	}
	f, err = exchange(c.newID(), c.cfg.Credential.Answer(wire.AuthBinding{Workspace: c.cfg.Workspace, Nonce: ch.Nonce,
		Relay: ch.Relay, Host: dialledHost(c.cfg.URL)}))
	if err != nil {
		return fail(err)
	}
	ok2, isOK := f.Body.(*wire.AuthOK)
	if !isOK {
		return fail(fmt.Errorf("relayclient: expected AuthOK, got frame 0x%02x", uint8(f.Body.FrameType())))
	}
	s := &session{c: c, ws: ws, principal: *ok2, done: make(chan struct{}), pending: map[uint32]chan wire.Frame{}}
	s.ctx, s.cancel = context.WithCancel(c.ctx)
	go s.readLoop()
	return s, nil
}

// dial opens the WebSocket to the relay at url (normalized) and checks that
// the server speaks the relay protocol; a failure is an *AddressError.
func dial(ctx context.Context, url string) (*websocket.Conn, error) {
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
	if err == nil && ws.Subprotocol() != Subprotocol {
		ws.CloseNow()
		err = errNoSubprotocol
	}
	if err != nil {
		return nil, dialError(url, resp, err)
	}
	return ws, nil
}

// PublishGenesis publishes a freshly provisioned workspace's first access
// set (version 1, signed by the genesis key) before any principal can
// authenticate: Hello, Challenge, then AccessSetPublish in place of Auth.
func PublishGenesis(ctx context.Context, url string, set wire.AccessSet) error {
	return beforeAuth(ctx, url, set.Workspace, &wire.AccessSetPublish{Set: set}, "genesis")
}

// Provision asks the relay to record workspace ws with its genesis key
// (PROVISION, docs/protocol/wire.md "Provisioning"): Hello, Challenge, then
// Provision in place of Auth. token is the relay link's token (empty for a
// relay in open mode). A relay that provisions only by its operator answers
// provision/operator_only; one that already holds ws, workspace/exists.
func Provision(ctx context.Context, url string, ws wire.ID, genesisKey wire.ID, token []byte) error {
	return beforeAuth(ctx, url, ws, &wire.Provision{GenesisKey: genesisKey, Token: token}, "provision")
}

// Teardown asks the relay at url to delete workspace ws, provisioned but
// never given a trust root (TEARDOWN, docs/protocol/wire.md "Teardown"):
// Hello, Challenge, then Teardown in place of Auth, signed by sign over
// wire.TeardownContent of the relay id the Challenge names. A relay that
// holds ws with a trust root answers provision/active; one that does not
// hold it, workspace/unknown.
func Teardown(ctx context.Context, url string, ws wire.ID, sign func(relay wire.ID) []byte) error {
	var relay wire.ID
	return beforeAuthWith(ctx, url, ws, func(ch *wire.Challenge) wire.Body {
		relay = ch.Relay
		return &wire.Teardown{Signature: sign(relay)}
	}, "teardown")
}

// preAuthTimeout bounds one exchange before authentication (provision,
// genesis publish, teardown), as Config.HandshakeTimeout bounds a live
// connection's: a relay that takes the connection and never answers is
// an error the caller retries (context.DeadlineExceeded), not a wait
// without end. The engine's setup runs these under its lock.
var preAuthTimeout = 10 * time.Second

// beforeAuth sends Hello for ws and then req on a new connection, and
// returns the relay's refusal of either, if any.
func beforeAuth(ctx context.Context, url string, ws wire.ID, req wire.Body, what string) error {
	return beforeAuthWith(ctx, url, ws, func(*wire.Challenge) wire.Body { return req }, what)
}

// beforeAuthWith is beforeAuth with the request made from the relay's
// Challenge.
func beforeAuthWith(ctx context.Context, url string, ws wire.ID, req func(*wire.Challenge) wire.Body, what string) error {
	ctx, cancel := context.WithTimeout(ctx, preAuthTimeout)
	defer cancel()
	url, err := NormalizeAddress(url)
	if err != nil {
		return err
	}
	conn, err := dial(ctx, url)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	var body wire.Body = &wire.Hello{Version: wire.ProtocolVersion, Workspace: ws}
	for i := 0; i < 2; i++ {
		b, err := wire.EncodeFrame(wire.Frame{ID: uint32(i + 1), Body: body})
		if err != nil {
			return err
		}
		if err := conn.Write(ctx, websocket.MessageBinary, b); err != nil {
			return fmt.Errorf("relayclient: %s write: %w", what, err)
		}
		_, rb, err := conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("relayclient: %s read: %w", what, err)
		}
		f, err := wire.DecodeFrame(rb)
		if err != nil {
			return fmt.Errorf("relayclient: %s: %w", what, err)
		}
		if eb, ok := f.Body.(*wire.ErrorBody); ok {
			return protocolError(eb.Err)
		}
		if i == 0 {
			ch, ok := f.Body.(*wire.Challenge)
			if !ok {
				return fmt.Errorf("relayclient: %s: the relay answered Hello with frame %#x, not a challenge", what, f.Body.FrameType())
			}
			body = req(ch)
		}
	}
	conn.Close(websocket.StatusNormalClosure, "")
	return nil
}

// end records why the session ended (first reason wins) and fails pending
// requests.
func (s *session) end(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	s.cancel()
}

func (s *session) reason() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *session) close() {
	s.end(ErrClosed)
	s.ws.CloseNow()
}

func (s *session) readLoop() {
	defer close(s.done)
	defer s.ws.CloseNow()
	for {
		_, b, err := s.ws.Read(s.ctx)
		if err != nil {
			if st := websocket.CloseStatus(err); st != -1 {
				var ce websocket.CloseError
				if errors.As(err, &ce) && ce.Reason != "" {
					err = wire.Errorf(wire.Code(ce.Reason), "The relay closed the connection.")
				}
			}
			s.end(err)
			return
		}
		f, err := wire.DecodeFrame(b)
		if err != nil {
			s.end(fmt.Errorf("relayclient: bad frame from relay: %w", err))
			return
		}
		if f.ID != 0 {
			s.mu.Lock()
			ch := s.pending[f.ID]
			delete(s.pending, f.ID)
			s.mu.Unlock()
			if ch != nil {
				ch <- f
			}
			continue
		}
		switch b := f.Body.(type) {
		case *wire.EventEnvelopes:
			if len(b.Envelopes) == 0 {
				continue
			}
			if !s.c.emit(Event{Kind: EventEnvelopes, Group: b.Group, Envelopes: b.Envelopes}) {
				s.end(ErrClosed)
				return
			}
			s.c.delivered(b.Group, b.Envelopes[len(b.Envelopes)-1].Seq)
		case *wire.EventAccessSet:
			s.c.emit(Event{Kind: EventAccessSet, Version: b.Version})
		case *wire.EventRoster:
			s.c.emit(Event{Kind: EventRoster, Index: b.Index, Head: b.Head})
		case *wire.EventWelcome:
			s.c.emit(Event{Kind: EventWelcome, Group: b.Group, Index: b.Seq})
		case *wire.ErrorBody:
			// A connection-level error: the relay is about to close (revoked,
			// slow consumer, shutting down).
			s.end(b.Err)
		}
	}
}

// roundTrip sends one request and waits for its answer. A protocol error
// answer is returned as error; a lost connection is ErrDisconnected.
func (s *session) roundTrip(ctx context.Context, id uint32, body wire.Body) (wire.Body, error) {
	b, err := wire.EncodeFrame(wire.Frame{ID: id, Body: body})
	if err != nil {
		return nil, err
	}
	ch := make(chan wire.Frame, 1)
	s.mu.Lock()
	if s.pending == nil {
		s.mu.Unlock()
		return nil, ErrDisconnected
	}
	s.pending[id] = ch
	s.mu.Unlock()
	s.wmu.Lock()
	err = s.ws.Write(ctx, websocket.MessageBinary, b)
	s.wmu.Unlock()
	if err != nil {
		s.mu.Lock()
		if s.pending != nil {
			delete(s.pending, id)
		}
		s.mu.Unlock()
		if ctx.Err() != nil {
			// The write was interrupted: the connection is unusable now.
			s.end(ctx.Err())
			return nil, ctx.Err()
		}
		s.end(err)
		return nil, ErrDisconnected
	}
	select {
	case f, ok := <-ch:
		if !ok {
			return nil, ErrDisconnected
		}
		if eb, isErr := f.Body.(*wire.ErrorBody); isErr {
			return nil, protocolError(eb.Err)
		}
		return f.Body, nil
	case <-ctx.Done():
		s.mu.Lock()
		if s.pending != nil {
			delete(s.pending, id)
		}
		s.mu.Unlock()
		return nil, ctx.Err()
	}
}
