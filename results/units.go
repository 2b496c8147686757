package results

import (
	"slices"

	"golang.org/x/perf/benchunit"
)

// The units of certbench's result files; what each measures, and how:
// docs/measurements.md. Where benchfmt's reader tidies a unit
// (nanoseconds become seconds), both spellings are named.
const (
	// UnitNsPerOp is wall time per op, as written; UnitSec as read.
	UnitNsPerOp = "ns/op"
	UnitSec     = "sec/op"
	// UnitCPUNsPerOp is the process's user and system CPU time per timed
	// op (waiting for a core is not counted); UnitCPUSec as read.
	UnitCPUNsPerOp = "cpu-ns/op"
	UnitCPUSec     = "cpu-sec/op"
	// UnitBytes and UnitAllocs are the bytes and heap objects allocated per op.
	UnitBytes  = "B/op"
	UnitAllocs = "allocs/op"
	// UnitMBPerSec is the testing package's throughput (b.SetBytes);
	// UnitBytesPerSec as read.
	UnitMBPerSec    = "MB/s"
	UnitBytesPerSec = "B/s"
	// UnitRetained is the live heap the store holds at the end of the
	// sample (never negative); UnitRetainedPerCert per certificate of the
	// last configuration (0 when it has none).
	UnitRetained        = "retained-B"
	UnitRetainedPerCert = "retained-B/cert"
	// UnitGoroutines is the goroutines the store started that still run
	// at the end of the sample.
	UnitGoroutines = "goroutines"
	// UnitHeldPerGen and UnitHeldGoroutinesPerGen are a held scenario's
	// retained heap and store goroutines per generation connections hold,
	// above the store holding only its current one.
	UnitHeldPerGen           = "held-B/gen"
	UnitHeldGoroutinesPerGen = "held-goroutines/gen"
	// UnitReleasedHeld and UnitReleasedHeldGoroutines are what is left once
	// every held generation is let go, above the steady state: a leak.
	UnitReleasedHeld           = "released-held-B"
	UnitReleasedHeldGoroutines = "released-held-goroutines"
	// UnitP50, UnitP99 and UnitP999 are lookup latency percentiles of
	// handshake-under-churn samples, in nanoseconds; the Sec ones as read.
	UnitP50     = "p50-ns"
	UnitP99     = "p99-ns"
	UnitP999    = "p999-ns"
	UnitP50Sec  = "p50-sec"
	UnitP99Sec  = "p99-sec"
	UnitP999Sec = "p999-sec"
	// UnitRefreshRate is the refreshes per second of a
	// handshake-under-churn sample.
	UnitRefreshRate = "refreshes/s"
)

// The units of the simulated CPU (run --simulate): near-exact,
// not exact (see IsSimulated).
const (
	// UnitInstructions is callgrind's instructions per op, every thread.
	UnitInstructions = "instructions/op"
	// UnitEstCycles estimates cycles per op from the instructions and
	// callgrind's cache simulation.
	UnitEstCycles = "est-cycles/op"
)

// The units of the operator-facing measurements (package bench): TLS
// handshakes, a refresh's peak heap, peak RSS and GC costs.
const (
	// UnitHandshakes is the verified handshakes per second of a Handshake
	// phase; UnitHandshakeP50 ... UnitHandshakeMax nearest-rank percentiles
	// of their latency (first write to verified Finished), in nanoseconds;
	// UnitErrors the handshakes that failed.
	UnitHandshakes    = "handshakes/s"
	UnitHandshakeP50  = "handshake-p50-ns"
	UnitHandshakeP90  = "handshake-p90-ns"
	UnitHandshakeP99  = "handshake-p99-ns"
	UnitHandshakeP999 = "handshake-p999-ns"
	UnitHandshakeMax  = "handshake-max-ns"
	UnitErrors        = "errors"
	// UnitCalmHandshakes and UnitCalmP99 are UnitHandshakes and
	// UnitHandshakeP99 of a churn sample's churn-free phase.
	UnitCalmHandshakes = "calm-handshakes/s"
	UnitCalmP99        = "calm-handshake-p99-ns"
	// The churn ratios are a figure under churn over the same without
	// (1: churn costs nothing).
	UnitP50ChurnRatio        = "p50-churn-ratio"
	UnitP99ChurnRatio        = "p99-churn-ratio"
	UnitP999ChurnRatio       = "p999-churn-ratio"
	UnitThroughputChurnRatio = "throughput-churn-ratio"
	// UnitPeak is the largest live heap while one refresh runs, above the
	// live heap before it (see Absent); UnitPeakPerCert per certificate.
	UnitPeak        = "peak-B"
	UnitPeakPerCert = "peak-B/cert"
	// UnitMaxRSS is the process's peak RSS at the end of a startup sample.
	UnitMaxRSS = "maxrss-B"
	// UnitGCCPU is GC's CPU time per op, in nanoseconds; UnitGCFraction its
	// share of the process's CPU time; UnitGCCycles the GC cycles per op.
	UnitGCCPU      = "gc-cpu-ns/op"
	UnitGCFraction = "gc-cpu-fraction"
	UnitGCCycles   = "gc-cycles/op"
	// UnitGCPauseP99 and UnitGCPauseMax are the p99 and largest GC pause
	// of a Handshake phase, in nanoseconds (histogram bucket bounds, at
	// most 25% high); 0 when no GC ran.
	UnitGCPauseP99 = "gc-pause-p99-ns"
	UnitGCPauseMax = "gc-pause-max-ns"

	// The units above as benchfmt's reader tidies them.
	UnitHandshakeP50Sec  = "handshake-p50-sec"
	UnitHandshakeP90Sec  = "handshake-p90-sec"
	UnitHandshakeP99Sec  = "handshake-p99-sec"
	UnitHandshakeP999Sec = "handshake-p999-sec"
	UnitHandshakeMaxSec  = "handshake-max-sec"
	UnitCalmP99Sec       = "calm-handshake-p99-sec"
	UnitGCCPUSec         = "gc-cpu-sec/op"
	UnitGCPauseP99Sec    = "gc-pause-p99-sec"
	UnitGCPauseMaxSec    = "gc-pause-max-sec"
)

