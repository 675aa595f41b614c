//go:build unix

package mls

import "syscall"

// processCPU returns the process's user+system CPU time in nanoseconds
// (all goroutines), so benchmarks can report CPU per operation, which a
// shared, loaded machine distorts less than wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
