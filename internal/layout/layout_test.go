// Package layout_test checks the module's package layout: what each
// package is for and which packages of the module it may import. It has
// no code of its own, only this test.
package layout_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/golden"
)

const module = "github.com/certbench/certbench"

// rule is what one package is for and which packages of the module it may
// import ("..." any package outside internal/, "dir/..." a tree).
type rule struct {
	Package string
	Job     string
	May     []string
}

// rules is the package layout: data flows from certificates to scenarios,
// stores, the runner, result files and the analyses; nothing imports a
// package to its right, and the analyses never import the runner, a pool
// or a store.
var rules = []rule{
	// The harness: the contract, certificates, scenarios, stores, the runner, result files and their analyses.
	{"certstore", "the contract: whole `Config`, `Store`, held `Generation`, lookup rules, reference matcher `Match`, registry", nil},
	{"certgen", "deterministic issuers, leaves and pools, the pool cache, your certificates (PEM directory, Traefik file, Secret list)", []string{"certstore"}},
	{"conformance", "the contract as checks: rules, differential pass, behaviour diff between two stores; `Run(t, New)` for a store's tests; `Isolated` runs them in a child process", []string{"certstore", "certgen", "results", "internal/table"}},
	{"scenarios", "the scenario catalogue (embedded YAML), scenario files, sweep families", []string{"certstore", "certgen", "results", "internal/yamlfile"}},
	{"stores/naive", "a model of Traefik v3's TLS manager refresh", []string{"certstore"}},
	{"stores/optimized", "the optimized store", []string{"certstore"}},
	{"internal/regressions", "store decorators with known regressions, to measure the gate's sensitivity", []string{"certstore"}},
	{"bench", "the runner: scenario × store, measured (clock, allocations, heap, simulated CPU), profiles captured, sweeps over pool sizes; `bench.Benchmark`", []string{"certstore", "certgen", "scenarios", "results", "internal/cost", "internal/callgrind", "internal/simrand"}},
	{"results", "result files: write, read (streaming), validate, merge; units, names, the number format", nil},
	{"internal/table", "the one table model of every output and its renderers: text, Markdown, CSV, HTML", []string{"results"}},
	{"internal/compare", "statistics (x/perf) and their tables", []string{"results", "internal/table"}},
	{"internal/growth", "growth curves and fitted exponents of sweep results", []string{"results", "internal/compare", "internal/table"}},
	{"internal/cost", "the one cost model: heap profiles and callgrind windows read into pprof's stacks, per op; top sites, diffs, the store lines that grew (the gate's sites), differential flame graphs", []string{"results", "internal/table"}},
	{"internal/callgrind", "valgrind's callgrind: client requests, running a program under it, reading a window's dump into the cost model", []string{"internal/simrand", "internal/cost"}},
	{"internal/simrand", "the runtime's per-thread random stream reset under the simulated CPU (imported by bench; its initialization runs before any store's)", nil},
	{"internal/yamlfile", "YAML input files decoded into structs, errors at file:line:column; the did-you-mean of every mistyped name", nil},
	{"internal/report", "HTML page and PNG charts", []string{"results", "internal/compare", "internal/cost", "internal/growth", "internal/ci/gate", "internal/ci/history", "internal/table"}},
	{"internal/bigresults", "a large result file, CI-shaped, to measure the readers' memory (results/memory.md)", []string{"bench", "results"}},
	// The gate in CI: regression decisions, main's history, the A/B protocol, a module's own benchmarks.
	{"internal/ci/gate", "regression decisions and the policy file; asks an interface for the sites that grew (cost.Site)", []string{"results", "internal/compare", "internal/cost", "internal/table", "internal/yamlfile"}},
	{"internal/ci/history", "results per commit (a directory or a git ref), change points and creep over commits", []string{"results", "internal/table"}},
	{"internal/ci/ab", "the CI protocol: build base and head, interleaved rounds, merge, gate, profile on a regression (the one round loop); or the head against main's history, recorded there on push, a range backfilled", []string{"results", "internal/ci/gate", "internal/cost", "internal/ci/history", "internal/table"}},
	{"internal/ci/gobench", "a Go module's own `go test -bench` benchmarks at base and head, in the A/B protocol's rounds or on the simulated CPU, and their grown allocation sites", []string{"results", "internal/ci/gate", "internal/cost", "internal/ci/ab", "internal/callgrind"}},
	// The proxies' pull requests: a binary with both sides as stores, and its check.
	{"internal/peer/peerbuild", "a certbench binary whose peer stores run a proxy's code from local trees or releases", nil},
	{"internal/peer/peercheck", "a proxy's pull request checked: conformance, behaviour diff, gate, the proxy's own benchmarks, one comment", []string{"results", "scenarios", "internal/ci/gate", "internal/ci/ab", "internal/ci/gobench", "internal/peer/peerbuild", "internal/table"}},
	// Test support, the commands and the examples.
	{"internal/golden", "golden files for tests", nil},
	{"internal/layout", "this check: the import rules and this table (tests only)", nil},
	{"cli", "cobra commands (options, flags, a run function each), thin glue; wires the cost model into gate", []string{"...", "internal/..."}},
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
	imports := moduleImports(t, root)
	byPkg := map[string]rule{}
	for _, r := range rules {
		byPkg[r.Package] = r
	}
	for p, imps := range imports {
		r, ok := byPkg[p]
		if !ok {
			t.Errorf("%s: no rule says what it is for and what it may import", p)
		}
		for _, imp := range imps {
			if ok && !allowed(r.May, imp) {
				t.Errorf("%s imports %s", p, imp)
			}
		}
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
	layoutBegin = "<!-- layout: generated by TestLayout in internal/layout (go test ./internal/layout -update) -->\n"
	layoutEnd   = "<!-- end of layout -->\n"
)

// moduleImports returns, for every package of the module at root
// (relative paths), the packages of the module its non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		var own []string
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				own = append(own, rel)
			}
		}
		slices.Sort(own)
		imports[strings.TrimPrefix(fields[0], module+"/")] = own
	}
	return imports
}

// allowed reports whether imp matches one of may.
func allowed(may []string, imp string) bool {
	for _, m := range may {
		if m == "..." && !strings.HasPrefix(imp, "internal/") {
			return true
		}
		if m == imp || (strings.HasSuffix(m, "/...") && strings.HasPrefix(imp, strings.TrimSuffix(m, "..."))) {
			return true
		}
	}
	return false
}