// MinExactSamples is the fewest samples from which a count may be taken as
// exact (one is trivially "all equal"); the writer and the gate both use
// it, so that compare, gate and benchstat treat a file alike.
const MinExactSamples = 2

// Directions of a unit: which way a change is an improvement.
const (
	// LowerIsBetter is the direction of costs (time, memory, counts).
	LowerIsBetter = -1
	// HigherIsBetter is the direction of rates.
	HigherIsBetter = 1
)

// A UnitInfo describes one unit certbench knows.
type UnitInfo struct {
	Unit   string // as files spell it ("ns/op")
	Tidy   string // as benchfmt reads it ("sec/op")
	Better int    // LowerIsBetter or HigherIsBetter
	Count  bool   // counts what fixed ops did: a deterministic store repeats it exactly
	Title  string // for people ("time per op"); "" where the unit says it best
}

// units lists the units certbench knows, in report order.
var units = []UnitInfo{
	{UnitNsPerOp, UnitSec, LowerIsBetter, false, "time per op"},
	{UnitCPUNsPerOp, UnitCPUSec, LowerIsBetter, false, "CPU time per op"},
	{UnitBytes, UnitBytes, LowerIsBetter, true, "allocated per op"},
	{UnitAllocs, UnitAllocs, LowerIsBetter, true, "allocations per op"},
	{UnitRetained, UnitRetained, LowerIsBetter, false, "retained heap"},
	{UnitRetainedPerCert, UnitRetainedPerCert, LowerIsBetter, false, "retained heap per certificate"},
	{UnitGoroutines, UnitGoroutines, LowerIsBetter, true, "goroutines left running"},
	{UnitHeldPerGen, UnitHeldPerGen, LowerIsBetter, false, "retained heap per held generation"},
	{UnitHeldGoroutinesPerGen, UnitHeldGoroutinesPerGen, LowerIsBetter, true, "goroutines per held generation"},
	{UnitReleasedHeld, UnitReleasedHeld, LowerIsBetter, false, "retained heap left once held generations are let go"},
	{UnitReleasedHeldGoroutines, UnitReleasedHeldGoroutines, LowerIsBetter, true, "goroutines left once held generations are let go"},
	{UnitInstructions, UnitInstructions, LowerIsBetter, false, "instructions per op (simulated CPU)"},
	{UnitEstCycles, UnitEstCycles, LowerIsBetter, false, "estimated cycles per op (simulated CPU)"},
	{UnitP50, UnitP50Sec, LowerIsBetter, false, "lookup latency, median (p50)"},
	{UnitP99, UnitP99Sec, LowerIsBetter, false, "lookup latency, p99"},
	{UnitP999, UnitP999Sec, LowerIsBetter, false, "lookup latency, p99.9"},
	{UnitRefreshRate, UnitRefreshRate, HigherIsBetter, false, "refreshes per second"},
	{UnitHandshakes, UnitHandshakes, HigherIsBetter, false, "handshakes per second"},
	{UnitHandshakeP50, UnitHandshakeP50Sec, LowerIsBetter, false, "handshake latency, median (p50)"},
	{UnitHandshakeP90, UnitHandshakeP90Sec, LowerIsBetter, false, "handshake latency, p90"},
	{UnitHandshakeP99, UnitHandshakeP99Sec, LowerIsBetter, false, "handshake latency, p99"},
	{UnitHandshakeP999, UnitHandshakeP999Sec, LowerIsBetter, false, "handshake latency, p99.9"},
	{UnitHandshakeMax, UnitHandshakeMaxSec, LowerIsBetter, false, "handshake latency, max"},
	{UnitErrors, UnitErrors, LowerIsBetter, false, "failed handshakes"},
	{UnitCalmHandshakes, UnitCalmHandshakes, HigherIsBetter, false, "handshakes per second without churn"},
	{UnitCalmP99, UnitCalmP99Sec, LowerIsBetter, false, "handshake latency p99 without churn"},
	{UnitP50ChurnRatio, UnitP50ChurnRatio, LowerIsBetter, false, "handshake p50 under churn / without"},
	{UnitP99ChurnRatio, UnitP99ChurnRatio, LowerIsBetter, false, "handshake p99 under churn / without"},
	{UnitP999ChurnRatio, UnitP999ChurnRatio, LowerIsBetter, false, "handshake p99.9 under churn / without"},
	{UnitThroughputChurnRatio, UnitThroughputChurnRatio, HigherIsBetter, false, "handshakes per second under churn / without"},
	{UnitPeak, UnitPeak, LowerIsBetter, false, "peak heap of a refresh"},
	{UnitPeakPerCert, UnitPeakPerCert, LowerIsBetter, false, "peak heap of a refresh per certificate"},
	{UnitMaxRSS, UnitMaxRSS, LowerIsBetter, false, "process peak RSS"},
	{UnitGCCPU, UnitGCCPUSec, LowerIsBetter, false, "GC CPU per op"},
	{UnitGCFraction, UnitGCFraction, LowerIsBetter, false, "GC share of CPU"},
	{UnitGCCycles, UnitGCCycles, LowerIsBetter, false, "GC cycles per op"},
	{UnitGCPauseP99, UnitGCPauseP99Sec, LowerIsBetter, false, "GC pause, p99"},
	{UnitGCPauseMax, UnitGCPauseMaxSec, LowerIsBetter, false, "GC pause, max"},
	{UnitMBPerSec, UnitBytesPerSec, HigherIsBetter, false, ""},
}

