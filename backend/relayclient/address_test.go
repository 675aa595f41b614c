package relayclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/errcode"
	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// Every form a person types a relay address in (issue 15 "Relay addresses
// as people type them").
func TestNormalizeAddressForms(t *testing.T) {
	t.Parallel()
	ok := []struct{ in, want string }{
		{"127.0.0.1:8080", "ws://127.0.0.1:8080/v1/ws"},
		{"  localhost:8080  ", "ws://localhost:8080/v1/ws"},
		{"localhost", "ws://localhost/v1/ws"},
		{"[::1]:8080", "ws://[::1]:8080/v1/ws"},
		{"::1", "ws://[::1]/v1/ws"},
		{"relay.example.com", "wss://relay.example.com/v1/ws"},
		{"relay.example.com:8443", "wss://relay.example.com:8443/v1/ws"},
		{"Relay.Example.COM:8443/", "wss://relay.example.com:8443/v1/ws"},
		{"192.168.1.20:8080", "wss://192.168.1.20:8080/v1/ws"},
		{"[2001:db8::1]:8080", "wss://[2001:db8::1]:8080/v1/ws"},
		{"ws://127.0.0.1:8080", "ws://127.0.0.1:8080/v1/ws"},
		{"ws://127.0.0.1:8080/", "ws://127.0.0.1:8080/v1/ws"},
		{"ws://127.0.0.1:8080/v1/ws", "ws://127.0.0.1:8080/v1/ws"},
		{"ws://127.0.0.1:8080/v1/ws/", "ws://127.0.0.1:8080/v1/ws"},
		{"WS://192.168.1.20:8080", "ws://192.168.1.20:8080/v1/ws"},
		{"wss://relay.example.com", "wss://relay.example.com/v1/ws"},
		{"wss://relay.example.com/v1/ws", "wss://relay.example.com/v1/ws"},
		{"http://127.0.0.1:8080", "ws://127.0.0.1:8080/v1/ws"},
		{"http://127.0.0.1:8080//", "ws://127.0.0.1:8080/v1/ws"},
		{"http://10.0.0.5:8080/v1/ws", "ws://10.0.0.5:8080/v1/ws"},
		{"https://relay.example.com", "wss://relay.example.com/v1/ws"},
		{"HTTPS://relay.example.com/", "wss://relay.example.com/v1/ws"},
		{"https://example.com/weald/v1/ws", "wss://example.com/weald/v1/ws"},
		{"http://[::1]:8080", "ws://[::1]:8080/v1/ws"},
		{"\tws://[::1]:8080/v1/ws\n", "ws://[::1]:8080/v1/ws"},
	}
	for _, c := range ok {
		got, err := relayclient.NormalizeAddress(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if again, err := relayclient.NormalizeAddress(got); err != nil || again != got {
			t.Errorf("%q is not a fixed point: %q, %v", got, again, err)
		}
	}
	bad := []string{
		"", "   ", "ftp://relay.example.com", "file:///tmp/x", "weald://invite?v=1", "mailto:a@b",
		"ws://", "http://", "ws:///v1/ws", "://host", ":8080",
		"host:0", "host:65536", "host:99999", "host:http", "host:-1", "ws://host:", "host:08080",
		"ws://user:pw@host:8080", "ws://host:8080/v1/ws?x=1", "ws://host:8080/#frag", "ws://host:8080?",
		"relay example.com", "ws://[::1", "[::1:8080", "ws://ho%73t:80",
	}
	for _, in := range bad {
		got, err := relayclient.NormalizeAddress(in)
		var ae *relayclient.AddressError
		if !errors.As(err, &ae) || ae.Code != relayclient.CodeBadAddress {
			t.Errorf("%q: %q, %v; want %s", in, got, err, relayclient.CodeBadAddress)
			continue
		}
		if !strings.HasPrefix(err.Error(), "relay/bad_address: ") || !strings.HasSuffix(err.Error(), ".") {
			t.Errorf("%q: %q is not code: sentence", in, err)
		}
	}
}

// FuzzNormalizeAddress: untrusted text never panics; what is accepted is a
// ws:// or wss:// URL that normalizes to itself.
func FuzzNormalizeAddress(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", "http://[::1]:1/", "wss://a.b/v1/ws", "x://", "[", "::1", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := relayclient.NormalizeAddress(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got, "ws://") && !strings.HasPrefix(got, "wss://") {
			t.Fatalf("%q → %q", s, got)
		}
		if again, err := relayclient.NormalizeAddress(got); err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", s, got, again, err)
		}
	})
}

// A relay typed as http://127.0.0.1:PORT (no path) is reached; a plain web
// server, or a WebSocket server that does not speak the relay protocol, is
// said to be no Weald relay at once (no retries until the deadline); a port
// where nothing listens is unreachable.
func TestDialAddressAsTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	e.url = "http://" + e.addr // as typed: no path, http
	e.provision(relay.New(relay.Config{Store: e.st}))
	c := e.dial(e.alice)
	if p, ok := c.Principal(); !ok || p.Kind != wire.PrincipalDevice {
		t.Fatalf("principal %+v, %v", p, ok)
	}

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	}))
	defer web.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil) // any WebSocket, no relay subprotocol
		if err == nil {
			ws.CloseNow()
		}
	}))
	defer other.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()

	for _, c := range []struct {
		addr string
		code errcode.Code
	}{
		{web.URL, relayclient.CodeNotARelay},
		{other.URL, relayclient.CodeNotARelay},
		{"ws://" + dead, relayclient.CodeUnreachable},
		{"gopher://" + dead, relayclient.CodeBadAddress},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := relayclient.Dial(ctx, relayclient.Config{URL: c.addr, Workspace: e.ws,
			Credential: relayclient.KeyCredential(e.alice.priv, wire.PrincipalDevice),
			Backoff:    relayclient.Backoff{Min: 20 * time.Millisecond, Max: 100 * time.Millisecond}})
		early := ctx.Err() == nil
		cancel()
		var ae *relayclient.AddressError
		if !errors.As(err, &ae) || ae.Code != c.code || !strings.HasPrefix(err.Error(), string(c.code)+": ") {
			t.Errorf("%s: %v, want %s", c.addr, err, c.code)
			continue
		}
		if c.code != relayclient.CodeUnreachable && !early {
			t.Errorf("%s: %s was retried until the deadline", c.addr, c.code)
		}
		if c.code == relayclient.CodeNotARelay && !strings.Contains(ae.Sentence, "not a Weald relay") {
			t.Errorf("%s: sentence %q", c.addr, ae.Sentence)
		}
		err = relayclient.PublishGenesis(context.Background(), c.addr, e.set)
		if c.code != relayclient.CodeUnreachable && (!errors.As(err, &ae) || ae.Code != c.code) {
			t.Errorf("genesis at %s: %v, want %s", c.addr, err, c.code)
		}
	}
}
