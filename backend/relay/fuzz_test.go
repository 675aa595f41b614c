package relay

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"weald/backend/relay/store"
	"weald/backend/wire"
)

// FuzzSendRelayVisible feeds arbitrary ct to the kinds the relay parses
// (checkpoint, retention.transition, retention.policy, retention.resolution) and arbitrary
// drop_before bytes through the accept path on SQLite: nothing panics, every
// refusal is a *wire.Error, and the byte counter stays equal to the sum of ct.
func FuzzSendRelayVisible(f *testing.F) {
	tr := wire.RetentionTransition{Group: id("g"), Epoch: 1, NewKey: pub(key("r1"))}
	tr.Sign(key("alice"))
	f.Add(uint8(0), tr.Encode())
	cp := wire.Checkpoint{Group: id("g"), Manifest: []byte("m")}
	cp.Sign(key("r1"))
	f.Add(uint8(1), cp.Encode())
	p := wire.RetentionPolicy{Group: id("g"), Version: 1, TextWindowDays: 1}
	p.Approve(key("alice"))
	f.Add(uint8(2), p.Encode())
	d := wire.DropBefore{Group: id("g"), Authorization: wire.AuthorizedByPolicy}
	d.Sign(key("r1"))
	f.Add(uint8(4), d.Encode())
	rr := wire.RetentionResolution{Group: id("g"), Key: pub(key("r1"))}
	rr.Approve(key("alice"))
	f.Add(uint8(3), rr.Encode())

	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	svc := New(Config{Store: st, MaxLogBytes: 1 << 30})
	ws := id("fuzz ws")
	if err := svc.ProvisionWorkspace(ctx, ws, pub(key("fuzz genesis"))); err != nil {
		f.Fatal(err)
	}
	set := wire.AccessSet{Workspace: ws, Version: 1, Devices: []wire.DeviceKey{{Pub: pub(key("alice")), User: id("u"), Admin: true}}}
	wire.SignAccessSet(&set, key("fuzz genesis"))
	if _, err := svc.Publish(ctx, ws, set); err != nil {
		f.Fatal(err)
	}
	g := id("g")
	var ctr uint64
	prev := wire.ZeroID
	kinds := []wire.Kind{wire.KindRetentionTransition, wire.KindCheckpoint, wire.KindRetentionPolicy, wire.KindRetentionResolution}

	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		var err error
		if which%5 == 4 {
			var drop wire.DropBefore
			if drop, err = wire.DecodeDropBefore(b); err != nil {
				return
			}
			_, err = svc.DropBefore(ctx, ws, principal("alice"), drop)
		} else {
			e := wire.Envelope{Group: g, Kind: kinds[which%5], Ctr: ctr + 1, Prev: prev, CT: b}
			wire.SignEnvelope(&e, key("alice"))
			if _, _, err = svc.Send(ctx, ws, principal("alice"), []wire.Envelope{e}); err == nil {
				ctr, prev = e.Ctr, e.Hash()
			}
		}
		var we *wire.Error
		if err != nil && !errors.As(err, &we) {
			t.Fatalf("non-protocol error: %v", err)
		}
		var s store.WorkspaceStats
		if err := st.View(ctx, func(tx store.Tx) error { var err error; s, err = tx.Stats(ctx, ws, 0); return err }); err != nil {
			t.Fatal(err)
		}
		if s.LogBytes != s.SumCT {
			t.Fatalf("counter %d != sum of ct %d", s.LogBytes, s.SumCT)
		}
	})
}
