package relay_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"

	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// Example provisions a workspace, publishes its genesis access set, accepts
// two envelopes and fetches them back.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "relay-example")
	defer os.RemoveAll(dir)
	st, err := store.OpenSQLite(ctx, filepath.Join(dir, "relay.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	svc := relay.New(relay.Config{Store: st, MaxLogBytes: 1 << 20})

	seed := func(s string) ed25519.PrivateKey { h := sha256.Sum256([]byte(s)); return ed25519.NewKeyFromSeed(h[:]) }
	genesis, device := seed("genesis"), seed("device")
	ws := wire.ID(sha256.Sum256([]byte("workspace")))
	_ = svc.ProvisionWorkspace(ctx, ws, genesis.Public().(ed25519.PublicKey))

	set := wire.AccessSet{Workspace: ws, Version: 1, Devices: []wire.DeviceKey{
		{Pub: device.Public().(ed25519.PublicKey), User: wire.ID{1}, Admin: true}}}
	wire.SignAccessSet(&set, genesis)
	if _, err := svc.Publish(ctx, ws, set); err != nil {
		fmt.Println(err)
		return
	}

	group := wire.ID{7}
	first := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: 1, CT: []byte("sealed 1")}
	wire.SignEnvelope(&first, device)
	second := wire.Envelope{Group: group, Kind: wire.KindContent, Ctr: 2, Prev: first.Hash(), CT: []byte("sealed 2")}
	wire.SignEnvelope(&second, device)
	me := wire.AuthOK{Kind: wire.PrincipalDevice, Principal: first.Author}
	acks, _, err := svc.Send(ctx, ws, me, []wire.Envelope{first, second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("acked seqs:", acks[0].Seq, acks[1].Seq)

	_, _, err = svc.Send(ctx, ws, me, []wire.Envelope{second})
	fmt.Println("again:", err.(*wire.Error).Code)

	page, _ := svc.Fetch(ctx, ws, group, 0, 0)
	for _, e := range page.Envelopes {
		fmt.Printf("seq %d: %s\n", e.Seq, e.Envelope.CT)
	}
	stats, _ := svc.Stats(ctx, ws)
	fmt.Println("log bytes:", stats.LogBytes, "of", stats.LimitBytes)
	// Output:
	// acked seqs: 1 2
	// again: chain/replay
	// seq 1: sealed 1
	// seq 2: sealed 2
	// log bytes: 16 of 1048576
}
