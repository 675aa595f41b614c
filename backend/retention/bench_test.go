package retention

import (
	"fmt"
	"testing"
)

// Checkpoint write (frontier, snapshot at the barrier, proof that it loads)
// and receiver verification (hash, load, heads, barrier frontier) of a
// channel of n messages over 30 daily shards. The engine's cost of reading
// and decrypting the log is not included (see the engine's figures).
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
	}
}

var benchSizes = []int{10000, 100000}
