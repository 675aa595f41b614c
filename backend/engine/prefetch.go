package engine

import (
	"context"
	"sync"

	"weald/backend/wire"
)

// A batch that reads many groups' logs (a removal's rotate and wraps
// steps) has their first pages fetched together, several requests in
// flight on the connection, instead of one round trip after another;
// fetchPage takes a prefetched page once, and checks it as any other.

// fetchKey names a FETCH: the group and the seq it reads after.
type fetchKey struct {
	group wire.ID
	after uint64
}

// prefetchInFlight bounds the FETCHes of one prefetch in flight at once.
const prefetchInFlight = 16

// prefetch fetches the first page of each key concurrently into
// e.prefetched. A failed fetch is left out: fetchPage then asks again and
// meets the error itself.
func (e *Engine) prefetch(ctx context.Context, keys []fetchKey) {
	if len(keys) == 0 || e.client == nil {
		return
	}
	if e.prefetched == nil {
		e.prefetched = map[fetchKey]*wire.Envelopes{}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, prefetchInFlight)
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := e.client.Fetch(ctx, k.group, k.after, 0)
			if err != nil {
				return
			}
			mu.Lock()
			e.prefetched[k] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// dropPrefetched forgets the pages nobody took (a batch cut short).
func (e *Engine) dropPrefetched() { e.prefetched = nil }
