package surface

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/golden"
)

// rules is the package layout: data flows from certificates to scenarios,
// stores, the runner, result files and the analyses; nothing imports a
// package to its right, and the analyses never import the runner, a pool
// or a store.
var rules = []Rule{
	{"certstore", "the contract: whole `Config`, `Store`, held `Generation`, lookup rules, reference matcher `Match`, registry", []string{"internal/simrand"}},
	{"certgen", "deterministic issuers, leaves and pools, the pool cache, your certificates (PEM directory, Traefik file, Secret list)", []string{"certstore"}},
	{"conformance", "the contract as checks: rules, differential pass, behaviour diff between two stores; `Run(t, New)` for a store's tests", []string{"certstore", "certgen"}},
	{"certstore/conformance", "deprecated: the old path of `conformance`", []string{"certstore", "conformance"}},
	{"scenarios", "the scenario catalogue (embedded YAML), scenario files, sweep families", []string{"certstore", "certgen", "results", "internal/yamlfile"}},
	{"stores/naive", "a model of Traefik v3's TLS manager refresh", []string{"certstore"}},
	{"stores/optimized", "the optimized store", []string{"certstore"}},
	{"stores/variants", "store decorators with known regressions, to measure the gate's sensitivity", []string{"certstore"}},
	{"bench", "the runner: scenario × store, measured (clock, allocations, heap, simulated CPU), profiles captured; `bench.Benchmark`", []string{"certstore", "certgen", "scenarios", "results", "internal/profile", "internal/rendezvous", "internal/callgrind"}},
	{"results", "result files: write, read (streaming), validate, merge; units, names, the number format", nil},
	{"resultfmt", "deprecated: the old path of `results`' vocabulary", []string{"results"}},
	{"internal/bigresults", "a large result file, CI-shaped, to measure the readers' memory (results/memory.md)", []string{"bench", "results"}},
	{"internal/compare", "statistics (x/perf) and tables: text, markdown, CSV, JSON", []string{"results"}},
	{"internal/growth", "growth curves and fitted exponents over pool sizes", []string{"results", "internal/compare"}},
	{"internal/gate", "regression decisions and the policy file; asks an interface for grown sites", []string{"results", "internal/compare", "internal/yamlfile"}},
	{"internal/profile", "pprof and callgrind files: top sites, diffs, blame at the store boundary", []string{"results", "internal/callgrind"}},
	{"internal/blame", "the gate's grown sites from profile analysis: where gate and profile meet", []string{"results", "internal/gate", "internal/profile", "internal/callgrind"}},
	{"internal/report", "HTML page and PNG charts", []string{"results", "internal/compare", "internal/growth", "internal/gate"}},
	{"internal/sweep", "scenario families over pool sizes", []string{"certstore", "scenarios", "results", "bench"}},
	{"internal/ab", "the A/B protocol: build base and head, interleaved rounds, merge, gate, profile on a regression; the one round loop", []string{"results", "internal/gate", "internal/blame", "internal/profile"}},
	{"internal/gobench", "a Go module's own `go test -bench` benchmarks at base and head, in the A/B protocol's rounds, and their grown allocation sites", []string{"results", "internal/gate", "internal/profile", "internal/ab"}},
	{"internal/peerbuild", "a certbench binary whose peer stores run a proxy's code from local trees or releases", nil},
	{"internal/peercheck", "a proxy's pull request checked: conformance, behaviour diff, gate, the proxy's own benchmarks, one comment", []string{"results", "internal/gate", "internal/ab", "internal/gobench", "internal/peerbuild"}},
	{"internal/yamlfile", "YAML input files decoded into structs, errors at file:line:column", nil},
	{"internal/callgrind", "valgrind's callgrind: client requests, running under it, its output files", []string{"internal/simrand"}},
	{"internal/simrand", "the runtime's random stream lined up under the simulated CPU (imported by certstore so that it runs before any store's initialization)", nil},
	{"internal/rendezvous", "processes that start timed work together (`run --sync`)", nil},
	{"internal/golden", "golden files for tests", nil},
	{"internal/surface", "this check: the public API against the last release, the import rules", nil},
	{"cli", "cobra commands (options, flags, a run function each), thin glue; wires profile into gate", []string{"...", "internal/..."}},
	{"cmd/certbench", "the certbench command: `cli.Main` with the stores that ship", []string{"cli", "stores/naive", "stores/optimized"}},
	{"examples", "tests of the example store module's CI recipe", nil},
	{"peers/internal/peerconf", "the peers' conformance table (peers/README.md)", []string{"certstore", "conformance"}},
	{"peers/internal/peermodel", "a peer's lookup model as conformance deviations declared with its registration", []string{"certstore", "conformance"}},
	{"peers/internal/pipeconn", "in-memory connections for the peers' tests", nil},
}

// TestLayout fails when a package imports what its rule does not allow,
// and keeps README's layout table (what each package is for and what it
// imports) in step with the code (-update rewrites it).
func TestLayout(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports, err := Imports(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Violations(imports, rules) {
		t.Error(v)
	}
	var b strings.Builder
	b.WriteString("| package | its one job | imports (this module) |\n|---|---|---|\n")
	for _, r := range rules {
		imps, ok := imports[r.Package]
		if !ok {
			continue
		}
		list := "nothing"
		if len(imps) > 0 {
			list = strings.Join(imps, ", ")
		}
		b.WriteString("| `" + r.Package + "` | " + r.Job + " | " + list + " |\n")
	}
	golden.CheckSection(t, filepath.Join(root, "README.md"), layoutBegin, layoutEnd, []byte(b.String()))
}

const (
	layoutBegin = "<!-- layout: generated by TestLayout in internal/surface (go test ./internal/surface -run TestLayout -update) -->\n"
	layoutEnd   = "<!-- end of layout -->\n"
)
