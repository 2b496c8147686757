package regressions_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

var (
	simRuns  = flag.Int("sim-runs", 0, "gate runs per variant for TestSensitivitySimulated (0 skips it)")
	simCount = flag.Int("sim-count", 5, "samples per side per simulated gate run (one process per side)")
	workList = flag.String("work", "1,0.5", "extra instructions of the work variant, in percent of the store's own instructions/op per scenario, comma-separated (each one a variant)")
	simOps   = flag.Int("sim-ops", 0, "ops per sample on the simulated CPU (0: each scenario's)")
)

// The simulated helper: the variant run under callgrind, every sample of
// every scenario in one process (simulateEnv set), the work variant's
// instructions per op per scenario in workEnv ("scenario=N,...").
const (
	simulateEnv = "CERTBENCH_VARIANT_SIMULATE"
	workEnv     = "CERTBENCH_VARIANT_WORK"
	countEnv    = "CERTBENCH_VARIANT_COUNT"
	opsEnv      = "CERTBENCH_VARIANT_OPS"
)

// simulatedHelper measures kind (Work with workEnv's amounts) on every
// scenario, countEnv samples each, with the simulate instrument.
func simulatedHelper(kind regressions.Kind, info certstore.Info, scs []scenarios.Scenario) error {
	count, err := strconv.Atoi(os.Getenv(countEnv))
	if err != nil {
		return fmt.Errorf("%s: %w", countEnv, err)
	}
	work := map[string]float64{}
	for _, kv := range strings.Split(os.Getenv(workEnv), ",") {
		if name, v, ok := strings.Cut(kv, "="); ok {
			if work[name], err = strconv.ParseFloat(v, 64); err != nil {
				return fmt.Errorf("%s: %w", workEnv, err)
			}
		}
	}
	w := results.NewWriter(os.Stdout, results.InstrumentKey, bench.Simulate, results.SimulatorKey, os.Getenv(callgrind.VersionEnv)+" callgrind, fixed start-up seed")
	for _, sc := range scs {
		newStore := regressions.WrapAny(kind, info.New)
		if kind == regressions.Work {
			newStore = regressions.WrapWork(work[sc.Name], info.New)
		}
		ops, _ := strconv.Atoi(os.Getenv(opsEnv))
		opts := bench.Options{
			Stores:     []certstore.Info{{Name: info.Name, New: newStore}},
			Scenarios:  []scenarios.Scenario{sc},
			Count:      count,
			Ops:        ops,
			Instrument: bench.Simulate,
		}
		if err := bench.Run(context.Background(), opts, func(s bench.Sample) error { return w.Write(s) }); err != nil {
			return err
		}
	}
	return w.Close()
}

// simArm is one variant measured on the simulated CPU: none, or work
// adding percent of the store's instructions/op.
type simArm struct {
	kind    regressions.Kind
	percent float64
}

func (a simArm) String() string {
	if a.kind == regressions.Work {
		return fmt.Sprintf("work+%g%%", a.percent)
	}
	return string(a.kind)
}

// simulate runs one helper process under callgrind: count samples of
// every scenario in scens on kind, with work's instructions per op for
// Work, and returns its output.
func simulate(t *testing.T, kind regressions.Kind, scens string, count int, work map[string]float64) []byte {
	t.Helper()
	dir := t.TempDir()
	cmd, err := callgrind.Command(context.Background(), callgrind.Options{Dir: dir}, os.Args[0], "-test.run=^$")
	if err != nil {
		t.Fatal(err)
	}
	var kv []string
	for name, v := range work {
		kv = append(kv, fmt.Sprintf("%s=%g", name, v))
	}
	cmd.Env = append(cmd.Env, helperEnv+"="+string(kind), simulateEnv+"=1", "CERTBENCH_VARIANT_STORE="+*storeName,
		"CERTBENCH_VARIANT_SCENARIOS="+scens, countEnv+"="+strconv.Itoa(count), workEnv+"="+strings.Join(kv, ","), opsEnv+"="+strconv.Itoa(*simOps))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The start-up randomness fixed, as certbench run --simulate
	// fixes it: the store's hash seed is the same in every process.
	cmd.Env = append(cmd.Env, callgrind.SeedEnv+"=fixed")
	if err = callgrind.StartFixedSeed(cmd, callgrind.Seed); err == nil {
		err = cmd.Wait()
	}
	out := stdout.Bytes()
	if err != nil {
		log, _ := os.ReadFile(dir + "/" + callgrind.LogFile)
		t.Fatalf("simulated helper %s: %v\n%s\n%s", kind, err, stderr.String(), log)
	}
	return out
}

