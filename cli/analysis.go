package cli

import (
	"os"
	"runtime/debug"
)

// analysisGCPercent is GOGC while a command analyses result files:
// mostly float64 slices, which the collector marks without scanning, so
// the heap stays near what they hold at little cost in CPU.
const analysisGCPercent = 50

// forAnalysis sets analysisGCPercent unless GOGC is set, and returns the
// function that restores it (run measures with the default).
func forAnalysis() (restore func()) {
	if _, ok := os.LookupEnv("GOGC"); ok {
		return func() {}
	}
	before := debug.SetGCPercent(analysisGCPercent)
	return func() { debug.SetGCPercent(before) }
}
