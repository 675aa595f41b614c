package retention

import (
	"fmt"
	"testing"
	"time"

	"weald/backend/documents"
)

// Checkpoint write (frontier, snapshot at the barrier, proof that it loads),
// receiver verification (hash, load, heads, barrier frontier) and a joiner
// reading the history from the snapshots (verify beneath a drop, merge into
// empty shards, list the messages) of a channel of n messages over 30 daily
// shards. The engine's cost of reading and decrypting the log is not
// included.
func BenchmarkCheckpoint(b *testing.B) {
	for _, n := range benchSizes {
		c := newChannel(b, n, 30)
		b.Run(fmt.Sprintf("write/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := Snapshots(c.sources()); err != nil {
					b.Fatal(err)
				}
			}
		})
		w := write(b, c)
		b.Run(fmt.Sprintf("verify/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Verify(&w.cp, w.check(c)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("join/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if got := join(b, w); got != n {
					b.Fatalf("the joiner read %d messages, want %d", got, n)
				}
			}
		})
		b.Run(fmt.Sprintf("store/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if got := store(b, w); got != n {
					b.Fatalf("the joiner stored %d messages, want %d", got, n)
				}
			}
		})
	}
}

// join is a reader beneath a drop: it verifies the checkpoint without the
// envelopes, reads every snapshot into an empty shard and lists the
// messages; it returns how many it read.
func join(b *testing.B, w *written) int {
	return joined(b, w, func(sh *documents.Shard) int { return len(sh.Messages()) }, nil)
}

// store is join as the engine does it (readSnapshots, then saveShards):
// mark every message for the message index, read each once (the shards on
// parallel goroutines, as the engine's indexTouched does), then save each
// shard; it returns how many messages it read.
func store(b *testing.B, w *written) int {
	read := func(sh *documents.Shard) int {
		n := 0
		for _, id := range sh.MessageIDs() {
			if _, err := sh.Message(id); err == nil {
				n++
			}
		}
		return n
	}
	save := func(sh *documents.Shard) {
		if _, err := sh.Save(); err != nil {
			b.Fatal(err)
		}
	}
	return joined(b, w, read, save)
}

// joined verifies w beneath a drop, merges each chat snapshot into an
// empty shard and reads each (read, the shards on parallel goroutines),
// then calls after, if set, on each shard in turn; it returns the sum of
// what read returned.
func joined(b *testing.B, w *written, read func(*documents.Shard) int, after func(*documents.Shard)) int {
	opened, err := Verify(&w.cp, Check{Chain: &w.chain, Manifest: &w.m, Snapshots: w.snaps})
	if err != nil {
		b.Fatal(err)
	}
	var shards []*documents.Shard
	for i, o := range opened {
		if w.m.Documents[i].Key.Kind != KindChat {
			continue // the index: a reader keeps the shards themselves
		}
		sh, err := documents.NewShard(testGroup, documents.Day(w.m.Documents[i].Key.Day), documents.Options{Clock: time.Now})
		if err != nil {
			b.Fatal(err)
		}
		if err := sh.Merge(o); err != nil {
			b.Fatal(err)
		}
		shards = append(shards, sh)
	}
	counts := make([]int, len(shards))
	_ = documents.Each(len(shards), func(i int) error {
		counts[i] = read(shards[i])
		return nil
	})
	n := 0
	for i, sh := range shards {
		if after != nil {
			after(sh)
		}
		n += counts[i]
	}
	return n
}

var benchSizes = []int{10000, 100000}
