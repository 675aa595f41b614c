package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"weald/backend/wire"
)

// BenchmarkPutEnvelopes1000 stores 1,000 received 300-byte envelopes of one
// author, chain-checked, in one transaction (a catch-up fetch of #general).
func BenchmarkPutEnvelopes1000(b *testing.B) {
	ctx := context.Background()
	g, author := id("general"), id("author")
	body := make([]byte, 300)
	for range b.N {
		b.StopTimer()
		s, err := Open(ctx, b.TempDir()+"/weald.db")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Update(ctx, func(tx *Tx) error { return tx.PutGroup(Group{ID: g, Kind: GroupChannel, Name: "general"}) }); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		err = s.Update(ctx, func(tx *Tx) error {
			prev := wire.ZeroID
			for i := uint64(1); i <= 1000; i++ {
				h := sha256.Sum256(binary.BigEndian.AppendUint64(nil, i))
				if _, err := tx.PutEnvelope(Envelope{Group: g, Seq: i, Author: author, Ctr: i, Prev: prev, Hash: h, Kind: wire.KindContent, Bytes: body}); err != nil {
					return err
				}
				prev = h
			}
			return tx.SetFetchedSeq(g, 1000)
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
