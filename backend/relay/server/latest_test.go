package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/store"
	"weald/backend/wire"
)

// nextOf is author a's next envelope of kind in group.
func (a *author) nextOf(group wire.ID, kind wire.Kind, ct []byte) wire.Envelope {
	a.ctr[group]++
	e := wire.Envelope{Group: group, Kind: kind, Ctr: a.ctr[group], Prev: a.prev[group], CT: ct}
	wire.SignEnvelope(&e, a.k.priv)
	a.prev[group] = e.Hash()
	return e
}

// TestFetchLatestOverTheWire: FETCH_LATEST through a real server on both
// stores — the newest envelope per kind in one answer, a size cut that the
// client completes by itself, refusals with their codes.
func TestFetchLatestOverTheWire(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, open func() store.Store) {
		alice, bob := seededKey("alice"), seededKey("bob")
		r := startRelay(t, open(), relay.Config{}, Limits{})
		w := provision(t, r, alice, bob)
		ca, cb := dialAs(t, r.url, w.id, alice), dialAs(t, r.url, w.id, bob)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		g := wire.ID{0x17}
		aa, ab := newAuthor(alice), newAuthor(bob)
		var gi2, hi1 wire.Envelope
		if _, err := ca.Send(ctx,
			aa.nextOf(g, wire.KindGroupInfoPublish, []byte("gi1")),
			aa.nextOf(g, wire.KindContent, []byte("m1")),
		); err != nil {
			t.Fatal(err)
		}
		hi1 = ab.nextOf(g, wire.KindHistoryPublish, []byte("h1"))
		gi2 = ab.nextOf(g, wire.KindGroupInfoPublish, []byte("gi2"))
		if _, err := cb.Send(ctx, hi1, gi2, ab.nextOf(g, wire.KindContent, []byte("m2"))); err != nil {
			t.Fatal(err)
		}
		got, err := ca.FetchLatest(ctx, g, wire.KindGroupInfoPublish, wire.KindHistoryPublish, wire.KindRecoveryWrap)
		if err != nil {
			t.Fatal(err)
		}
		if got.Group != g || got.HeadSeq != 5 || len(got.LeftOut) != 0 || len(got.Envelopes) != 2 ||
			got.Envelopes[0].Seq != 3 || got.Envelopes[0].Envelope.Hash() != hi1.Hash() ||
			got.Envelopes[1].Seq != 4 || got.Envelopes[1].Envelope.Hash() != gi2.Hash() {
			t.Fatalf("latest = %+v", got)
		}
		// The envelope came through intact: its signature still verifies.
		if err := wire.VerifyEnvelope(&got.Envelopes[1].Envelope, bob.pub); err != nil {
			t.Fatalf("fetched envelope: %v", err)
		}

		// Two envelopes too big for one answer: the client asks again.
		big := wire.ID{0x18}
		half := make([]byte, relay.MaxFetchBytes/2+1)
		if _, err := ca.Send(ctx, aa.nextOf(big, wire.KindSnapshot, half)); err != nil {
			t.Fatal(err)
		}
		if _, err := ca.Send(ctx, aa.nextOf(big, wire.KindGroupInfoPublish, half)); err != nil {
			t.Fatal(err)
		}
		both, err := cb.FetchLatest(ctx, big, wire.KindGroupInfoPublish, wire.KindSnapshot)
		if err != nil {
			t.Fatal(err)
		}
		if len(both.Envelopes) != 2 || both.Envelopes[0].Envelope.Kind != wire.KindSnapshot ||
			both.Envelopes[1].Envelope.Kind != wire.KindGroupInfoPublish || len(both.LeftOut) != 0 {
			t.Fatalf("completed answer: %d envelopes, left out %v", len(both.Envelopes), both.LeftOut)
		}

		// Refusals: an undefined kind, a repeated kind (decoder), a
		// group of nobody yet (empty, not an error).
		if _, err := ca.FetchLatest(ctx, g, wire.KindContent, wire.Kind(0x7777)); !errors.Is(err, &wire.Error{Code: wire.CodeUnknownKind}) {
			t.Fatalf("unknown kind: %v", err)
		}
		if _, err := ca.FetchLatest(ctx, g, wire.KindContent, wire.KindContent); !errors.Is(err, &wire.Error{Code: wire.CodeMalformed}) {
			t.Fatalf("repeated kind: %v", err)
		}
		if _, err := ca.FetchLatest(ctx, g); !errors.Is(err, &wire.Error{Code: wire.CodeMalformed}) {
			t.Fatalf("no kind: %v", err)
		}
		empty, err := ca.FetchLatest(ctx, wire.ID{0x19}, wire.KindGroupInfoPublish)
		if err != nil || len(empty.Envelopes) != 0 || empty.HeadSeq != 0 {
			t.Fatalf("unwritten group: %+v %v", empty, err)
		}
		// The connection still works after the refusals.
		if _, err := ca.Fetch(ctx, g, 0, 0); err != nil {
			t.Fatal(err)
		}
	})
}
