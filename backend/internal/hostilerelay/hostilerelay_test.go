package hostilerelay

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"testing"

	"weald/backend/relay/server"
	"weald/backend/wire"
)

// TestLies: each lie changes exactly what it names, and the relay is honest
// again once it is turned off.
func TestLies(t *testing.T) {
	r := Start(t)
	ctx := context.Background()
	ws := wire.ID{1}
	genesis := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32)).Public().(ed25519.PublicKey) // the relay refuses keys outside the prime-order subgroup
	if err := r.Provision(ctx, "", ws, genesis); err != nil {
		t.Fatal(err)
	}
	b := &backend{Backend: r.Service, r: r}
	owner := wire.ID{3}

	r.SubstituteKeyPackage(owner, []byte("relay's own"))
	c, err := b.KeyPackageClaim(ctx, ws, server.Principal{}, owner)
	if err != nil || c.Owner != owner || string(c.KeyPackage) != "relay's own" || r.Substituted(owner) != 1 {
		t.Fatalf("substituted claim %+v, %v, count %d", c, err, r.Substituted(owner))
	}
	if c, err := b.KeyPackageClaim(ctx, ws, server.Principal{}, owner); err == nil && string(c.KeyPackage) == "relay's own" {
		t.Fatal("a substitution was served twice")
	}

	honest, err := b.RosterFetch(ctx, ws, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	r.RewriteRoster(func(ops *wire.RosterOps) *wire.RosterOps {
		ops.Ops = append([][]byte{[]byte("junk")}, ops.Ops...)
		return ops
	})
	lied, err := b.RosterFetch(ctx, ws, 0, 10)
	if err != nil || len(lied.Ops) != len(honest.Ops)+1 || string(lied.Ops[0]) != "junk" {
		t.Fatalf("rewritten roster %+v, %v", lied, err)
	}
	r.RewriteRoster(nil)
	if again, err := b.RosterFetch(ctx, ws, 0, 10); err != nil || len(again.Ops) != len(honest.Ops) {
		t.Fatalf("honest again: %+v, %v", again, err)
	}

	envs := []wire.SeqEnvelope{{Seq: 1, Envelope: wire.Envelope{Kind: wire.KindMLSCommit}}, {Seq: 2, Envelope: wire.Envelope{Kind: wire.KindMLSWelcome}}}
	r.Withhold(func(_ wire.ID, se *wire.SeqEnvelope) bool { return se.Envelope.Kind == wire.KindMLSWelcome })
	if got := r.filter(wire.ID{4}, envs); len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("withheld: %+v", got)
	}
	if len(envs) != 2 {
		t.Fatal("withholding changed the relay's own slice")
	}
	r.Withhold(nil)
	if got := r.filter(wire.ID{4}, envs); len(got) != 2 {
		t.Fatalf("honest again: %+v", got)
	}
}
