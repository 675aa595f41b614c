package tree

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user + system) used by the process so
// far. Benchmarks report it per operation as "cpu-ns/op": on the shared
// machine wall time mostly measures other people's load.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f in a b.Loop and reports its CPU time per operation.
func loopCPU(b *testing.B, f func()) {
	b.Helper()
	start := processCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
	}
}
