package regressions_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	_ "github.com/certbench/certbench/stores/optimized"
)

var (
	runs      = flag.Int("runs", 0, "gate runs per variant for TestSensitivity (0 skips it)")
	count     = flag.Int("count", bench.DefaultCount, "samples per side per gate run")
	scenList  = flag.String("scenarios", "rotate-10-of-100,rotate-10-of-100-rsa,renew-1-of-1000,multistore-1000,lookup-1000", "scenarios, comma-separated, or \"default\"")
	kindList  = flag.String("variants", "none,allocs,bytes,slow", "variants to measure, comma-separated")
	storeName = flag.String("store", "optimized", "store to wrap")
	outDir    = flag.String("out", "", "keep each run's result files and verdicts in this directory")
	slowList  = flag.String("slow", "25", "slowdowns of the slow variant in percent, comma-separated (each one a variant: -slow=5,10)")
	perScen   = flag.Bool("per-scenario", false, "one process per scenario and side, base and head of a scenario back to back (ABBA per scenario), instead of one process per side running every scenario")
	opsScale  = flag.Int("ops-scale", 1, "multiply every scenario's ops per sample by `k`: a longer timed window per sample")
	config    = flag.String("config", "../../certbench.yaml", "gate policy file (the repository's, as ci-compare.sh uses); '' for the built-in defaults")
)

// arm is one variant measured: its kind, and for Slow the percentage.
type arm struct {
	kind    regressions.Kind
	percent float64
}

func (a arm) String() string {
	if a.kind == regressions.Slow {
		return fmt.Sprintf("slow+%g%%", a.percent)
	}
	return string(a.kind)
}

// The gate's two analyses of the same files.
var methods = []gate.TestChoice{gate.AutoTest, gate.PairedTest, gate.UnpairedTest}

// timeUnits are the time metrics tabulated per scenario.
var timeUnits = []string{results.UnitSec, results.UnitCPUSec}

// The helper process: one sample of every scenario on one variant, written
// in the Go benchmark format to stdout, with the store under its own name.
const helperEnv = "CERTBENCH_VARIANT_HELPER"

func TestMain(m *testing.M) {
	if kind := os.Getenv(helperEnv); kind != "" {
		if err := helper(kind); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(kindName string) error {
	kind, err := regressions.Parse(kindName)
	if err != nil {
		return err
	}
	info, err := certstore.LookupFactory(os.Getenv("CERTBENCH_VARIANT_STORE"))
	if err != nil {
		return err
	}
	sc, err := scenarios.ByName(strings.Split(os.Getenv("CERTBENCH_VARIANT_SCENARIOS"), ",")...)
	if err != nil {
		return err
	}
	if k, err := strconv.Atoi(os.Getenv("CERTBENCH_VARIANT_OPS_SCALE")); err == nil && k > 1 {
		for i := range sc {
			sc[i].Ops *= k
		}
	}
	if os.Getenv(simulateEnv) != "" {
		return simulatedHelper(kind, info, sc)
	}
	w := results.NewWriter(os.Stdout, results.RoundKey, os.Getenv("CERTBENCH_VARIANT_ROUND"))
	newStore := regressions.WrapAny(kind, info.New)
	if kind == regressions.Slow {
		pct, err := strconv.ParseFloat(os.Getenv("CERTBENCH_VARIANT_SLOW"), 64)
		if err != nil {
			return fmt.Errorf("CERTBENCH_VARIANT_SLOW: %w", err)
		}
		newStore = regressions.WrapSlow(pct, info.New)
	}
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: info.Name, New: newStore}},
		Scenarios: sc,
		Count:     1,
	}
	if err := bench.Run(context.Background(), opts, func(s bench.Sample) error { return w.Write(s) }); err != nil {
		return err
	}
	return w.Close()
}

// sample runs one helper process for round round and returns its output.
func sample(t *testing.T, a arm, scen string, round int) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(a.kind), "CERTBENCH_VARIANT_STORE="+*storeName, "CERTBENCH_VARIANT_SCENARIOS="+scen,
		fmt.Sprintf("CERTBENCH_VARIANT_SLOW=%g", a.percent), fmt.Sprintf("CERTBENCH_VARIANT_ROUND=%d", round),
		fmt.Sprintf("CERTBENCH_VARIANT_OPS_SCALE=%d", *opsScale))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", a, err, stderr.String())
	}
	return out
}

