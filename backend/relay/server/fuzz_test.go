package server

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// FuzzHandleFrame feeds arbitrary bytes, as an authenticated connection's
// next frame, through the decoder and the server's dispatch into the real
// Service on SQLite. It must never panic, and every refusal must be a
// protocol error with a code (never an internal error).
//
//	go test ./backend/relay/server -run '^$' -fuzz FuzzHandleFrame -fuzztime 10s
func FuzzHandleFrame(f *testing.F) {
	alice := seededKey("fuzz alice")
	st, err := store.OpenSQLite(context.Background(), filepath.Join(f.TempDir(), "relay.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	svc := relay.New(relay.Config{Store: st, MaxLogBytes: 1 << 20})
	ws := wire.ID{0xF5}
	gen := seededKey("fuzz genesis")
	ctx := context.Background()
	if err := svc.ProvisionWorkspace(ctx, ws, gen.pub); err != nil {
		f.Fatal(err)
	}
	set := wire.AccessSet{Workspace: ws, Version: 1, Devices: []wire.DeviceKey{{Pub: alice.pub, User: wire.ID{1}, Admin: true}}}
	wire.SignAccessSet(&set, gen.priv)
	if _, err := svc.Publish(ctx, ws, set); err != nil {
		f.Fatal(err)
	}
	s := New(Config{Backend: svc})
	defer s.Close()
	cctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &conn{s: s, ctx: cctx, cancel: cancel, out: make(chan []byte, 1<<16), subs: map[wire.ID]*subState{},
		workspace: ws, key: wire.KeyID(alice.pub), kind: wire.PrincipalDevice}
	if e := s.hub.add(c); e != nil {
		f.Fatal(e)
	}
	defer s.hub.remove(c) // before s.Close: c has no WebSocket to close

	a := newAuthor(alice)
	dirDrop := &wire.RecoveryDirDrop{Workspace: ws, Owner: wire.ID{9}}
	dirDrop.Sign(alice.priv)
	seeds := []wire.Body{
		&wire.Send{Envelopes: []wire.Envelope{a.next(wire.ID{7}, "x")}},
		&wire.Fetch{Group: wire.ID{7}, Limit: 10},
		&wire.FetchLatest{Group: wire.ID{7}, Kinds: []wire.Kind{wire.KindContent, wire.KindGroupInfoPublish}},
		&wire.Subscribe{Items: []wire.SubscribeItem{{Group: wire.ID{7}}}},
		&wire.Unsubscribe{Groups: []wire.ID{{7}}},
		&wire.RosterAppend{Op: []byte("op")},
		&wire.RosterFetch{Limit: 5},
		&wire.AccessSetGet{},
		&wire.AccessSetPublish{Set: set},
		&wire.KeyPackagePut{Items: []wire.KeyPackageItem{{KeyPackage: []byte("kp")}}},
		&wire.KeyPackageClaim{Owner: wire.KeyID(alice.pub)},
		&wire.KeyPackageClaimBatch{Owners: []wire.ID{wire.KeyID(alice.pub), wire.KeyID(alice.pub)}},
		&wire.StatsRequest{},
		&wire.WelcomeNotice{Welcomes: []wire.WelcomeRef{{Group: wire.ID{7}, Seq: 1}}, To: []wire.ID{wire.KeyID(alice.pub)}},
		&wire.WelcomesGet{},
		&wire.WelcomesDone{Items: []wire.WelcomeRef{{Group: wire.ID{7}, Seq: 1}}},
		&wire.RecoveryDirPut{Items: []wire.DirPut{{Owner: wire.ID{9}, Group: wire.ID{7}, Seq: 1}}},
		&wire.RecoveryDirGet{Owner: wire.ID{9}},
		dirDrop,
		&wire.Hello{Version: 1},
	}
	for _, b := range seeds {
		enc, err := wire.EncodeFrame(wire.Frame{ID: 1, Body: b})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := wire.DecodeFrame(b)
		if err != nil {
			if decodeError(err).Code == "" {
				t.Fatal("decode error without a code")
			}
			return
		}
		for len(c.out) > 0 { // keep the queue from filling
			<-c.out
		}
		_, _, err = s.handle(c, fr.Body)
		if err == nil {
			return
		}
		var we *wire.Error
		if !errors.As(err, &we) {
			t.Fatalf("frame 0x%02x: refusal without a code: %v", uint8(fr.Body.FrameType()), err)
		}
		if we.Code == wire.CodeInternal {
			t.Fatalf("frame 0x%02x: internal error: %v", uint8(fr.Body.FrameType()), err)
		}
	})
}
