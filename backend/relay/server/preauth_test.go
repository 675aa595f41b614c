package server

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"weald/backend/wire"
)

// dialRaw opens a WebSocket without saying anything on it.
func (f *fixture) dialRaw(ctx context.Context) (*raw, *http.Response, error) {
	ws, res, err := websocket.Dial(ctx, f.url, nil)
	if err != nil {
		return nil, res, err
	}
	f.t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(1 << 20)
	return &raw{t: f.t, ws: ws}, res, nil
}

// An attacker opens connections from one address and never authenticates.
// Beyond MaxPreAuthPerAddr the relay refuses the upgrade with HTTP 429, and
// a connection that authenticates frees its place. On main at 0478711 every
// one was accepted and held for the handshake timeout.
func TestPreAuthFloodFromOneAddressIsCapped(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{MaxPreAuthPerAddr: 4}, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var held []*raw
	for i := 0; i < 4; i++ {
		r, _, err := f.dialRaw(ctx)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, r)
	}
	for i := 0; i < 3; i++ {
		_, res, err := f.dialRaw(ctx)
		if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("connection %d beyond the cap: err %v, response %v; want HTTP 429", 5+i, err, res)
		}
	}
	// One of the four authenticates: its place is free again.
	r := held[0]
	r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
	ch, ok := r.read().Body.(*wire.Challenge)
	if !ok {
		t.Fatal("no challenge")
	}
	r.send(2, wire.SignChallenge(a.priv, wire.PrincipalDevice, f.bind(ch)))
	if _, ok := r.read().Body.(*wire.AuthOK); !ok {
		t.Fatal("no AuthOK")
	}
	if _, _, err := f.dialRaw(ctx); err != nil {
		t.Fatalf("after one authenticated: %v", err)
	}
	if _, res, err := f.dialRaw(ctx); err == nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("cap not restored: %v", err)
	}
}

// A client that has not authenticated sends a frame far beyond the
// pre-authentication limit. The relay closes the connection with 1009 and
// answers nothing (it read at most PreAuthFrameBytes of it). On main at
// 0478711 the relay read and buffered up to 17 MiB of such a frame and
// answered limit/frame_size.
func TestPreAuthLargeFrameClosesUnread(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, first := range []bool{true, false} {
		r, _, err := f.dialRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !first {
			r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
			if _, ok := r.read().Body.(*wire.Challenge); !ok {
				t.Fatal("no challenge")
			}
		}
		big := make([]byte, 1<<20)
		big[0] = byte(wire.FrameHello)
		_ = r.ws.Write(ctx, websocket.MessageBinary, big) // the relay may close before it is all written
		_, b, err := r.ws.Read(ctx)
		if err == nil {
			f, _ := wire.DecodeFrame(b)
			t.Fatalf("got a frame (%T) after a 1 MiB pre-auth frame; want the connection closed", f.Body)
		}
		if st := websocket.CloseStatus(err); st != websocket.StatusMessageTooBig {
			t.Fatalf("close status %v (%v), want 1009", st, err)
		}
	}
}

