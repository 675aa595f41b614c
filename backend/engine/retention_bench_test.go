package engine

import (
	"testing"

	"weald/backend/wire"
)

// BenchmarkBarrierSets: the part of writing or verifying a checkpoint in
// the engine that reads the log: each content envelope at or below the
// barrier verified, opened and read for its change hashes. cold is the
// first checkpoint of a process; warm a later one, which reads the
// envelopes it verified before from the group's cache (issue 14:
// "barrierSets re-verifying every envelope").
func BenchmarkBarrierSets(b *testing.B) {
	r := startRelay(b)
	dana, _ := historyWorkspace(b, r, 2000, 10, 240)
	ctx := testCtx(b)
	dana.mu.Lock()
	defer dana.mu.Unlock()
	gi, err := dana.resolveChannel("general")
	if err != nil {
		b.Fatal(err)
	}
	g := dana.groups[gi.Policy.Group]
	log, dropped, err := dana.fetchLogTo(ctx, wire.ID(g.rec.ID), g.rec.LastSeq)
	if err != nil {
		b.Fatal(err)
	}
	barrier := map[wire.ID]uint64{}
	for _, se := range log {
		barrier[se.Envelope.Author] = max(barrier[se.Envelope.Author], se.Envelope.Ctr)
	}
	run := func(b *testing.B, cold bool) {
		for i := 0; i < b.N; i++ {
			if cold {
				g.verified = nil
			}
			_, n, full, err := dana.barrierSets(ctx, g, log, barrier, dropped)
			if err != nil || !full || n < 2000 {
				b.Fatalf("%d envelopes, full %v, %v", n, full, err)
			}
		}
	}
	b.Run("cold/2000", func(b *testing.B) { run(b, true) })
	b.Run("warm/2000", func(b *testing.B) { run(b, false) })
}
