package results

import (
	"golang.org/x/perf/benchunit"
)

// The units of certbench's result files. Where benchfmt's reader tidies a
// unit (nanoseconds become seconds, megabytes bytes), both spellings are
// named: the one a file holds and the one a reader sees.
const (
	// UnitNsPerOp is wall time per op as the testing package and
	// certbench's runner write it.
	UnitNsPerOp = "ns/op"
	// UnitSec is UnitNsPerOp as benchfmt reads it, in seconds.
	UnitSec = "sec/op"
	// UnitCPUNsPerOp is the CPU time (user plus system, of the whole
	// process, from getrusage RUSAGE_SELF) over the timed ops, divided by
	// the ops, in nanoseconds as written. Beside wall time it is the
	// figure other tenants of a shared machine disturb least: time spent
	// waiting for a core is not counted. It includes the runtime's own
	// threads (concurrent GC marking on another core counts). Lower is
	// better.
	UnitCPUNsPerOp = "cpu-ns/op"
	// UnitCPUSec is UnitCPUNsPerOp as benchfmt reads it, in seconds.
	UnitCPUSec = "cpu-sec/op"
	// UnitBytes is the bytes allocated per op.
	UnitBytes = "B/op"
	// UnitAllocs is the heap objects allocated per op.
	UnitAllocs = "allocs/op"
	// UnitMBPerSec is the testing package's throughput (b.SetBytes).
	UnitMBPerSec = "MB/s"
	// UnitBytesPerSec is UnitMBPerSec as benchfmt reads it, in bytes.
	UnitBytesPerSec = "B/s"
	// UnitRetained is the growth of the live heap (after garbage
	// collection) from before the store was made to the end of the
	// sample, with the store still alive: what the store holds. A heap
	// that shrank meanwhile is written as 0, never as a negative number.
	UnitRetained = "retained-B"
	// UnitRetainedPerCert is UnitRetained divided by the certificates in
	// the last configuration (0 when it has none).
	UnitRetainedPerCert = "retained-B/cert"
	// UnitGoroutines is the number of goroutines the store started that
	// are still running at the end of the sample.
	UnitGoroutines = "goroutines"
	// UnitP50, UnitP99 and UnitP999 are the lookup latency percentiles of
	// handshake-under-churn samples, in nanoseconds as written.
	UnitP50  = "p50-ns"
	UnitP99  = "p99-ns"
	UnitP999 = "p999-ns"
	// UnitP50Sec, UnitP99Sec and UnitP999Sec are UnitP50, UnitP99 and
	// UnitP999 as benchfmt reads them, in seconds.
	UnitP50Sec  = "p50-sec"
	UnitP99Sec  = "p99-sec"
	UnitP999Sec = "p999-sec"
	// UnitRefreshRate is the number of refreshes a store completed per
	// second of a handshake-under-churn sample; higher is better.
	UnitRefreshRate = "refreshes/s"
)

