package hostilerelay

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/wire"
)

// Interceptor is relay A run by an operator who wants to act at relay B
// as A's clients (docs/security.md section 7, "AUTH bound to the relay"):
// for every client that connects to A it opens a connection to B for the
// same workspace and hands the client B's nonce in A's CHALLENGE, so that
// the AUTH the client makes for A answers B's challenge, then presents
// that AUTH to B and records what B answered.
type Interceptor struct {
	// URL is relay A's WebSocket endpoint (ws://127.0.0.1:port/v1/ws).
	URL string
	// Host is the host clients dial for A (127.0.0.1:port).
	Host string
	// ID is relay A's own relay id: the one a client that used A before
	// has pinned.
	ID wire.ID

	opts InterceptOptions
	busy sync.WaitGroup // connections being intercepted
	mu   sync.Mutex
	seen []Intercepted
}

// InterceptOptions say how A lies.
type InterceptOptions struct {
	// Target is relay B's WebSocket URL.
	Target string
	// ShowTargetID: A's CHALLENGE carries B's relay id (otherwise A's own).
	ShowTargetID bool
	// SpoofHost: A dials B with a Host header naming A's host, the host the
	// client dialled and signed (otherwise B's own).
	SpoofHost bool
}

// Intercepted is what one intercepted connection came to.
type Intercepted struct {
	// Signed: the client answered the challenge with an AUTH.
	Signed bool
	// Answer is B's answer to that AUTH (*wire.AuthOK or *wire.ErrorBody);
	// nil when the client signed nothing.
	Answer wire.Body
}

// Intercept starts relay A in front of relay B until the test ends.
func Intercept(t testing.TB, opts InterceptOptions) *Interceptor {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &Interceptor{Host: ln.Addr().String(), ID: wire.ID{0xA0, 0xA0}, opts: opts}
	a.URL = "ws://" + a.Host + "/v1/ws"
	hs := &http.Server{Handler: http.HandlerFunc(a.serve)}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return a
}

// Seen returns what the intercepted connections came to, first first,
// once those in progress have ended (each within 10 s).
func (a *Interceptor) Seen() []Intercepted {
	a.busy.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Intercepted(nil), a.seen...)
}

func (a *Interceptor) serve(w http.ResponseWriter, r *http.Request) {
	a.busy.Add(1)
	defer a.busy.Done()
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	client, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"weald.relay.v1"}})
	if err != nil {
		return
	}
	defer client.CloseNow()
	dial := &websocket.DialOptions{Subprotocols: []string{"weald.relay.v1"}}
	if a.opts.SpoofHost {
		dial.Host = a.Host
	}
	b, _, err := websocket.Dial(ctx, a.opts.Target, dial)
	if err != nil {
		return
	}
	defer b.CloseNow()
	hello, ok := read(ctx, client)
	if !ok || write(ctx, b, hello) != nil {
		return
	}
	f, ok := read(ctx, b)
	if !ok {
		return
	}
	if ch, isCh := f.Body.(*wire.Challenge); isCh && !a.opts.ShowTargetID {
		ch.Relay = a.ID
	}
	if write(ctx, client, f) != nil {
		return
	}
	got := Intercepted{}
	defer func() {
		a.mu.Lock()
		a.seen = append(a.seen, got)
		a.mu.Unlock()
	}()
	auth, ok := read(ctx, client)
	if !ok {
		return
	}
	if _, isAuth := auth.Body.(*wire.Auth); !isAuth {
		return
	}
	got.Signed = true
	if write(ctx, b, auth) != nil {
		return
	}
	answer, ok := read(ctx, b)
	if !ok {
		return
	}
	got.Answer = answer.Body
	_ = write(ctx, client, answer)
}

func read(ctx context.Context, c *websocket.Conn) (wire.Frame, bool) {
	_, b, err := c.Read(ctx)
	if err != nil {
		return wire.Frame{}, false
	}
	f, err := wire.DecodeFrame(b)
	return f, err == nil
}

func write(ctx context.Context, c *websocket.Conn, f wire.Frame) error {
	b, err := wire.EncodeFrame(f)
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageBinary, b)
}
