package relayclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"weald/backend/errcode"
	"weald/backend/internal/hostilerelay"
	"weald/backend/relay"
	"weald/backend/relay/relaytest"
	"weald/backend/relay/server"
	"weald/backend/relayclient"
	"weald/backend/wire"
)

// relayB starts the honest relay B of e's workspace (alice and bob in its
// access set) with the server configuration cfg (its Backend filled in).
func relayB(t *testing.T, e *env, cfg server.Config) *relay.Service {
	t.Helper()
	svc := relay.New(relay.Config{Store: e.st})
	cfg.Backend = svc
	relaytest.Serve(t, relaytest.Listen(t, e.addr), server.New(cfg))
	e.provision(svc)
	return svc
}

// An AUTH a client made for relay A answers no challenge of relay B (issue
// 11 finding 7, docs/security.md section 7). A's operator hands A's
// clients the nonce of a connection it opened to B, in the workspace B
// serves them in, and presents their AUTH to B as theirs; B must refuse it
// however A dresses the exchange up, and a client that pinned A's relay id
// signs nothing for a relay presenting another. On the main this started
// from (the AUTH signed the workspace, the nonce and the key only) B
// accepted each of these AUTHs as alice.
func TestAuthForOneRelayIsRefusedByAnother(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bID, err := relayB(t, e, server.Config{}).RelayID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Control: alice reaches B directly.
	if c := e.dial(e.alice); c.RelayID() != bID {
		t.Fatalf("direct dial pinned %x, want B's id %x", c.RelayID(), bID)
	}

	for _, c := range []struct {
		name   string
		opts   hostilerelay.InterceptOptions
		pinned bool   // alice used A before: she pinned A's relay id
		public bool   // B is configured with its public host
		want   string // alice's error code, B's answer to the AUTH if she signed
	}{
		{"A shows its own id to a client that pinned it; dials B as A's host", hostilerelay.InterceptOptions{SpoofHost: true}, true, false, string(wire.CodeAuthBadSignature)},
		{"A shows its own id to a client that pinned it; dials B honestly", hostilerelay.InterceptOptions{}, true, false, string(wire.CodeAuthWrongRelay)},
		{"A shows B's id to a client that pinned A", hostilerelay.InterceptOptions{ShowTargetID: true, SpoofHost: true}, true, false, string(relayclient.CodeRelayChanged)},
		{"first contact through A, which dials B honestly", hostilerelay.InterceptOptions{ShowTargetID: true}, false, false, string(wire.CodeAuthWrongRelay)},
		{"first contact through A, which dials B as A's host; B knows its public host", hostilerelay.InterceptOptions{ShowTargetID: true, SpoofHost: true}, false, true, string(wire.CodeAuthWrongRelay)},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := e.url
			if c.public {
				target = publicRelayB(t, e)
			}
			c.opts.Target = target
			a := hostilerelay.Intercept(t, c.opts)
			cfg := relayclient.Config{URL: a.URL, Workspace: e.ws,
				Credential: relayclient.KeyCredential(e.alice.priv, wire.PrincipalDevice),
				Backoff:    relayclient.Backoff{Min: time.Millisecond, Max: time.Millisecond}}
			if c.pinned {
				cfg.RelayID = a.ID
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cl, err := relayclient.Dial(ctx, cfg)
			if err == nil {
				cl.Close()
				t.Fatal("alice connected through A: B accepted the AUTH she made for A")
			}
			if code, _ := errcode.Of(err); string(code) != c.want {
				t.Fatalf("alice's dial: %v, want %s", err, c.want)
			}
			seen := a.Seen()
			if len(seen) != 1 {
				t.Fatalf("A intercepted %d connections, want 1", len(seen))
			}
			got := seen[0]
			if c.want == string(relayclient.CodeRelayChanged) {
				if got.Signed {
					t.Fatal("alice signed a challenge for a relay presenting another relay id than the one she pinned")
				}
				return
			}
			eb, refused := got.Answer.(*wire.ErrorBody)
			if !got.Signed || !refused {
				t.Fatalf("B's answer to the AUTH alice made for A: %#v (signed %v), want a refusal", got.Answer, got.Signed)
			}
			if string(eb.Err.Code) != c.want {
				t.Fatalf("B refused with %s, want %s", eb.Err.Code, c.want)
			}
		})
	}
}

// publicRelayB starts a second server of relay B's database that is
// configured with its public host (the one clients dial for it) and
// returns its URL.
func publicRelayB(t *testing.T, e *env) string {
	t.Helper()
	ln := relaytest.Listen(t, "127.0.0.1:0")
	relaytest.Serve(t, ln, server.New(server.Config{Backend: relay.New(relay.Config{Store: e.st}), PublicHosts: []string{ln.Addr().String()}}))
	return "ws://" + ln.Addr().String() + "/v1/ws"
}

// A relay that presents another relay id than the one pinned is refused
// before anything is signed, and the error says so (relay/changed), also
// on a reconnect of a client that was shown one id and then another.
func TestChangedRelayIDIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	relayB(t, e, server.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := relayclient.Dial(ctx, relayclient.Config{URL: e.url, Workspace: e.ws, RelayID: wire.ID{1},
		Credential: relayclient.KeyCredential(e.alice.priv, wire.PrincipalDevice)})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != relayclient.CodeRelayChanged || we.Sentence == "" {
		t.Fatalf("dial with another pinned id: %v, want %s with a sentence", err, relayclient.CodeRelayChanged)
	}
}