// Before AuthOK only Hello, Auth and one bootstrap ACCESS_SET_PUBLISH are
// answered: a second publish, and any other request, is refused with
// auth/required and the connection closed. On main at 0478711 a client
// could publish any number of times before authenticating.
func TestPreAuthOnlyHelloAuthAndOnePublish(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{}, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	set := wire.AccessSet{Workspace: f.ws, Version: 1, Devices: []wire.DeviceKey{{Pub: a.pub, Admin: true}}}
	wire.SignAccessSet(&set, a.priv)
	r, _, err := f.dialRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
	r.read()
	r.send(2, &wire.AccessSetPublish{Set: set})
	if _, ok := r.read().Body.(*wire.AccessSetAccepted); !ok {
		t.Fatal("the bootstrap publish was not accepted")
	}
	r.send(3, &wire.AccessSetPublish{Set: set})
	r.expectCode(3, wire.CodeAuthRequired)

	for _, req := range []wire.Body{&wire.StatsRequest{}, &wire.Subscribe{Items: []wire.SubscribeItem{{Group: wire.ID{1}}}},
		&wire.KeyPackageClaim{Owner: wire.KeyID(a.pub)}, &wire.KeyPackageClaimBatch{Owners: []wire.ID{wire.KeyID(a.pub)}},
		&wire.AccessSetGet{}, &wire.WelcomesGet{},
		&wire.WelcomeNotice{Welcomes: []wire.WelcomeRef{{Group: wire.ID{1}, Seq: 1}}, To: []wire.ID{wire.KeyID(a.pub)}},
		&wire.RecoveryDirGet{Owner: wire.KeyID(a.pub)}, &wire.RecoveryDirPut{Items: []wire.DirPut{{Owner: wire.KeyID(a.pub), Group: wire.ID{1}, Seq: 1}}}} {
		r, _, err := f.dialRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
		r.read()
		r.send(2, req)
		r.expectCode(2, wire.CodeAuthRequired)
		if _, _, err := r.ws.Read(ctx); err == nil {
			t.Fatalf("%T: connection still open after the refusal", req)
		}
	}
}

// The bootstrap publish is rate limited per address: past GenesisBurst the
// relay refuses with limit/rate before the backend sees it.
func TestPreAuthPublishRateIsPerAddress(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{GenesisBurst: 2, GenesisPerSecond: 0.001}, a)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	set := wire.AccessSet{Workspace: f.ws, Version: 1, Devices: []wire.DeviceKey{{Pub: a.pub, Admin: true}}}
	wire.SignAccessSet(&set, a.priv)
	for i := 0; i < 3; i++ {
		r, _, err := f.dialRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r.send(1, &wire.Hello{Version: wire.ProtocolVersion, Workspace: f.ws})
		r.read()
		r.send(2, &wire.AccessSetPublish{Set: set})
		fr := r.read()
		eb, refused := fr.Body.(*wire.ErrorBody)
		if refused != (i == 2) {
			t.Fatalf("publish %d: %T, want refusal only for the third", i, fr.Body)
		}
		if refused && !errors.Is(eb.Err, &wire.Error{Code: wire.CodeLimitRate}) {
			t.Fatalf("publish %d: %v, want limit/rate", i, eb.Err)
		}
	}
}

// A member sends one SUBSCRIBE naming 65,536 groups. The relay refuses it
// with limit/subscriptions before reading the store for any of them. On
// main at 0478711 it ran one fetch per item (65,536) before it reached the
// 4,096-subscription limit.
func TestHugeSubscribeIsRefusedBeforeAnyFetch(t *testing.T) {
	t.Parallel()
	a := newKey(t, 1)
	f := newFixture(t, Limits{}, a)
	r := f.raw(a)
	items := make([]wire.SubscribeItem, 1<<16)
	for i := range items {
		items[i].Group = wire.ID{byte(i >> 8), byte(i), 0xEE}
	}
	r.send(7, &wire.Subscribe{Items: items})
	r.expectCode(7, wire.CodeLimitSubscriptions)
	if n := f.back.fetches.Load(); n != 0 {
		t.Fatalf("the refused SUBSCRIBE ran %d fetches, want 0", n)
	}
	// Within the limit it still works, and the limit counts what is held.
	r.send(8, &wire.Subscribe{Items: items[:DefaultLimits.MaxSubscriptions]})
	if _, ok := r.read().Body.(*wire.OK); !ok {
		t.Fatal("a SUBSCRIBE at the limit was refused")
	}
	r.send(9, &wire.Subscribe{Items: items[DefaultLimits.MaxSubscriptions : DefaultLimits.MaxSubscriptions+1]})
	r.expectCode(9, wire.CodeLimitSubscriptions)
}