// instructionsOf returns every sample's instructions/op per scenario in a
// result file.
func instructionsOf(t *testing.T, file []byte) map[string][]float64 {
	t.Helper()
	rs, err := results.Read(bytes.NewReader(file), "sim")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, s := range rs.Series {
		sc, _ := results.NameValue(s.Name, results.ScenarioKey)
		if m := s.Metric(results.UnitInstructions); m != nil {
			out[sc] = append(out[sc], m.Values...)
		}
	}
	return out
}

// spread returns max/min - 1.
func spread(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	return slices.Max(vs)/slices.Min(vs) - 1
}

// TestSensitivitySimulated measures the gate on the simulated CPU: for
// each variant, -sim-runs runs of one process per side (base and head at
// once, each -sim-count samples of every scenario under callgrind, as
// certbench run --simulate measures them), then gate.Evaluate
// with the policy of -config. The variants are none (A/A), work+P% for
// each P of -work (the store wrapped by regressions.WrapWork with P% of
// the store's own instructions/op in that scenario, measured once first,
// one sample per scenario, against the same wrapper with no work), and any
// other against none; -sim-ops sets the ops per sample. It
// prints, per scenario, the runs with a false alarm (none: a significant
// change beyond the threshold either way) or with the regression caught
// (work: instructions/op regressed), the spread of instructions/op
// (max/min - 1) over each run's samples of both sides (the largest over
// the runs), and the gate's failures on the other metrics. It fails if a
// work variant of at least +1% is caught in fewer than 90% of runs on a
// scenario. Skipped unless -sim-runs is given; needs valgrind:
//
//	go test ./internal/regressions -run TestSensitivitySimulated -timeout 6h -args -sim-runs=10 -scenarios=default -variants=none
//	go test ./internal/regressions -run TestSensitivitySimulated -args -sim-runs=10 -scenarios=rotate-10-of-100,renew-1-of-1000,noop-10000,lookup-1000 -variants=work -work=1,0.5
func TestSensitivitySimulated(t *testing.T) {
	if *simRuns <= 0 {
		t.Skip("run with -args -sim-runs=N (takes minutes to hours)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	if _, _, err := callgrind.Find(""); err != nil {
		t.Skip(err)
	}
	scen := *scenList
	if scen == "default" {
		scen = strings.Join(scenarios.Names(true), ",")
	}
	scens := strings.Split(scen, ",")
	var arms []simArm
	for _, s := range strings.Split(*kindList, ",") {
		switch k, err := regressions.Parse(strings.TrimSpace(s)); {
		case err != nil:
			t.Fatal(err)
		case k != regressions.Work:
			arms = append(arms, simArm{kind: k})
		default:
			for _, p := range strings.Split(*workList, ",") {
				pct, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
				if err != nil || pct <= 0 {
					t.Fatalf("-work %q: want positive percentages", *workList)
				}
				arms = append(arms, simArm{kind: k, percent: pct})
			}
		}
	}
	policy := gate.DefaultPolicy()
	policyName := "built-in defaults"
	if *config != "" {
		var err error
		if policy, err = gate.LoadConfig(*config); err != nil {
			t.Fatal(err)
		}
		policyName = *config
	}

	// The store's own instructions/op per scenario, for the work
	// variants' percentages.
	own := map[string]float64{}
	if slices.ContainsFunc(arms, func(a simArm) bool { return a.kind == regressions.Work }) {
		for sc, vs := range instructionsOf(t, simulate(t, regressions.None, scen, 1, nil)) {
			own[sc] = vs[0]
		}
	}

	type key struct {
		arm      simArm
		scenario string
	}
	caught := map[key]int{}
	worst := map[key]float64{}
	failed := map[simArm]int{}
	otherUnits := map[simArm]map[string]int{}
	wall := map[simArm]time.Duration{}
	var examples []string
	start := time.Now()
	for _, a := range arms {
		otherUnits[a] = map[string]int{}
		t0 := time.Now()
		work := map[string]float64{}
		baseKind := regressions.None
		if a.kind == regressions.Work {
			baseKind = regressions.Work // with no work: the wrapper alike on both sides
			for sc, v := range own {
				work[sc] = v * a.percent / 100
			}
		}
		for r := 1; r <= *simRuns; r++ {
			var base, head []byte
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); base = simulate(t, baseKind, scen, *simCount, nil) }()
			go func() { defer wg.Done(); head = simulate(t, a.kind, scen, *simCount, work) }()
			wg.Wait()
			if *outDir != "" {
				dir := fmt.Sprintf("%s/%s-%d", *outDir, a, r)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(dir+"/base.txt", base, 0o644)
				os.WriteFile(dir+"/head.txt", head, 0o644)
			}
			bi, hi := instructionsOf(t, base), instructionsOf(t, head)
			for _, sc := range scens {
				k := key{a, sc}
				s := spread(append(slices.Clone(bi[sc]), hi[sc]...))
				if a.kind == regressions.Work {
					s = math.Max(spread(bi[sc]), spread(hi[sc])) // the sides differ by the work
				}
				worst[k] = math.Max(worst[k], s)
			}
			bres, err := results.Read(bytes.NewReader(base), "base")
			if err != nil {
				t.Fatal(err)
			}
			hres, err := results.Read(bytes.NewReader(head), a.String())
			if err != nil {
				t.Fatal(err)
			}
			v, err := gate.Evaluate(bres, hres, policy)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed() {
				failed[a]++
			}
			var line []string
			for _, f := range v.Findings {
				beyond := f.Status == gate.Regressed || (a.kind == regressions.None && f.Status == gate.Improved)
				if !beyond {
					continue
				}
				line = append(line, fmt.Sprintf("%s %s %s", f.Scenario, f.Unit, results.FormatPercent(f.Percent())))
				if f.Unit == results.UnitInstructions {
					caught[key{a, f.Scenario}]++
				} else {
					otherUnits[a][f.Unit]++
				}
				if len(examples) < 5 && a.kind == regressions.None {
					examples = append(examples, fmt.Sprintf("%s run %d: %s %s: %s", a, r, f.Label(), f.Unit, f.Note))
				}
			}
			fmt.Fprintf(os.Stderr, "simulated sensitivity: %s run %d/%d: %s [%s] (%s elapsed)\n", a, r, *simRuns, v.Summary(), strings.Join(line, "; "), time.Since(start).Round(time.Second))
		}
		wall[a] = time.Since(t0)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "simulated CPU: %d runs per variant, %d samples per side (one process per side under callgrind, both at once), store %s\nscenarios: %s\npolicy: %s\n", *simRuns, *simCount, *storeName, scen, policyName)
	if len(own) > 0 {
		var parts []string
		for _, sc := range scens {
			parts = append(parts, fmt.Sprintf("%s %.0f", sc, own[sc]))
		}
		fmt.Fprintf(&b, "store's own instructions/op (work variants' base): %s\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\nper scenario, runs out of %d: none = false alarms on instructions/op (significant beyond the threshold, either way), work = regression caught; spread = the largest max/min-1 of instructions/op over a run's samples (none: both sides together; work: each side)\n\n", *simRuns)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tvariant\tinstructions/op\tspread")
	for _, sc := range scens {
		for _, a := range arms {
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%.4f%%\n", sc, a, caught[key{a, sc}], *simRuns, 100*worst[key{a, sc}])
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nper variant: runs the gate failed, and runs with a change beyond the threshold on other metrics\n\n")
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tgate failed\tother metrics\twall (under the machine's load)")
	for _, a := range arms {
		var other []string
		for _, u := range slices.Sorted(maps.Keys(otherUnits[a])) {
			other = append(other, fmt.Sprintf("%s %d", u, otherUnits[a][u]))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%s\n", a, failed[a], *simRuns, strings.Join(other, ", "), wall[a].Round(time.Second))
	}
	tw.Flush()
	for _, e := range examples {
		fmt.Fprintln(&b, "false alarm:", e)
	}
	t.Log("\n" + b.String())
	fmt.Fprint(os.Stderr, "\n"+b.String())

	for _, a := range arms {
		if a.kind != regressions.Work || a.percent < 1 {
			continue
		}
		for _, sc := range scens {
			if n := caught[key{a, sc}]; 10*n < 9**simRuns {
				t.Errorf("%s on %s: caught in %d/%d runs, want at least 90%%", a, sc, n, *simRuns)
			}
		}
	}
}

// TestWorkAddsInstructions checks, under callgrind, that the work variant
// adds the instructions it is given per op, against the same wrapper with
// no work: the difference of instructions/op is the amount, to within one
// loop iteration and the windows' noise.
func TestWorkAddsInstructions(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs under valgrind (not with -short or -race)")
	}
	if !callgrind.Supported() {
		t.Skip("client requests are implemented for amd64 only")
	}
	if _, _, err := callgrind.Find(""); err != nil {
		t.Skip(err)
	}
	const scen, extra = "lookup-1000", 1000.0
	base := instructionsOf(t, simulate(t, regressions.Work, scen, 2, nil))[scen]
	head := instructionsOf(t, simulate(t, regressions.Work, scen, 2, map[string]float64{scen: extra}))[scen]
	if len(base) != 2 || len(head) != 2 {
		t.Fatalf("samples: base %v head %v", base, head)
	}
	// Lookup windows repeat to within a few instructions per op.
	got := (head[0]+head[1])/2 - (base[0]+base[1])/2
	t.Logf("work of %g instructions per op: %.2f more instructions/op (base %v, head %v)", extra, got, base, head)
	if math.Abs(got-extra) > 10 {
		t.Errorf("work of %g instructions per op added %.2f (base %v, head %v)", extra, got, base, head)
	}
}
