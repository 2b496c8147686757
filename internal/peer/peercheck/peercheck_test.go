package peercheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/gobench"
	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/internal/peer/peerbuild"
	"github.com/certbench/certbench/results"
)

// sideFiles writes the merged results of n rounds of each side, as the
// A/B protocol writes them (the store renamed to the proxy's), with the
// allocations per op of each side.
func sideFiles(t *testing.T, dir string, n int, allocs [2]float64) (base, head string) {
	t.Helper()
	paths := [2]string{filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")}
	for i, path := range paths {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\n")
		for r := 1; r <= n; r++ {
			fmt.Fprintf(&b, "round: %d\nBenchmarkChurn/scenario=lookup-1000/store=traefik-2 20000 %d ns/op %g allocs/op\n", r, 400000+r*1000, allocs[i])
		}
		b.WriteString("Unit allocs/op assume=exact\n")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths[0], paths[1]
}

// TestComment renders a report whose gate saw lookup-1000 allocations
// fall from 1,989 to 748 per op, whose behaviour diff found a change and
// whose conformance shows a rule newly broken.
func TestComment(t *testing.T) {
	dir := t.TempDir()
	base, head := sideFiles(t, dir, 4, [2]float64{1989, 748})
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ab.GateFiles(base, head, policy)
	if err != nil {
		t.Fatal(err)
	}
	v.Base, v.Head = "base.txt", "head.txt"
	rep := &Outcome{
		Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head",
		Labels: [2]string{"main@1111111", "HEAD@2222222"},
		Conformance: &Conformance{Rules: 106, HeadFails: []string{"Lookup/ChainAndKey", "Lookup/FirstInConfigExact", "Reject/NoNames"},
			Regressed: []string{"Lookup/FirstInConfigExact"}, BaseVaries: []string{"Lookup/ChainAndKey"}, BaseRuns: 4,
			Messages: map[string][]string{"Lookup/FirstInConfigExact": {`lookup.go:30: Store.Certificate("default", "dup.example.org"): got dup2; want dup1`}}},
		Diff: &Diff{Differs: true, Output: "**Behaviour `traefik@base` -> `traefik@head`**: 2 behaviour changes of 1 cause (stopped at its 1m time limit after 4 of 200 iterations, 1,426 lookups, seed 0x5eedce27).\n\n" +
			"| # | cause, then each kind of change | what | seen |\n|--:|---|---|--:|\n" +
			"| 1 | **held generations of the head serve a later configuration** | | 50 |\n" +
			"| 1.1 | exact match -&gt; later configuration's exact match | Certificate(\"default\", \"a.a\") on the held generation of configuration 0 of 2: traefik@base served certificate 0 [\"a.a\"], traefik@head serves certificate 0 [\"a.a\" \"variant 1\"] of configuration 1 (not the held one, 0) | 41 |\n" +
			"| 1.2 | exact match -&gt; later configuration's configured default | Certificate(\"default\", \"a.a\") on the held generation of configuration 0 of 2: traefik@base served certificate 0 [\"a.a\"], traefik@head serves the configured default of \"default\" [\"d\"] of configuration 1 (not the held one, 0) | 9 |\n"},
		Gate: v, SimGate: simVerdict(t, dir, policy), Instrument: InstrumentSimulate, SimCount: 3,
		Skipped:    map[string]string{"gobench": "the base has none of the head's benchmarks in ./pkg/tls/..."},
		GoBenchRun: &gobench.Result{Benchtime: "100x", HeadOnlyRounds: 3, Packages: []*gobench.Package{{ImportPath: "github.com/traefik/traefik/v3/pkg/tls", HeadOnly: []string{"BenchmarkManager_UpdateConfigs"}, BaseOnly: []string{"BenchmarkOld"}}}},
		HeadOnly:   headOnly(t),
		Count:      4, Elapsed: 95 * time.Second,
		Phases: []Phase{{"build", 40 * time.Second}, {"conformance", 10 * time.Second}, {"behaviour diff", 20 * time.Second}, {"scenarios", 25 * time.Second}},
	}
	if rep.Passed() {
		t.Error("Passed() with a behaviour change and a rule newly broken")
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{Marker + "\n### ❌", "instructions/op on the simulated CPU", "| certbench's scenarios, simulated CPU | ❌ 1 regressed",
		"| Manager\\_UpdateConfigs-2 | 1.25G | - | 3.91 KiB | 42 |", "Removed at the head (the base has them): `BenchmarkOld` (github.com/traefik/traefik/v3/pkg/tls)",
		"Not gated: the base has none of the head's benchmarks in ./pkg/tls/...", "lookup-1000/traefik allocs/op 1,989 → 748 (-62.39%)", "#### Behaviour changes",
		// The regression first, named, then what improved: headline and rows.
		"behaviour changed; cost regressed: lookup-1000/traefik instructions/op 50k → 55k (+10.00%); improved: lookup-1000/traefik allocs/op",
		"| certbench's scenarios, simulated CPU | ❌ 1 regressed, 0 improved, 0 unchanged. Regressed: lookup-1000/traefik instructions/op 50k → 55k (+10.00%) |", "traefik@head serves certificate 0 [\"a.a\" \"variant 1\"] of configuration 1", "(build 40s, conformance 10s, behaviour diff 20s, scenarios 25s)",
		"which the base keeps (in 4 runs)", "broke in one of 3 more (its answers vary between runs), not counted against the head: `Lookup/ChainAndKey`"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "#### Behaviour changes"), strings.Index(out, "#### Costs"); i < 0 || j < i {
		t.Error("behaviour changes do not come before costs")
	}
	golden.Check(t, "testdata/comment.md", b.Bytes())
}

// simVerdict gates instructions/op of 3 samples a side, the head's 10% up.
func simVerdict(t *testing.T, dir string, policy gate.Policy) *gate.Verdict {
	t.Helper()
	var paths [2]string
	for i, ir := range []float64{50000, 55000} {
		paths[i] = filepath.Join(dir, fmt.Sprintf("sim-%d.txt", i))
		text := "instrument: simulate\n"
		for r := 1; r <= 3; r++ {
			text += fmt.Sprintf("round: %d\nBenchmarkChurn/scenario=lookup-1000/store=traefik-2 200 %g instructions/op\n", r, ir)
		}
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := ab.GateFiles(paths[0], paths[1], ab.SimPolicy(policy))
	if err != nil {
		t.Fatal(err)
	}
	v.Base, v.Head = "scenarios/sim-base.txt", "scenarios/sim-head.txt" // as peer check names them
	return v
}

// TestCommentSimulatedBenchmarks shows the proxy's benchmarks counted on
// the simulated CPU, and the one that ran on the clock instead.
func TestCommentSimulatedBenchmarks(t *testing.T) {
	dir := t.TempDir()
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	base, head := sideFiles(t, dir, 4, [2]float64{42, 42})
	clock, err := ab.GateFiles(base, head, policy)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Outcome{Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head", Labels: [2]string{"base", "head"},
		GoBenchSim: simVerdict(t, dir, policy), GoBench: clock, SimCount: 3, Count: 4,
		GoBenchRun: &gobench.Result{Benchtime: "100x", Notes: []string{"BenchmarkServe (github.com/traefik/traefik/v3/pkg/tls) ran on the clock: it waits"},
			Packages: []*gobench.Package{{ImportPath: "github.com/traefik/traefik/v3/pkg/tls"}}}}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| the proxy's own benchmarks, simulated CPU | ❌ 1 regressed", "| the proxy's own benchmarks, clock | ✅",
		"`go test -bench` of `github.com/traefik/traefik/v3/pkg/tls` on the simulated CPU, 3 samples a side",
		"on the clock, 4 interleaved rounds at -test.benchtime=100x: the benchmarks the simulated CPU could not count", "BenchmarkServe (github.com/traefik/traefik/v3/pkg/tls) ran on the clock: it waits"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q:\n%s", want, out)
		}
	}
}

// headOnly is 3 samples of two benchmarks only the head has: one
// counted on the simulated CPU (instructions/op, no time), one on the
// clock, as the peer check reads them (gobench's two head-only files).
func headOnly(t *testing.T) *results.Set {
	t.Helper()
	var text string
	for r, ns := range []int{1200000, 1250000, 1300000} {
		text += fmt.Sprintf("round: %d\nBenchmarkManager_UpdateConfigs-2 2 %d instructions/op 4000 B/op 42 allocs/op\n", r+1, 1000*ns)
		text += fmt.Sprintf("BenchmarkGetBestCertificate-2 100 %d ns/op 320 B/op 20 allocs/op\n", ns/1000)
	}
	set, err := results.Read(strings.NewReader(text), "head-only.txt")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestCommentOnTheClock says so when valgrind is not installed.
func TestCommentOnTheClock(t *testing.T) {
	dir := t.TempDir()
	base, head := sideFiles(t, dir, 4, [2]float64{748, 748})
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ab.GateFiles(base, head, policy)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		noValgrind bool
		want       string
	}{
		{true, "The CPU half is the clock (valgrind is not installed)"},
		{false, "The CPU half is the clock (the clock, without --simulate)"},
	} {
		rep := &Outcome{Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head", Gate: v, Instrument: InstrumentWall, NoValgrind: tc.noValgrind, Skipped: map[string]string{}, Count: 4}
		var b bytes.Buffer
		if err := rep.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{tc.want, "| certbench's scenarios | ✅"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("comment lacks %q:\n%s", want, b.String())
			}
		}
		if strings.Contains(b.String(), "simulated CPU |") || strings.Contains(b.String(), "Generations held") {
			t.Error("a simulated CPU row without a simulated pass, or a held table without held scenarios")
		}
	}
}

// TestCommentHeld shows both sides' held figures, a head that keeps a
// goroutine per held generation among them, regressed.
func TestCommentHeld(t *testing.T) {
	dir := t.TempDir()
	var paths [2]string
	for i, goroutines := range []int{0, 1} {
		var b strings.Builder
		for r := 1; r <= 4; r++ {
			fmt.Fprintf(&b, "round: %d\nBenchmarkChurn/scenario=held-20-renew-1-of-100/store=traefik-2 20 %d ns/op %d held-B/gen %d held-goroutines/gen 0 released-held-B 0 released-held-goroutines\n",
				r, 400000+r*1000, 4000+65536*goroutines, goroutines)
		}
		b.WriteString("Unit held-goroutines/gen assume=exact\nUnit released-held-goroutines assume=exact\n")
		paths[i] = filepath.Join(dir, fmt.Sprintf("%d.txt", i))
		if err := os.WriteFile(paths[i], []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ab.GateFiles(paths[0], paths[1], policy)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Outcome{Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head", Labels: [2]string{"v1", "v2"}, Gate: v, Instrument: InstrumentWall, Skipped: map[string]string{}, Count: 4}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| scenario | metric | base v1 | head v2 | gate |",
		"| held-20-renew-1-of-100 | held-goroutines/gen | 0 | 1 | regressed |",
		"| held-20-renew-1-of-100 | held-B/gen | 3.91 KiB | 67.9 KiB | regressed |",
		"| held-20-renew-1-of-100 | released-held-goroutines | 0 | 0 | unchanged |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comment lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCommentUndecided: a clock of 2 rounds cannot decide sec/op. The
// comment says so, and it is neither a pass nor a regression.
func TestCommentUndecided(t *testing.T) {
	dir := t.TempDir()
	base, head := sideFiles(t, dir, 2, [2]float64{748, 748})
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ab.GateFiles(base, head, policy)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Outcome{Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head", Gate: v, Instrument: InstrumentWall,
		Diff: &Diff{}, Skipped: map[string]string{}, Count: 2}
	if !rep.Passed() {
		t.Error("too few samples counted as a failure")
	}
	want := "too few samples on the clock (n=2, need ≥ 4)"
	if got := rep.Undecided(); got != want {
		t.Errorf("Undecided() = %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"### ⚠️ certbench on traefik: cost: not decided, " + want, "| certbench's scenarios | ⚠️ not decided: 1 metric(s) with too few samples; 0 regressed"} {
		if !strings.Contains(out, w) {
			t.Errorf("comment lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "regressed;") || strings.Contains(out, "no regression") {
		t.Errorf("comment calls undecided costs a regression or none:\n%s", out)
	}
}

// TestCommentSkipped: steps skipped by --skip say so and show no figures.
func TestCommentSkipped(t *testing.T) {
	rep := &Outcome{Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head", Instrument: InstrumentWall, Count: 10,
		Diff: &Diff{}, Skipped: map[string]string{"gate": skippedBy + "gate)", "gobench": skippedBy + "gobench)", "conformance": skippedBy + "conformance)"}}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"certbench on traefik: no behaviour change; conformance skipped (--skip conformance); gate on certbench's scenarios skipped (--skip gate)",
		"| certbench's scenarios | ⏭️ skipped (--skip gate) |", "| conformance | ⏭️ skipped (--skip conformance) |", "Skipped (--skip gobench)."} {
		if !strings.Contains(out, w) {
			t.Errorf("comment lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(out, "### ✅") {
		t.Error("a check that ran the diff is not marked ✅")
	}
	for _, no := range []string{"no regression", "interleaved rounds", "not run"} {
		if strings.Contains(out, no) {
			t.Errorf("comment has %q with the gates skipped:\n%s", no, out)
		}
	}
}

// TestNoisyPolicy: instruction counts that vary by 40% between samples
// are gated at the clock's time threshold, counts that vary by 0.01% as
// near-exact.
func TestNoisyPolicy(t *testing.T) {
	dir := t.TempDir()
	var paths [2]string
	for i, scale := range []float64{1, 1.05} {
		paths[i] = filepath.Join(dir, fmt.Sprintf("sim-%d.txt", i))
		text := "instrument: simulate\n"
		for r, x := range []float64{1, 1.4, 1.1, 1.2, 1.3} {
			text += fmt.Sprintf("round: %d\nBenchmarkChurn/scenario=rotate-10-of-100/store=traefik-2 30 %g instructions/op\n", r+1, scale*x*600e6)
			text += fmt.Sprintf("BenchmarkChurn/scenario=lookup-1000/store=traefik-2 200 %g instructions/op\n", scale*(50000+float64(r)))
		}
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	sim := ab.SimPolicy(policy)
	v, err := ab.GateFiles(paths[0], paths[1], sim)
	if err != nil {
		t.Fatal(err)
	}
	noisy, loose := noisyPolicy(v, sim, policy)
	if len(noisy) != 1 || !strings.HasPrefix(noisy[0], "rotate-10-of-100/traefik (instructions/op 600M") {
		t.Fatalf("noisy = %q, want rotate-10-of-100 alone", noisy)
	}
	v, err = ab.GateFiles(paths[0], paths[1], loose)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range v.Findings {
		if f.Unit != results.UnitInstructions {
			continue
		}
		want := map[string]gate.Status{"rotate-10-of-100": gate.Unchanged, "lookup-1000": gate.Regressed}[f.Scenario]
		if f.Status != want {
			t.Errorf("%s: %s (%s), want %s", f.Label(), f.Status, f.Note, want)
		}
	}
}
