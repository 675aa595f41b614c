package documents

import (
	"runtime"
	"sync"
)

// Each runs f(0) … f(n-1) on up to GOMAXPROCS goroutines and returns the
// error of the lowest index that failed (the one a serial loop would have
// met first). Documents are independent Automerge documents, so saving,
// loading or reading several of them can run in parallel (a checkpoint's
// shards, a joiner's snapshots); f(i) must touch nothing but document i.
func Each(n int, f func(i int) error) error {
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
