//go:build unix

package optimized

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
// Benchmarks report it per op as cpu-ns/op next to ns/op: on a shared,
// loaded machine wall time per op grows with the load, while the CPU time
// an op costs (including the GC work it causes) stays comparable.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
