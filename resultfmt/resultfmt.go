// Package resultfmt is the old import path of the result-file vocabulary,
// kept for one release so that code that imports it keeps compiling:
// every name here is an alias of, or calls, the same name in
// github.com/certbench/certbench/results.
//
// Deprecated: use github.com/certbench/certbench/results.
package resultfmt

import (
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// ChurnBenchmark is the base name of run's samples:
// BenchmarkChurn/scenario=rotate-10-of-100/store=optimized-2.
//
// Deprecated: use results.ChurnBenchmark.
const ChurnBenchmark = results.ChurnBenchmark

// SweepBenchmark is the base name of sweep's samples:
// BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized-2.
//
// Deprecated: use results.SweepBenchmark.
const SweepBenchmark = results.SweepBenchmark

// ScenarioKey names a result's scenario.
//
// Deprecated: use results.ScenarioKey.
const ScenarioKey = results.ScenarioKey

// StoreKey names a result's store.
//
// Deprecated: use results.StoreKey.
const StoreKey = results.StoreKey

// FamilyKey names a sweep sample's scenario family.
//
// Deprecated: use results.FamilyKey.
const FamilyKey = results.FamilyKey

// SizeKey is a sweep sample's pool size.
//
// Deprecated: use results.SizeKey.
const SizeKey = results.SizeKey

// RoundKey is the file configuration line "round: N" that "certbench run
// --round N" writes: the round of an interleaved base/head protocol
// (scripts/certbench-ci.sh) a sample was measured in.
//
// Deprecated: use results.RoundKey.
const RoundKey = results.RoundKey

// ScenarioHashPrefix begins the file configuration key that records the
// definition hash of each scenario a run measured:
// "scenario-hash.rotate-10-of-100: 5d0c1e2f3a4b" (see ScenarioHashKey and
// scenarios.Scenario.Hash).
//
// Deprecated: use results.ScenarioHashPrefix.
const ScenarioHashPrefix = results.ScenarioHashPrefix

// UnitNsPerOp is wall time per op as the testing package and certbench's
// runner write it.
//
// Deprecated: use results.UnitNsPerOp.
const UnitNsPerOp = results.UnitNsPerOp

// UnitSec is UnitNsPerOp as benchfmt reads it, in seconds.
//
// Deprecated: use results.UnitSec.
const UnitSec = results.UnitSec

// UnitCPUNsPerOp is the CPU time (user plus system, of the whole process,
// from getrusage RUSAGE_SELF) over the timed ops, divided by the ops, in
// nanoseconds as written.
//
// Deprecated: use results.UnitCPUNsPerOp.
const UnitCPUNsPerOp = results.UnitCPUNsPerOp

// UnitCPUSec is UnitCPUNsPerOp as benchfmt reads it, in seconds.
//
// Deprecated: use results.UnitCPUSec.
const UnitCPUSec = results.UnitCPUSec

// UnitBytes is the bytes allocated per op.
//
// Deprecated: use results.UnitBytes.
const UnitBytes = results.UnitBytes

// UnitAllocs is the heap objects allocated per op.
//
// Deprecated: use results.UnitAllocs.
const UnitAllocs = results.UnitAllocs

// UnitMBPerSec is the testing package's throughput (b.SetBytes).
//
// Deprecated: use results.UnitMBPerSec.
const UnitMBPerSec = results.UnitMBPerSec

// UnitBytesPerSec is UnitMBPerSec as benchfmt reads it, in bytes.
//
// Deprecated: use results.UnitBytesPerSec.
const UnitBytesPerSec = results.UnitBytesPerSec

// UnitRetained is the growth of the live heap (after garbage collection)
// from before the store was made to the end of the sample, with the store
// still alive: what the store holds.
//
// Deprecated: use results.UnitRetained.
const UnitRetained = results.UnitRetained

// UnitRetainedPerCert is UnitRetained divided by the certificates in the
// last configuration (0 when it has none).
//
// Deprecated: use results.UnitRetainedPerCert.
const UnitRetainedPerCert = results.UnitRetainedPerCert

// UnitGoroutines is the number of goroutines the store started that are
// still running at the end of the sample.
//
// Deprecated: use results.UnitGoroutines.
const UnitGoroutines = results.UnitGoroutines

// UnitP50, UnitP99 and UnitP999 are the lookup latency percentiles of
// handshake-under-churn samples, in nanoseconds as written.
//
// Deprecated: use results.UnitP50.
const UnitP50 = results.UnitP50

// The units of certbench's result files.
//
// Deprecated: use results.UnitP99.
const UnitP99 = results.UnitP99

// The units of certbench's result files.
//
// Deprecated: use results.UnitP999.
const UnitP999 = results.UnitP999

// UnitP50Sec, UnitP99Sec and UnitP999Sec are UnitP50, UnitP99 and UnitP999
// as benchfmt reads them, in seconds.
//
// Deprecated: use results.UnitP50Sec.
const UnitP50Sec = results.UnitP50Sec

// The units of certbench's result files.
//
// Deprecated: use results.UnitP99Sec.
const UnitP99Sec = results.UnitP99Sec

// The units of certbench's result files.
//
// Deprecated: use results.UnitP999Sec.
const UnitP999Sec = results.UnitP999Sec

// UnitRefreshRate is the number of refreshes a store completed per second
// of a handshake-under-churn sample; higher is better.
//
// Deprecated: use results.UnitRefreshRate.
const UnitRefreshRate = results.UnitRefreshRate

// UnitHandshakes is the handshakes that completed and verified per second
// of wall time of a Handshake phase, over all its clients; higher is
// better.
//
// Deprecated: use results.UnitHandshakes.
const UnitHandshakes = results.UnitHandshakes

// UnitHandshakeP50 ...
//
// Deprecated: use results.UnitHandshakeP50.
const UnitHandshakeP50 = results.UnitHandshakeP50

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP90.
const UnitHandshakeP90 = results.UnitHandshakeP90

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP99.
const UnitHandshakeP99 = results.UnitHandshakeP99

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP999.
const UnitHandshakeP999 = results.UnitHandshakeP999

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeMax.
const UnitHandshakeMax = results.UnitHandshakeMax

// UnitErrors is the number of handshakes of a sample (all phases) that
// failed on either end: a certificate that did not verify against the
// pool's issuer for the name asked, a miss not served the configured
// default, a store error.
//
// Deprecated: use results.UnitErrors.
const UnitErrors = results.UnitErrors

// UnitCalmHandshakes and UnitCalmP99 are UnitHandshakes and
// UnitHandshakeP99 of the churn-free phase of a churn sample (its other
// figures are of the churn phase).
//
// Deprecated: use results.UnitCalmHandshakes.
const UnitCalmHandshakes = results.UnitCalmHandshakes

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitCalmP99.
const UnitCalmP99 = results.UnitCalmP99

// UnitP50ChurnRatio, UnitP99ChurnRatio and UnitP999ChurnRatio are a
// handshake latency percentile under churn divided by the same percentile
// without churn, the same store in the same sample: 1 means churn costs
// handshakes nothing.
//
// Deprecated: use results.UnitP50ChurnRatio.
const UnitP50ChurnRatio = results.UnitP50ChurnRatio

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitP99ChurnRatio.
const UnitP99ChurnRatio = results.UnitP99ChurnRatio

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitP999ChurnRatio.
const UnitP999ChurnRatio = results.UnitP999ChurnRatio

// UnitThroughputChurnRatio is handshakes/s under churn divided by
// handshakes/s without; higher is better (1 is the best).
//
// Deprecated: use results.UnitThroughputChurnRatio.
const UnitThroughputChurnRatio = results.UnitThroughputChurnRatio

// UnitPeak is the largest live heap reached while one refresh runs, above
// the live heap just before it (the store holding its previous
// configuration): what a refresh needs on top of what the store holds.
//
// Deprecated: use results.UnitPeak.
const UnitPeak = results.UnitPeak

// UnitPeakPerCert is UnitPeak divided by the certificates in the refresh's
// configuration.
//
// Deprecated: use results.UnitPeakPerCert.
const UnitPeakPerCert = results.UnitPeakPerCert

// UnitMaxRSS is the process's peak resident set size (getrusage ru_maxrss)
// at the end of a startup sample's timed ops: a process-wide high-water
// mark since the process started, which includes everything certbench did
// before (pool generation, other samples and stores).
//
// Deprecated: use results.UnitMaxRSS.
const UnitMaxRSS = results.UnitMaxRSS

// UnitGCCPU is the CPU time garbage collection took per op, in nanoseconds
// (runtime/metrics /cpu/classes/gc/total:cpu-seconds over the timed window;
// see bench/gcstats.go).
//
// Deprecated: use results.UnitGCCPU.
const UnitGCCPU = results.UnitGCCPU

// UnitGCFraction is GC's CPU time divided by all the CPU time the process
// used in the window (/cpu/classes/total less /cpu/classes/idle): 0.25
// means a quarter of the CPU went to GC.
//
// Deprecated: use results.UnitGCFraction.
const UnitGCFraction = results.UnitGCFraction

// UnitGCCycles is the GC cycles that ended in the window per op.
//
// Deprecated: use results.UnitGCCycles.
const UnitGCCycles = results.UnitGCCycles

// UnitGCPauseP99 and UnitGCPauseMax are the p99 and the largest GC pause
// (stop-the-world phase, /sched/pauses/total/gc:seconds) in a Handshake
// phase, in nanoseconds: upper boundaries of the runtime's histogram
// buckets, at most 25% above the true value; 0 when no GC ran.
//
// Deprecated: use results.UnitGCPauseP99.
const UnitGCPauseP99 = results.UnitGCPauseP99

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitGCPauseMax.
const UnitGCPauseMax = results.UnitGCPauseMax

// The units above that benchfmt's reader tidies, as it reads them
// (nanoseconds become seconds).
//
// Deprecated: use results.UnitHandshakeP50Sec.
const UnitHandshakeP50Sec = results.UnitHandshakeP50Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP90Sec.
const UnitHandshakeP90Sec = results.UnitHandshakeP90Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP99Sec.
const UnitHandshakeP99Sec = results.UnitHandshakeP99Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeP999Sec.
const UnitHandshakeP999Sec = results.UnitHandshakeP999Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitHandshakeMaxSec.
const UnitHandshakeMaxSec = results.UnitHandshakeMaxSec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitCalmP99Sec.
const UnitCalmP99Sec = results.UnitCalmP99Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitGCCPUSec.
const UnitGCCPUSec = results.UnitGCCPUSec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitGCPauseP99Sec.
const UnitGCPauseP99Sec = results.UnitGCPauseP99Sec

// The units of the operator-facing measurements (certbench's bench
// package): real TLS handshakes, the peak heap of a refresh, the process's
// peak RSS, and what garbage collection costs.
//
// Deprecated: use results.UnitGCPauseMaxSec.
const UnitGCPauseMaxSec = results.UnitGCPauseMaxSec

// LowerIsBetter is the direction of costs (time, memory, counts).
//
// Deprecated: use results.LowerIsBetter.
const LowerIsBetter = results.LowerIsBetter

// HigherIsBetter is the direction of rates.
//
// Deprecated: use results.HigherIsBetter.
const HigherIsBetter = results.HigherIsBetter

// MinExactSamples is the fewest samples of a benchmark from which a count
// may be taken as exact: one sample is trivially "all equal" and says
// nothing about whether the count is deterministic.
//
// Deprecated: use results.MinExactSamples.
const MinExactSamples = results.MinExactSamples

// Better returns LowerIsBetter or HigherIsBetter for a known unit, and 0
// for any other.
//
// Deprecated: use results.Better.
func Better(unit string) int { return results.Better(unit) }

// BetterName returns the "better" metadata value of a known unit ("lower"
// or "higher"), or "" for any other.
//
// Deprecated: use results.BetterName.
func BetterName(unit string) string { return results.BetterName(unit) }

// ChurnName returns the name of a sample of scenario on store, without the
// "Benchmark" prefix and the -GOMAXPROCS suffix, as the Go benchmark
// format's writers expect it.
//
// Deprecated: use results.ChurnName.
func ChurnName(scenario, store string) string { return results.ChurnName(scenario, store) }

// CodeSpan returns s as a Markdown code span that is safe in a table cell:
// fenced by more backquotes than s holds in a row, with "|" escaped (GitHub
// reads "\|" as "|" even in a code span in a table).
//
// Deprecated: use results.CodeSpan.
func CodeSpan(s string) string { return results.CodeSpan(s) }

// EscapeMarkdown escapes s for Markdown text and table cells: every
// renderer of certbench (compare, gate, profile) escapes by it.
//
// Deprecated: use results.EscapeMarkdown.
func EscapeMarkdown(s string) string { return results.EscapeMarkdown(s) }

// Format returns v, a value of unit, for people, in certbench's one
// number format.
//
// Deprecated: use results.Format.
func Format(v float64, unit string) string { return results.Format(v, unit) }

// FormatInt formats n with thousands separators: "100,000".
//
// Deprecated: use results.FormatInt.
func FormatInt(n int) string { return results.FormatInt(n) }

// FormatPercent formats a change in percent with its sign and two decimals
// ("+5.00%", "-93.51%"); changes too small to show are "<+0.01%" or
// ">-0.01%", an undefined one "?".
//
// Deprecated: use results.FormatPercent.
func FormatPercent(p float64) string { return results.FormatPercent(p) }

// FormatSigned is Format with a sign: "+1.2 KiB", "-3"; zero has none.
//
// Deprecated: use results.FormatSigned.
func FormatSigned(v float64, unit string) string { return results.FormatSigned(v, unit) }

// IsBytes reports whether Format shows values of unit as byte sizes (B/op,
// retained-B, pprof's bytes, ...), with binary prefixes.
//
// Deprecated: use results.IsBytes.
func IsBytes(unit string) bool { return results.IsBytes(unit) }

// IsCertbench reports whether res is named like one of certbench's own
// results, with both a /scenario= and a /store= part.
//
// Deprecated: use results.IsCertbench.
func IsCertbench(res *benchfmt.Result) bool { return results.IsCertbench(res) }

// IsCount reports whether unit is a count that may be declared exact (B/op,
// allocs/op, goroutines).
//
// Deprecated: use results.IsCount.
func IsCount(unit string) bool { return results.IsCount(unit) }

// IsKnownUnit reports whether unit is one certbench knows, as a file spells
// it ("ns/op") or as the benchfmt reader tidies it ("sec/op").
//
// Deprecated: use results.IsKnownUnit.
func IsKnownUnit(unit string) bool { return results.IsKnownUnit(unit) }

// IsSweep reports whether res is a sweep sample: its name has a family and
// a size.
//
// Deprecated: use results.IsSweep.
func IsSweep(res *benchfmt.Result) bool { return results.IsSweep(res) }

// KnownUnits returns the units certbench knows, as result files spell them
// ("ns/op", not "sec/op"), in report order.
//
// Deprecated: use results.KnownUnits.
func KnownUnits() []string { return results.KnownUnits() }

// NameValue returns the value of the sub-benchmark key in name (the "x" of
// "/key=x") and whether name has the key at all.
//
// Deprecated: use results.NameValue.
func NameValue(name benchfmt.Name, key string) (string, bool) { return results.NameValue(name, key) }

// ScenarioHashKey returns the configuration key of scenario's definition
// hash.
//
// Deprecated: use results.ScenarioHashKey.
func ScenarioHashKey(scenario string) string { return results.ScenarioHashKey(scenario) }

// SweepName returns the name of a sweep sample, as ChurnName does for run.
//
// Deprecated: use results.SweepName.
func SweepName(family string, size int, scenario, store string) string {
	return results.SweepName(family, size, scenario, store)
}

// Title returns the name of unit for people ("time per op" for sec/op), or
// the unit itself if it has none.
//
// Deprecated: use results.Title.
func Title(unit string) string { return results.Title(unit) }

// A UnitInfo describes one unit certbench knows.
//
// Deprecated: use results.UnitInfo.
type UnitInfo = results.UnitInfo

// Info returns what certbench knows of unit, spelled as a file writes it
// ("ns/op") or as benchfmt tidies it ("sec/op"), and whether it knows it.
//
// Deprecated: use results.Info.
func Info(unit string) (UnitInfo, bool) { return results.Info(unit) }

// Units returns the units certbench knows, in report order: time,
// allocation, retained heap, goroutines, the handshake-under-churn units,
// the operator-facing units (handshakes, peak heap, GC), then the testing
// package's throughput.
//
// Deprecated: use results.Units.
func Units() []UnitInfo { return results.Units() }
