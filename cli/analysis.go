package cli

import (
	"os"
	"runtime/debug"
)

// analysisGCPercent is the garbage collector's target (GOGC) while a
// command reads and analyses result files: half the default headroom.
// What they hold is mostly float64 slices (results.Set), which the
// collector marks without scanning, so the lower target keeps the heap
// near what they hold at little cost in CPU.
const analysisGCPercent = 50

// forAnalysis sets analysisGCPercent, unless the GOGC environment
// variable chooses one, and returns the function that restores the
// target before (the commands share a process in tests and in callers of
// Main, and run measures with the default).
func forAnalysis() (restore func()) {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return func() {}
	}
	before := debug.SetGCPercent(analysisGCPercent)
	return func() { debug.SetGCPercent(before) }
}
