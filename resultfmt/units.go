package resultfmt

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
	{UnitBytes, UnitBytes, LowerIsBetter, true, "allocated per op"},
	{UnitAllocs, UnitAllocs, LowerIsBetter, true, "allocations per op"},
	{UnitRetained, UnitRetained, LowerIsBetter, false, "retained heap"},
	{UnitRetainedPerCert, UnitRetainedPerCert, LowerIsBetter, false, "retained heap per certificate"},
	{UnitGoroutines, UnitGoroutines, LowerIsBetter, true, "goroutines left running"},
	{UnitP50, UnitP50Sec, LowerIsBetter, false, "lookup latency, median (p50)"},
	{UnitP99, UnitP99Sec, LowerIsBetter, false, "lookup latency, p99"},
	{UnitP999, UnitP999Sec, LowerIsBetter, false, "lookup latency, p99.9"},
	{UnitRefreshRate, UnitRefreshRate, HigherIsBetter, false, "refreshes per second"},
	{UnitMBPerSec, UnitBytesPerSec, HigherIsBetter, false, ""},
}

// byUnit finds a UnitInfo by either spelling.
var byUnit = func() map[string]UnitInfo {
	m := make(map[string]UnitInfo, 2*len(units))
	for _, u := range units {
		if _, tidy := benchunit.Tidy(1, u.Unit); tidy != u.Tidy {
			panic("resultfmt: " + u.Unit + " tidies to " + tidy + ", not " + u.Tidy)
		}
		m[u.Unit], m[u.Tidy] = u, u
	}
	return m
}()

// Units returns the units certbench knows, in report order: time,
// allocation, retained heap, goroutines, the handshake-under-churn units,
// then the testing package's throughput.
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

// BetterName returns the "better" metadata value of a known unit
// ("lower" or "higher"), or "" for any other.
func BetterName(unit string) string {
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

// Title returns the name of unit for people ("time per op" for sec/op),
// or the unit itself if it has none.
func Title(unit string) string {
	if t := byUnit[unit].Title; t != "" {
		return t
	}
	return unit
}
