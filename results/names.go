package results

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Base names of the benchmarks certbench writes.
const (
	// ChurnBenchmark is run's: BenchmarkChurn/scenario=S/store=T-2.
	ChurnBenchmark = "BenchmarkChurn"
	// SweepBenchmark is sweep's: BenchmarkSweep/family=F/size=N/scenario=S/store=T-2.
	SweepBenchmark = "BenchmarkSweep"
)

// Sub-benchmark keys of certbench's names ("/key=value").
const (
	ScenarioKey = "scenario" // a result's scenario
	StoreKey    = "store"    // a result's store
	FamilyKey   = "family"   // a sweep sample's scenario family
	SizeKey     = "size"     // a sweep sample's pool size
)

// File configuration keys certbench writes besides the machine's (goos,
// goarch, cpu, go, gomaxprocs).
const (
	// RoundKey is the A/B protocol's round of a sample (run --round N),
	// by which the gate pairs base and head. Read also takes it as a
	// configuration line, as older files hold it.
	RoundKey = "round"
	// InstrumentKey says how the timed ops were measured (absent: the
	// clock); the gate refuses to compare across instruments.
	InstrumentKey = "instrument"
	// SimulatorKey names the simulator and its version: instruction
	// counts compare only within one version.
	SimulatorKey = "simulator"
	// ScenarioHashPrefix begins the key of each scenario's definition
	// hash (ScenarioHashKey); the gate compares only where they agree.
	ScenarioHashPrefix = "scenario-hash."
	// VersionKey records the certbench version that wrote a file.
	VersionKey = "certbench-version"
	// RevisionKey records certbench's VCS revision, when known.
	RevisionKey = "certbench-revision"
	// EndKey is the key of the closing line, "# certbench-end: 24
	// results", by which a file cut short is told (MissingEndWarning).
	EndKey = "certbench-end"
)

// The instruments, as InstrumentKey lines name them.
const (
	InstrumentWall     = "wall"     // the clock (and allocation counters); the default
	InstrumentSimulate = "simulate" // instructions under callgrind
)

// CommentPrefix begins a comment line, "# round: 3": benchstat ignores it,
// so it does not split samples by it; Read reads it as configuration.
const CommentPrefix = "# "

// isCommentKey reports whether a Writer writes key as a comment line: the
// keys that differ between samples or sides of one comparison, which
// would make benchstat table them apart.
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

// ChurnName returns a sample's name without "Benchmark" and -GOMAXPROCS.
func ChurnName(scenario, store string) string {
	return fmt.Sprintf("%s/%s=%s/%s=%s", ChurnBenchmark[len("Benchmark"):], ScenarioKey, scenario, StoreKey, store)
}

// SweepName returns the name of a sweep sample, as ChurnName does for run.
func SweepName(family string, size int, scenario, store string) string {
	return fmt.Sprintf("%s/%s=%s/%s=%d/%s=%s/%s=%s", SweepBenchmark[len("Benchmark"):],
		FamilyKey, family, SizeKey, size, ScenarioKey, scenario, StoreKey, store)
}

// NameValue returns the x of "/key=x" in name, and whether it is there.
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

// IsCertbench reports whether res has a /scenario= and a /store= part.
func IsCertbench(res *benchfmt.Result) bool {
	_, scenario := NameValue(res.Name, ScenarioKey)
	_, store := NameValue(res.Name, StoreKey)
	return scenario && store
}

// IsSweep reports whether res's name has a family and a size.
func IsSweep(res *benchfmt.Result) bool {
	f, _ := NameValue(res.Name, FamilyKey)
	s, _ := NameValue(res.Name, SizeKey)
	return f != "" && s != ""
}
