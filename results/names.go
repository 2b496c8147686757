package results

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Base names of the benchmarks certbench writes.
const (
	// ChurnBenchmark is the base name of run's samples:
	// BenchmarkChurn/scenario=rotate-10-of-100/store=optimized-2.
	ChurnBenchmark = "BenchmarkChurn"
	// SweepBenchmark is the base name of sweep's samples:
	// BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized-2.
	SweepBenchmark = "BenchmarkSweep"
)

// Sub-benchmark keys of certbench's names ("/key=value").
const (
	// ScenarioKey names a result's scenario.
	ScenarioKey = "scenario"
	// StoreKey names a result's store.
	StoreKey = "store"
	// FamilyKey names a sweep sample's scenario family.
	FamilyKey = "family"
	// SizeKey is a sweep sample's pool size.
	SizeKey = "size"
)

// File configuration keys certbench writes besides the machine's (goos,
// goarch, cpu, go, gomaxprocs).
const (
	// RoundKey is the key of "certbench run --round N": the round of an
	// interleaved base/head protocol (scripts/certbench-ci.sh) a sample
	// was measured in. It applies to every result after it, so it
	// survives concatenation and certbench merge, and the gate pairs base
	// and head samples of the same round. Files written before it became
	// a comment line hold it as a configuration line, "round: N"; Read
	// takes either.
	RoundKey = "round"
	// InstrumentKey is the file configuration line that says how the
	// timed ops were measured: "instrument: simulate" for a run under
	// callgrind (certbench run --instrument simulate). Files without it
	// were measured by the clock ("wall"). The gate refuses to compare
	// samples measured by different instruments.
	InstrumentKey = "instrument"
	// SimulatorKey is the file configuration line naming the simulator
	// and its version ("simulator: valgrind-3.19.0 callgrind"), written
	// with "instrument: simulate": instruction counts compare only
	// between runs of one version.
	SimulatorKey = "simulator"
	// ScenarioHashPrefix begins the key that records the definition hash
	// of each scenario a run measured: "scenario-hash.rotate-10-of-100:
	// 5d0c1e2f3a4b" (see ScenarioHashKey and scenarios.Scenario.Hash).
	// The gate compares base and head only where the hashes of a
	// scenario agree.
	ScenarioHashPrefix = "scenario-hash."
	// VersionKey records the certbench version that wrote a file (see
	// Version).
	VersionKey = "certbench-version"
	// RevisionKey records the VCS revision certbench was built from,
	// when it is known (see Revision).
	RevisionKey = "certbench-revision"
	// EndKey is the key of the closing line a Writer writes when it is
	// closed, "# certbench-end: 24 results": a file written by certbench
	// that lacks it after its last result was cut short (see
	// MissingEndWarning).
	EndKey = "certbench-end"
)

// The instruments, as InstrumentKey lines name them.
const (
	// InstrumentWall measures with the clock, and allocation counters;
	// files without an instrument line are InstrumentWall.
	InstrumentWall = "wall"
	// InstrumentSimulate measures instructions under callgrind, and
	// allocation counters.
	InstrumentSimulate = "simulate"
)

// CommentPrefix begins a comment line: "# " and then a configuration
// line, "# round: 3". The Go benchmark format ignores such lines (a key
// begins with a lower-case letter), so benchstat does not split a
// benchmark's samples by them; Read reads them as configuration lines.
const CommentPrefix = "# "

// isCommentKey reports whether a Writer writes the configuration key as a
// comment line: the keys whose values differ between the samples of one
// comparison (RoundKey, the ScenarioHashPrefix keys, which differ between
// the files a merge joins) or between the builds of base and head
// (VersionKey, RevisionKey), and which would make benchstat table every
// sample, or every side, apart.
func isCommentKey(key string) bool {
	switch key {
	case RoundKey, VersionKey, RevisionKey:
		return true
	}
	return strings.HasPrefix(key, ScenarioHashPrefix)
}

// ScenarioHashKey returns the configuration key of scenario's definition
// hash.
func ScenarioHashKey(scenario string) string { return ScenarioHashPrefix + scenario }

// ChurnName returns the name of a sample of scenario on store, without
// the "Benchmark" prefix and the -GOMAXPROCS suffix, as the Go benchmark
// format's writers expect it.
func ChurnName(scenario, store string) string {
	return fmt.Sprintf("%s/%s=%s/%s=%s", ChurnBenchmark[len("Benchmark"):], ScenarioKey, scenario, StoreKey, store)
}

// SweepName returns the name of a sweep sample, as ChurnName does for run.
func SweepName(family string, size int, scenario, store string) string {
	return fmt.Sprintf("%s/%s=%s/%s=%d/%s=%s/%s=%s", SweepBenchmark[len("Benchmark"):],
		FamilyKey, family, SizeKey, size, ScenarioKey, scenario, StoreKey, store)
}

// NameValue returns the value of the sub-benchmark key in name (the "x"
// of "/key=x") and whether name has the key at all.
func NameValue(name benchfmt.Name, key string) (string, bool) {
	_, parts := name.Parts()
	prefix := []byte("/" + key + "=")
	for _, p := range parts {
		if bytes.HasPrefix(p, prefix) {
			return string(p[len(prefix):]), true
		}
	}
	return "", false
}

// IsCertbench reports whether res is named like one of certbench's own
// results, with both a /scenario= and a /store= part. Results of a plain
// go test -bench (BenchmarkRefresh, BenchmarkLookup/exact) are not.
func IsCertbench(res *benchfmt.Result) bool {
	_, scenario := NameValue(res.Name, ScenarioKey)
	_, store := NameValue(res.Name, StoreKey)
	return scenario && store
}

// IsSweep reports whether res is a sweep sample: its name has a family
// and a size.
func IsSweep(res *benchfmt.Result) bool {
	f, _ := NameValue(res.Name, FamilyKey)
	s, _ := NameValue(res.Name, SizeKey)
	return f != "" && s != ""
}
