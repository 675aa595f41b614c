package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sync"
	"time"

	"github.com/coder/websocket"

	"weald/backend/wire"
)

// frameHeaderLen is type (1) + request id (4).
const frameHeaderLen = 5

// conn is one WebSocket connection.
type conn struct {
	s      *Server
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	out    chan []byte
	rate   *bucket
	addr   netip.Addr // the address the connection counts against before it authenticates
	host   string     // the Host header of the request that opened it (servedHost)

	// Set once at authentication, read-only afterwards.
	workspace wire.ID
	key       wire.ID
	kind      wire.PrincipalKind
	pub       []byte

	mu      sync.Mutex
	subs    map[wire.ID]*subState
	kicked  bool
	kickEnd chan struct{} // closed once a kick's reason and close went out
	closeMu sync.Once
}

// subState tracks one subscribed group: the highest seq pushed, and whether
// a catch-up fetch is running or needed.
type subState struct {
	last     uint64
	catching bool
	missed   bool
}

func (c *conn) principal() (wire.ID, wire.ID, wire.PrincipalKind) { return c.workspace, c.key, c.kind }

// enqueue queues an encoded frame for the writer, waiting while the queue is
// full (responses are never dropped).
func (c *conn) enqueue(b []byte) error {
	if c.isKicked() {
		return errKicked
	}
	select {
	case c.out <- b:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

// reply encodes and queues a response to request id.
func (c *conn) reply(id uint32, body wire.Body) error {
	b, err := wire.EncodeFrame(wire.Frame{ID: id, Body: body})
	if err != nil {
		b, _ = wire.EncodeFrame(wire.Frame{ID: id, Body: &wire.ErrorBody{Err: wire.Errorf(wire.CodeInternal,
			"The relay could not encode its answer.")}})
	}
	return c.enqueue(b)
}

// replyErr answers request id with a protocol error and counts it.
func (c *conn) replyErr(id uint32, e *wire.Error) error {
	c.s.metrics.Refused.WithLabelValues(string(e.Code)).Inc()
	return c.reply(id, &wire.ErrorBody{Err: e})
}

// push queues an event without blocking (hub fan-out). It keeps the
// subscription gapless: envelopes at or below the last pushed seq are
// skipped, and a gap (a push that does not continue from the last seq)
// schedules a catch-up fetch instead.
func (c *conn) push(group wire.ID, envs []wire.SeqEnvelope, frame func() []byte) bool {
	c.mu.Lock()
	st := c.subs[group]
	if st == nil || c.kicked {
		c.mu.Unlock()
		return true
	}
	if st.catching {
		st.missed = true
		c.mu.Unlock()
		return true
	}
	i := 0
	for i < len(envs) && envs[i].Seq <= st.last {
		i++
	}
	whole := i == 0
	envs = envs[i:]
	if len(envs) == 0 {
		c.mu.Unlock()
		return true
	}
	if envs[0].Seq != st.last+1 {
		st.catching, st.missed = true, false
		c.mu.Unlock()
		go c.catchUp(group)
		return true
	}
	var b []byte
	if whole {
		b = frame()
	} else {
		b, _ = wire.EncodeFrame(wire.Frame{Body: &wire.EventEnvelopes{Group: group, Envelopes: envs}})
	}
	if b == nil {
		c.mu.Unlock()
		return true
	}
	select {
	case c.out <- b:
		st.last = envs[len(envs)-1].Seq
		c.mu.Unlock()
		c.s.metrics.Delivered.Add(float64(len(envs)))
		return true
	default:
		c.mu.Unlock()
		return false
	}
}

// catchUp fetches the group's envelopes after the last pushed seq and pushes
// them, repeating while live pushes arrived meanwhile, then resumes live
// pushes.
func (c *conn) catchUp(group wire.ID) {
	for round := 0; ; round++ {
		c.mu.Lock()
		st := c.subs[group]
		if st == nil || c.kicked || c.ctx.Err() != nil {
			c.mu.Unlock()
			return
		}
		st.missed = false
		after := st.last
		c.mu.Unlock()

		res, err := c.s.backend.Fetch(c.ctx, c.workspace, group, after, uint32(c.s.lim.FetchPageSize))
		if err != nil {
			if c.ctx.Err() == nil {
				c.s.log.Warn("subscription catch-up failed", "group", group.Short(), "err", err)
				c.kick(wire.Errorf(wire.CodeInternal, "The relay could not read the group's log for a subscription; reconnect."))
			}
			return
		}
		if len(res.Envelopes) > 0 {
			b, err := wire.EncodeFrame(wire.Frame{Body: &wire.EventEnvelopes{Group: group, Envelopes: res.Envelopes}})
			if err == nil {
				if c.enqueue(b) != nil {
					return
				}
				c.s.metrics.Delivered.Add(float64(len(res.Envelopes)))
			}
		}
		c.mu.Lock()
		st = c.subs[group]
		if st == nil {
			c.mu.Unlock()
			return
		}
		if n := len(res.Envelopes); n > 0 {
			st.last = res.Envelopes[n-1].Seq
		}
		// Dropped or tombstoned seqs up to Through: continue above them.
		st.last = max(st.last, res.Through)
		if res.More || st.missed {
			c.mu.Unlock()
			continue
		}
		st.catching = false
		c.mu.Unlock()
		return
	}
}

// kick tells the client why and closes the connection promptly. From the
// moment it is called nothing more is served: no request read afterwards is
// executed, no answer or push is queued, and frames already queued are not
// written (only the reason, then the close).
func (c *conn) kick(e *wire.Error) {
	c.mu.Lock()
	if c.kicked {
		c.mu.Unlock()
		return
	}
	c.kicked = true
	done := make(chan struct{})
	c.kickEnd = done
	c.mu.Unlock()
	c.s.metrics.Refused.WithLabelValues(string(e.Code)).Inc()
	b, _ := wire.EncodeFrame(wire.Frame{Body: &wire.ErrorBody{Err: e}})
	// Write the reason directly (the queue may be full), bounded in time,
	// then close with the code as the close reason.
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_ = c.ws.Write(ctx, websocket.MessageBinary, b)
		c.closeWith(websocket.StatusPolicyViolation, string(e.Code))
	}()
}

// errKicked is what queueing returns on a kicked connection.
var errKicked = errors.New("connection kicked")

func (c *conn) isKicked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kicked
}

