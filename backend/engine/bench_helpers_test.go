package engine

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"weald/backend/relay"
)

// benchGroups returns WEALD_BENCH_GROUPS, the number of channels a
// benchmark creates, or def when it is not set.
func benchGroups(def int) int {
	if n, err := strconv.Atoi(os.Getenv("WEALD_BENCH_GROUPS")); err == nil && n > 0 {
		return n
	}
	return def
}

// benchWorkspace starts a relay for one iteration of a benchmark that
// builds its own workspace: dana creates it (seed), sam joins (seed+10),
// and both have synced. ctx ends with the benchmark, after 20 minutes at
// most.
func benchWorkspace(b *testing.B, seed byte) (r *testRelay, ctx context.Context, dana, sam *Engine) {
	b.Helper()
	r = startRelayWith(b, relay.Config{ClaimBurst: 1 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	b.Cleanup(cancel)
	dana = createWorkspace(b, r, seed)
	sam = joinWith(b, r, invite(b, dana), "sam", seed+10)
	for _, e := range []*Engine{sam, dana} { // sam's key packages, then dana sees them
		if _, err := e.Sync(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return r, ctx, dana, sam
}
