package docs_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"weald/backend/docs"
	"weald/backend/store"
	"weald/backend/wire"
)

// BenchmarkReceive1000IntoStore is the document side of issue 5's
// redemption goal: 1,000 received #general messages are stored as envelopes
// (chain-checked), applied to the day shard and saved, all in one
// transaction; then the store is reopened and the channel loaded and read.
// Decryption and the network are not included.
func BenchmarkReceive1000IntoStore(b *testing.B) {
	ctx := context.Background()
	g := sha256.Sum256([]byte("general"))
	dev, user := wire.ID(sha256.Sum256([]byte("dev"))), wire.ID(sha256.Sum256([]byte("user")))
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	sender, err := docs.OpenChannel(g, docs.Options{Author: dev, Principal: user, Clock: clock, Rand: rand.NewChaCha8([32]byte{1})}, nil)
	if err != nil {
		b.Fatal(err)
	}
	payloads := make([][]byte, 1000)
	for i := range payloads {
		now = now.Add(time.Second)
		if _, payloads[i], err = sender.Post(fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", i)); err != nil {
			b.Fatal(err)
		}
	}
	me := wire.ID(sha256.Sum256([]byte("me")))
	opts := docs.Options{Author: me, Principal: me, Clock: clock, Rand: rand.NewChaCha8([32]byte{2})}
	b.ResetTimer()
	for range b.N {
		path := b.TempDir() + "/weald.db"
		s, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		err = s.Update(ctx, func(tx *store.Tx) error {
			if err := tx.PutGroup(store.Group{ID: g, Kind: store.GroupChannel, Name: "general", Joined: true}); err != nil {
				return err
			}
			ch, err := docs.OpenChannel(g, opts, nil)
			if err != nil {
				return err
			}
			prev := wire.ZeroID
			for i, p := range payloads {
				h := sha256.Sum256(p)
				seq := uint64(i + 1)
				if _, err := tx.PutEnvelope(store.Envelope{Group: g, Seq: seq, Author: dev, Ctr: seq, Prev: prev, Hash: h, Kind: wire.KindContent, Bytes: p}); err != nil {
					return err
				}
				prev = h
				if _, err := ch.Apply(dev, p); err != nil {
					return err
				}
				if err := tx.MarkProcessed(g, seq); err != nil {
					return err
				}
			}
			for _, d := range ch.Dirty() {
				if err := tx.PutDocument(storeDoc(g, d)); err != nil {
					return err
				}
			}
			return tx.SetFetchedSeq(g, 1000)
		})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()

		s, err = store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		err = s.View(ctx, func(tx *store.Tx) error {
			ch, err := docs.OpenChannel(g, opts, func(id docs.DocID) (docs.Stored, bool, error) {
				d, err := tx.Document(id)
				if err == store.ErrNotFound {
					return docs.Stored{}, false, nil
				}
				return docs.Stored{Saved: d.Saved, Pending: d.Pending}, err == nil, err
			})
			if err != nil {
				return err
			}
			ms, err := ch.Messages(0)
			if err != nil {
				return err
			}
			if len(ms) != 1000 {
				return fmt.Errorf("%d messages", len(ms))
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func storeDoc(g wire.ID, d *docs.Document) store.Document {
	heads := d.Heads()
	hs := make([][32]byte, len(heads))
	for i, h := range heads {
		hs[i] = h
	}
	return store.Document{ID: d.ID(), Group: g, Kind: uint8(d.Ref().Kind), Day: uint32(d.Ref().Day),
		Saved: mustSave(d), Pending: d.Pending(), Heads: hs}
}

func mustSave(d *docs.Document) []byte {
	b, err := d.Save()
	if err != nil {
		panic(err)
	}
	return b
}