// waitKicked waits, if the connection was kicked, until the reason and the
// close went out, so that no other close overtakes them.
func (c *conn) waitKicked() {
	c.mu.Lock()
	done := c.kickEnd
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

// closeWith closes the WebSocket with a status and reason and cancels the
// connection's context; the close handshake is bounded.
func (c *conn) closeWith(status websocket.StatusCode, reason string) {
	c.closeMu.Do(func() {
		c.cancel()
		done := make(chan struct{})
		go func() {
			_ = c.ws.Close(status, reason)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Second):
			_ = c.ws.CloseNow()
		}
	})
}

// writeLoop sends queued frames until the connection ends.
func (c *conn) writeLoop() {
	for {
		select {
		case <-c.ctx.Done():
			return
		case b := <-c.out:
			if c.isKicked() {
				return
			}
			ctx, cancel := context.WithTimeout(c.ctx, c.s.lim.WriteTimeout)
			err := c.ws.Write(ctx, websocket.MessageBinary, b)
			cancel()
			if err != nil {
				c.closeWith(websocket.StatusGoingAway, "write failed")
				return
			}
		}
	}
}

// keepalive pings the client every PingInterval and closes a connection
// whose peer does not answer within WriteTimeout, so a dead peer does not
// hold one of its key's connection slots.
func (c *conn) keepalive() {
	t := time.NewTicker(c.s.lim.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(c.ctx, c.s.lim.WriteTimeout)
		err := c.ws.Ping(ctx)
		cancel()
		if err != nil {
			c.closeWith(websocket.StatusGoingAway, "no pong")
			return
		}
	}
}

// errOversize marks a message larger than MaxFrameBytes; the message was
// consumed and the connection stays usable.
type errOversize struct {
	id   uint32
	size int
}

func (e *errOversize) Error() string { return fmt.Sprintf("frame of %d bytes or more", e.size) }

// readFrame reads one message. Messages over MaxFrameBytes are drained (up
// to the transport's hard limit) and reported as *errOversize with the
// request id taken from the frame header.
func (c *conn) readFrame(ctx context.Context) ([]byte, error) {
	typ, r, err := c.ws.Reader(ctx)
	if err != nil {
		return nil, err
	}
	limit := c.s.lim.MaxFrameBytes
	buf, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(buf) > limit {
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			return nil, err
		}
		var id uint32
		if len(buf) >= frameHeaderLen {
			id = uint32(buf[1])<<24 | uint32(buf[2])<<16 | uint32(buf[3])<<8 | uint32(buf[4])
		}
		return nil, &errOversize{id: id, size: len(buf) + int(n)}
	}
	if typ != websocket.MessageBinary {
		return nil, errText
	}
	return buf, nil
}

var errText = errors.New("text message")
