package store

import (
	"testing"

	"weald/backend/wire"
)

// TestLatestEnvelopes: the newest envelope of each requested kind, in the
// order asked, kinds the group lacks left out, other groups ignored.
func TestLatestEnvelopes(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() Store) {
		st := open()
		ctx := ctxT(t)
		ws, g, other := tid("ws"), tid("g"), tid("other")
		insert(t, st, ws, g, 1, 2, 4)     // content at 1, 2
		insert(t, st, ws, other, 1, 1, 4) // another group
		kinds := []wire.Kind{wire.KindGroupInfoPublish, wire.KindHistoryPublish, wire.KindGroupInfoPublish, wire.KindMLSCommit, wire.KindGroupInfoPublish}
		err := st.Update(ctx, func(tx Tx) error {
			for i, k := range kinds {
				seq := uint64(3 + i)
				r := EnvelopeRow{Seq: seq, Hash: tid(string(rune('A' + i))), AcceptedAt: 2,
					Envelope: wire.Envelope{Group: g, Kind: k, Author: tid("author"), Ctr: seq, CT: []byte{byte(seq)}}}
				if err := tx.InsertEnvelope(ctx, ws, &r); err != nil {
					return err
				}
			}
			r := EnvelopeRow{Seq: 2, Hash: tid("o"), AcceptedAt: 2,
				Envelope: wire.Envelope{Group: other, Kind: wire.KindHistoryPublish, Author: tid("author"), Ctr: 2, CT: []byte("x")}}
			return tx.InsertEnvelope(ctx, ws, &r)
		})
		if err != nil {
			t.Fatal(err)
		}
		var rows []EnvelopeRow
		err = st.View(ctx, func(tx Tx) error {
			var err error
			rows, err = tx.LatestEnvelopes(ctx, ws, g, []wire.Kind{wire.KindHistoryPublish, wire.KindSnapshot, wire.KindGroupInfoPublish, wire.KindContent})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			kind wire.Kind
			seq  uint64
		}{{wire.KindHistoryPublish, 4}, {wire.KindGroupInfoPublish, 7}, {wire.KindContent, 2}}
		if len(rows) != len(want) {
			t.Fatalf("got %d rows, want %d", len(rows), len(want))
		}
		for i, w := range want {
			r := rows[i]
			if r.Envelope.Kind != w.kind || r.Seq != w.seq || r.Envelope.Group != g || r.Envelope.Ctr != w.seq {
				t.Fatalf("row %d: kind %s seq %d, want %s seq %d", i, r.Envelope.Kind, r.Seq, w.kind, w.seq)
			}
		}
		if rows[1].Envelope.CT[0] != 7 || rows[1].Hash != tid("E") {
			t.Fatalf("groupinfo row carries ct %x hash %x", rows[1].Envelope.CT, rows[1].Hash)
		}
		// A group with nothing yet: no rows, no error.
		err = st.View(ctx, func(tx Tx) error {
			var err error
			rows, err = tx.LatestEnvelopes(ctx, ws, tid("empty"), []wire.Kind{wire.KindGroupInfoPublish})
			return err
		})
		if err != nil || len(rows) != 0 {
			t.Fatalf("empty group: %d rows, %v", len(rows), err)
		}
	})
}