// byUnit finds a UnitInfo by either spelling.
var byUnit = func() map[string]UnitInfo {
	m := make(map[string]UnitInfo, 2*len(units))
	for _, u := range units {
		if _, tidy := benchunit.Tidy(1, u.Unit); tidy != u.Tidy {
			panic("results: " + u.Unit + " tidies to " + tidy + ", not " + u.Tidy)
		}
		m[u.Unit], m[u.Tidy] = u, u
	}
	return m
}()

// Units returns the units certbench knows, in report order.
func Units() []UnitInfo {
	return append([]UnitInfo(nil), units...)
}

// Rank returns a unit's place in report order, in either spelling; a unit
// certbench does not know comes after every one it knows.
func Rank(unit string) int {
	if i := slices.IndexFunc(units, func(u UnitInfo) bool { return u.Unit == unit || u.Tidy == unit }); i >= 0 {
		return i
	}
	return len(units)
}

// Info returns what certbench knows of unit, in either spelling.
func Info(unit string) (UnitInfo, bool) {
	u, ok := byUnit[unit]
	return u, ok
}

// KnownUnits returns the known units as files spell them.
func KnownUnits() []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = u.Unit
	}
	return out
}

// IsKnownUnit reports whether certbench knows unit, in either spelling.
func IsKnownUnit(unit string) bool {
	_, ok := byUnit[unit]
	return ok
}

// Better returns a known unit's direction, else 0.
func Better(unit string) int { return byUnit[unit].Better }

// betterName returns the "better" metadata value of a known unit.
func betterName(unit string) string {
	return map[int]string{LowerIsBetter: "lower", HigherIsBetter: "higher"}[Better(unit)]
}

// IsCount reports whether unit is a count that may be declared exact.
func IsCount(unit string) bool { return byUnit[unit].Count }

// IsSimulated reports whether unit is the simulated CPU's: near-exact,
// so a threshold above their spread decides, not a test for noisy clocks.
func IsSimulated(unit string) bool {
	return unit == UnitInstructions || unit == UnitEstCycles
}

// Absent says why a sample of a refresh scenario may lack unit, "" if
// only for not measuring it.
func Absent(unit string) string {
	if unit == UnitPeak || unit == UnitPeakPerCert {
		return "peak not read: the refresh allocates less than 256 KiB, too little for collections forced during it to read its live heap (or fewer than 2 ended during it); its peak is at most its B/op"
	}
	return ""
}

// Title returns unit's name for people, or unit.
func Title(unit string) string {
	if t := byUnit[unit].Title; t != "" {
		return t
	}
	return unit
}