// The units of the simulated CPU (certbench run --instrument simulate):
// the timed ops run under Valgrind's callgrind, a simulated CPU whose
// counts other tenants of the machine cannot disturb. They are
// near-exact, not exact: a sample repeats its count closely, not to the
// instruction (the Go runtime's map seeds and the scheduler's
// preemption checks vary a little from one window to the next). See
// IsSimulated.
const (
	// UnitInstructions is the instructions executed per op (callgrind's
	// Ir event), by every thread of the process while the timed ops ran,
	// with garbage collection held off (see bench's simulate instrument).
	UnitInstructions = "instructions/op"
	// UnitEstCycles is an estimate of CPU cycles per op from the
	// instructions and callgrind's cache simulation: each instruction 1,
	// each first-level cache miss (instruction fetch, data read or write)
	// 10 more, each last-level miss 100 more (a last-level miss is also a
	// first-level one: 111 in all), callgrind's fixed cache geometry.
	UnitEstCycles = "est-cycles/op"
)

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the
// process's peak RSS, and what garbage collection costs. Each is
// lower-is-better unless said otherwise.
const (
	// UnitHandshakes is the handshakes that completed and verified per
	// second of wall time of a Handshake phase, over all its clients;
	// higher is better.
	UnitHandshakes = "handshakes/s"
	// UnitHandshakeP50 ... UnitHandshakeMax are percentiles (nearest
	// rank) of the latency of the handshakes that completed, in
	// nanoseconds: the client's handshake, from its first write to its
	// verified Finished, full and resumed handshakes together.
	UnitHandshakeP50  = "handshake-p50-ns"
	UnitHandshakeP90  = "handshake-p90-ns"
	UnitHandshakeP99  = "handshake-p99-ns"
	UnitHandshakeP999 = "handshake-p999-ns"
	UnitHandshakeMax  = "handshake-max-ns"
	// UnitErrors is the number of handshakes of a sample (all phases)
	// that failed on either end: a certificate that did not verify
	// against the pool's issuer for the name asked, a miss not served
	// the configured default, a store error. A correct store has 0.
	UnitErrors = "errors"
	// UnitCalmHandshakes and UnitCalmP99 are UnitHandshakes and
	// UnitHandshakeP99 of the churn-free phase of a churn sample (its
	// other figures are of the churn phase).
	UnitCalmHandshakes = "calm-handshakes/s"
	UnitCalmP99        = "calm-handshake-p99-ns"
	// UnitP50ChurnRatio, UnitP99ChurnRatio and UnitP999ChurnRatio are a
	// handshake latency percentile under churn divided by the same
	// percentile without churn, the same store in the same sample: 1
	// means churn costs handshakes nothing.
	UnitP50ChurnRatio  = "p50-churn-ratio"
	UnitP99ChurnRatio  = "p99-churn-ratio"
	UnitP999ChurnRatio = "p999-churn-ratio"
	// UnitThroughputChurnRatio is handshakes/s under churn divided by
	// handshakes/s without; higher is better (1 is the best).
	UnitThroughputChurnRatio = "throughput-churn-ratio"

	// UnitPeak is the largest live heap reached while one refresh runs,
	// above the live heap just before it (the store holding its previous
	// configuration): what a refresh needs on top of what the store
	// holds. See bench/peak.go for the method and its error.
	UnitPeak = "peak-B"
	// UnitPeakPerCert is UnitPeak divided by the certificates in the
	// refresh's configuration.
	UnitPeakPerCert = "peak-B/cert"
	// UnitMaxRSS is the process's peak resident set size (getrusage
	// ru_maxrss) at the end of a startup sample's timed ops: a
	// process-wide high-water mark since the process started, which
	// includes everything certbench did before (pool generation, other
	// samples and stores). It is the figure of a startup-N sample only
	// when that is the first and largest thing the process runs.
	UnitMaxRSS = "maxrss-B"

	// UnitGCCPU is the CPU time garbage collection took per op, in
	// nanoseconds (runtime/metrics /cpu/classes/gc/total:cpu-seconds
	// over the timed window; see bench/gcstats.go).
	UnitGCCPU = "gc-cpu-ns/op"
	// UnitGCFraction is GC's CPU time divided by all the CPU time the
	// process used in the window (/cpu/classes/total less
	// /cpu/classes/idle): 0.25 means a quarter of the CPU went to GC.
	UnitGCFraction = "gc-cpu-fraction"
	// UnitGCCycles is the GC cycles that ended in the window per op.
	UnitGCCycles = "gc-cycles/op"
	// UnitGCPauseP99 and UnitGCPauseMax are the p99 and the largest GC
	// pause (stop-the-world phase, /sched/pauses/total/gc:seconds) in a
	// Handshake phase, in nanoseconds: upper boundaries of the
	// runtime's histogram buckets, at most 25% above the true value; 0
	// when no GC ran.
	UnitGCPauseP99 = "gc-pause-p99-ns"
	UnitGCPauseMax = "gc-pause-max-ns"

	// The units above that benchfmt's reader tidies, as it reads them
	// (nanoseconds become seconds).
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

// MinExactSamples is the fewest samples of a benchmark from which a count
// may be taken as exact: one sample is trivially "all equal" and says
// nothing about whether the count is deterministic. The runner declares
// "assume=exact" by it and the gate compares exactly by it, so that
// compare, gate and benchstat treat the same file alike.
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
	// Unit is the unit as result files spell it ("ns/op").
	Unit string
	// Tidy is the unit as benchfmt's reader tidies it ("sec/op"); the
	// same as Unit for most.
	Tidy string
	// Better is LowerIsBetter or HigherIsBetter.
	Better int
	// Count reports that the unit counts what a fixed number of ops did
	// (bytes, objects, goroutines): a deterministic store repeats it
	// exactly, so it may be declared and compared exact.
	Count bool
	// Title names the unit for people ("time per op"); empty where the
	// unit names itself best.
	Title string
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

// Units returns the units certbench knows, in report order: time,
// allocation, retained heap, goroutines, the handshake-under-churn units,
// the operator-facing units (handshakes, peak heap, GC), then the testing
// package's throughput.
func Units() []UnitInfo {
	return append([]UnitInfo(nil), units...)
}

// Info returns what certbench knows of unit, spelled as a file writes it
// ("ns/op") or as benchfmt tidies it ("sec/op"), and whether it knows it.
func Info(unit string) (UnitInfo, bool) {
	u, ok := byUnit[unit]
	return u, ok
}

// KnownUnits returns the units certbench knows, as result files spell
// them ("ns/op", not "sec/op"), in report order.
func KnownUnits() []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = u.Unit
	}
	return out
}

// IsKnownUnit reports whether unit is one certbench knows, as a file
// spells it ("ns/op") or as the benchfmt reader tidies it ("sec/op").
func IsKnownUnit(unit string) bool {
	_, ok := byUnit[unit]
	return ok
}

// Better returns LowerIsBetter or HigherIsBetter for a known unit, and 0
// for any other.
func Better(unit string) int { return byUnit[unit].Better }

// betterName returns the "better" metadata value of a known unit
// ("lower" or "higher"), or "" for any other.
func betterName(unit string) string {
	switch Better(unit) {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return ""
}

// IsCount reports whether unit is a count that may be declared exact
// (B/op, allocs/op, goroutines).
func IsCount(unit string) bool { return byUnit[unit].Count }

// IsSimulated reports whether unit is one of the simulated CPU's
// (instructions/op, est-cycles/op): near-exact figures that only a run
// under callgrind writes, and that a comparison should treat as such (a
// threshold well above their spread decides, not a test built for noisy
// clocks).
func IsSimulated(unit string) bool {
	return unit == UnitInstructions || unit == UnitEstCycles
}

// Title returns the name of unit for people ("time per op" for sec/op),
// or the unit itself if it has none.
func Title(unit string) string {
	if t := byUnit[unit].Title; t != "" {
		return t
	}
	return unit
}