// TestVariantsChangeWhatTheySay checks each variant in process, on one
// sample: the cheap sanity check behind TestSensitivity.
func TestVariantsChangeWhatTheySay(t *testing.T) {
	if testing.Short() {
		t.Skip("measures stores")
	}
	info, err := certstore.LookupFactory(*storeName)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.ByName("rotate-10-of-100")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc[0].Build(0)
	if err != nil {
		t.Fatal(err)
	}
	measure := func(k regressions.Kind) bench.Sample {
		var s bench.Sample
		for i := 0; i < 3; i++ { // the first sample of a process pays for runtime warm-up
			s, err = bench.Measure(regressions.Wrap(k, info.New), *storeName, w)
			if err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	base := measure(regressions.None)
	certs := float64(len(w.Configs[1].Certificates))
	// Exact per-op ratios carry the runtime's background allocations, a
	// fraction of one per op, on either side.
	if got := measure(regressions.Allocs); got.AllocsPerOp < base.AllocsPerOp+certs-1 || got.AllocsPerOp > base.AllocsPerOp+certs+2 {
		t.Errorf("allocs variant: %g allocs/op, want %g + %g", got.AllocsPerOp, base.AllocsPerOp, certs)
	}
	if got := measure(regressions.Bytes); got.BytesPerOp < 1.045*base.BytesPerOp || got.BytesPerOp > 1.07*base.BytesPerOp {
		t.Errorf("bytes variant: %g B/op, want about 5%% over %g", got.BytesPerOp, base.BytesPerOp)
	}
	// Per-op counts are exact ratios: the runtime's own background
	// allocations show as a fraction of an allocation per op, but a
	// variant that allocated would add at least one.
	if got := measure(regressions.Slow); math.Abs(got.AllocsPerOp-base.AllocsPerOp) >= 1 {
		t.Errorf("slow variant: %g allocs/op, want %g (it must only cost time)", got.AllocsPerOp, base.AllocsPerOp)
	}
}

// TestSensitivity measures how often the gate fails when head is a variant
// of base, running the protocol of scripts/ci-compare.sh: -count rounds,
// each one process per side (this test binary re-executed as a helper,
// writing "round: N" as certbench run --round does), in ABBA order, then
// gate.Evaluate with the policy of -config (the repository's
// certbench.yaml) three times on the same files: auto (the default:
// paired where the signed-rank test can decide, else the U test), paired
// by round (signed-rank) and unpaired (U test). It is skipped unless -runs
// is given:
//
//	go test ./internal/regressions -run TestSensitivity -timeout 3h -args -runs=10 -scenarios=default -variants=none,slow -slow=5,10
//
// It prints the failure rate per variant, method and metric, and one
// table of the time metrics per scenario: for none (A/A) the runs with a
// false alarm (a significant change beyond the threshold either way), for
// the slow variants the runs in which the slowdown was caught, for sec/op
// and cpu-sec/op, per test. The allocs and bytes variants must fail every
// run, each slow variant at least 90% of runs on sec/op with the auto
// test (what the gate does by default); the none variant is reported, not
// asserted.
func TestSensitivity(t *testing.T) {
	if *runs <= 0 {
		t.Skip("run with -args -runs=N (takes minutes)")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	scen := *scenList
	if scen == "default" {
		scen = strings.Join(scenarios.Names(true), ",")
	}
	scens := strings.Split(scen, ",")
	var arms []arm
	for _, s := range strings.Split(*kindList, ",") {
		k, err := regressions.Parse(strings.TrimSpace(s))
		if err != nil {
			t.Fatal(err)
		}
		if k != regressions.Slow {
			arms = append(arms, arm{kind: k})
			continue
		}
		for _, p := range strings.Split(*slowList, ",") {
			pct, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || pct <= 0 {
				t.Fatalf("-slow %q: want positive percentages", *slowList)
			}
			arms = append(arms, arm{kind: k, percent: pct})
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
	type tally struct {
		failed   int
		byUnit   map[string]int
		examples []string
	}
	type cell struct {
		arm    arm
		method gate.TestChoice
	}
	tallies := map[cell]*tally{}
	// caught[arm, method, scenario, unit]: runs with a significant change
	// beyond the threshold (regressed, or for none either way).
	type timeKey struct {
		cell
		scenario, unit string
	}
	caught := map[timeKey]int{}
	paired := map[cell]int{}
	wall := map[arm]time.Duration{}
	start := time.Now()
	for _, a := range arms {
		for _, m := range methods {
			tallies[cell{a, m}] = &tally{byUnit: map[string]int{}}
		}
		t0 := time.Now()
		for r := 1; r <= *runs; r++ {
			// The base of a slow variant is the same wrapper slowed by 0%
			// (its counter and clock readings cost the same on both sides);
			// of the others, the store itself.
			baseArm := arm{kind: regressions.None}
			if a.kind == regressions.Slow {
				baseArm = arm{kind: regressions.Slow, percent: 0}
			}
			var base, head bytes.Buffer
			groups := []string{scen}
			if *perScen {
				groups = scens
			}
			for i := 1; i <= *count; i++ {
				for _, g := range groups {
					if i%2 == 1 {
						base.Write(sample(t, baseArm, g, i))
						head.Write(sample(t, a, g, i))
					} else {
						head.Write(sample(t, a, g, i))
						base.Write(sample(t, baseArm, g, i))
					}
				}
			}
			dir := fmt.Sprintf("%s/%s-%d", *outDir, a, r)
			if *outDir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(dir+"/base.txt", base.Bytes(), 0o644)
				os.WriteFile(dir+"/head.txt", head.Bytes(), 0o644)
			}
			bres, err := results.Read(bytes.NewReader(base.Bytes()), "base")
			if err != nil {
				t.Fatal(err)
			}
			hres, err := results.Read(bytes.NewReader(head.Bytes()), a.String())
			if err != nil {
				t.Fatal(err)
			}
			var line []string
			for _, m := range methods {
				p := policy.Clone()
				p.Test = m
				v, err := gate.Evaluate(bres, hres, p)
				if err != nil {
					t.Fatal(err)
				}
				if *outDir != "" {
					if f, err := os.Create(fmt.Sprintf("%s/gate-%s.txt", dir, m)); err == nil {
						table.WriteText(f, v.Page())
						f.Close()
					}
				}
				tl := tallies[cell{a, m}]
				if !v.Passed() {
					tl.failed++
				}
				var units []string
				for _, f := range v.Regressions() {
					if !slices.Contains(units, f.Unit) {
						units = append(units, f.Unit)
						tl.byUnit[f.Unit]++
					}
					if len(tl.examples) < 3 {
						tl.examples = append(tl.examples, fmt.Sprintf("%s %s %s", f.Label(), f.Unit, results.FormatPercent(f.Percent())))
					}
				}
				for _, f := range v.Findings {
					if f.Method == gate.SignedRank {
						paired[cell{a, m}]++
					}
					if !slices.Contains(timeUnits, f.Unit) {
						continue
					}
					if f.Status == gate.Regressed || (a.kind == regressions.None && f.Status == gate.Improved) {
						caught[timeKey{cell{a, m}, f.Scenario, f.Unit}]++
					}
				}
				line = append(line, fmt.Sprintf("%s: %s [%s]", m, v.Summary(), strings.Join(units, " ")))
			}
			fmt.Fprintf(os.Stderr, "sensitivity: %s run %d/%d: %s (%s elapsed)\n", a, r, *runs, strings.Join(line, "; "), time.Since(start).Round(time.Second))
		}
		wall[a] = time.Since(t0)
	}

	var b strings.Builder
	protocol := "one process per side and round running every scenario"
	if *perScen {
		protocol = "one process per side, round and scenario, base and head of a scenario back to back"
	}
	fmt.Fprintf(&b, "gate failures per variant: %d runs each, count %d per side (ABBA, %s, paired by round; ops x%d), store %s\nscenarios: %s\npolicy: %s\n\n", *runs, *count, protocol, *opsScale, *storeName, scen, policyName)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\ttest\tgate failed\tsec/op\tcpu-sec/op\tB/op\tallocs/op\tretained-B\tgoroutines\tsigned-rank comparisons\twall")
	for _, a := range arms {
		for _, m := range methods {
			tl := tallies[cell{a, m}]
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", a, m, tl.failed, *runs, tl.byUnit[results.UnitSec], tl.byUnit[results.UnitCPUSec],
				tl.byUnit[results.UnitBytes], tl.byUnit[results.UnitAllocs], tl.byUnit[results.UnitRetained], tl.byUnit[results.UnitGoroutines], paired[cell{a, m}], wall[a].Round(time.Second))
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "\ntime metrics per scenario, runs out of %d: none = false alarms (significant beyond the threshold, either way); slow = slowdown caught\n\n", *runs)
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	header := "scenario\tvariant"
	for _, u := range timeUnits {
		for _, m := range methods {
			header += fmt.Sprintf("\t%s %s", u, m)
		}
	}
	fmt.Fprintln(tw, header)
	for _, sc := range scens {
		for _, a := range arms {
			if a.kind != regressions.None && a.kind != regressions.Slow {
				continue
			}
			row := sc + "\t" + a.String()
			for _, u := range timeUnits {
				for _, m := range methods {
					row += fmt.Sprintf("\t%d/%d", caught[timeKey{cell{a, m}, sc, u}], *runs)
				}
			}
			fmt.Fprintln(tw, row)
		}
	}
	tw.Flush()
	t.Log("\n" + b.String())
	fmt.Fprint(os.Stderr, "\n"+b.String())

	for _, a := range arms {
		tl := tallies[cell{a, gate.AutoTest}]
		switch a.kind {
		case regressions.Allocs:
			if tl.failed != *runs || tl.byUnit[results.UnitAllocs] != *runs {
				t.Errorf("allocs variant: gate failed %d/%d runs, on allocs/op %d: want every run", tl.failed, *runs, tl.byUnit[results.UnitAllocs])
			}
		case regressions.Bytes:
			if tl.failed != *runs || tl.byUnit[results.UnitBytes] != *runs {
				t.Errorf("bytes variant: gate failed %d/%d runs, on B/op %d: want every run", tl.failed, *runs, tl.byUnit[results.UnitBytes])
			}
		case regressions.Slow:
			if 10*tl.byUnit[results.UnitSec] < 9**runs {
				t.Errorf("%s variant: sec/op regression found in %d/%d runs (auto), want at least 90%%", a, tl.byUnit[results.UnitSec], *runs)
			}
		}
	}
}
