package relayclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/relayclient"
	"weald/backend/wire"
)

// A relay that takes the WebSocket and never answers (a hostile or hung
// relay) cannot hold a provision, a genesis publish or a teardown for ever:
// each ends with context.DeadlineExceeded within the pre-auth bound. Before
// the bound, each waited without end, and the engine's setup waits under
// its lock, so the app could not even show the workspace.
func TestSilentRelayDoesNotHoldAnExchangeBeforeAuth(t *testing.T) {
	restore := relayclient.SetPreAuthTimeout(300 * time.Millisecond)
	defer restore()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{relayclient.Subprotocol}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		<-stop // reads nothing, answers nothing
	}))
	defer srv.Close()
	defer close(stop)
	var ws wire.ID
	for _, c := range []struct {
		what string
		call func(context.Context) error
	}{
		{"provision", func(ctx context.Context) error {
			return relayclient.Provision(ctx, srv.URL, ws, wire.ID{1}, nil)
		}},
		{"genesis", func(ctx context.Context) error {
			return relayclient.PublishGenesis(ctx, srv.URL, wire.AccessSet{Workspace: ws, Version: 1})
		}},
		{"teardown", func(ctx context.Context) error {
			return relayclient.Teardown(ctx, srv.URL, ws, func(wire.ID) []byte { return make([]byte, 64) })
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := c.call(ctx)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s against a relay that never answers: %v, want a deadline", c.what, err)
			}
			if ctx.Err() != nil {
				t.Fatalf("%s ended only at the caller's own 20 s deadline: %v", c.what, err)
			}
		})
	}
}
