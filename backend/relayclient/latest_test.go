package relayclient_test

import (
	"context"
	"testing"
	"time"

	"weald/backend/relay"
	"weald/backend/relay/server"
	"weald/backend/wire"
)

// TestFetchLatestAcrossRestart: FetchLatest answers the newest envelope of
// each kind, and, being a read, is resent on the new connection when the
// relay restarted under it.
func TestFetchLatestAcrossRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r1 := serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	e.provision(relay.New(relay.Config{Store: e.st}))
	ca := e.dial(e.alice)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := wire.ID{0x17}
	ch := &chainOf{k: e.alice}
	var newest wire.Envelope
	for i := 0; i < 4; i++ {
		env := ch.next(g) // content
		if i%2 == 1 {
			// Re-sign the same chain step as a groupinfo.publish.
			env.Kind = wire.KindGroupInfoPublish
			env.CT = []byte{byte(i)}
			wire.SignEnvelope(&env, e.alice.priv)
			ch.prev = env.Hash()
			newest = env
		}
		sendRetrying(t, ca, env)
	}
	r1.stop()
	serveAt(t, e.addr, e.st, relay.Config{}, server.Limits{})
	got, err := ca.FetchLatest(ctx, g, wire.KindGroupInfoPublish, wire.KindContent)
	if err != nil {
		t.Fatalf("fetch_latest across a restart: %v", err)
	}
	if len(got.Envelopes) != 2 || got.HeadSeq != 4 ||
		got.Envelopes[0].Seq != 3 || got.Envelopes[0].Envelope.Kind != wire.KindContent ||
		got.Envelopes[1].Seq != 4 || got.Envelopes[1].Envelope.Hash() != newest.Hash() {
		t.Fatalf("latest = %+v", got)
	}
}
