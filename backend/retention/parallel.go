package retention

import (
	"runtime"
	"sync"
)

// eachShard runs f(0) … f(n-1) on up to GOMAXPROCS goroutines and returns
// the error of the lowest index that failed (the one a serial loop would
// have met first). Shards are independent Automerge documents, so saving
// or loading them is the one part of a checkpoint that runs in parallel;
// f must touch nothing but shard i.
func eachShard(n int, f func(i int) error) error {
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
