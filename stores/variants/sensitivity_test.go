package variants_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/gate"
	"github.com/certbench/certbench/resultfmt"
	"github.com/certbench/certbench/scenarios"
	_ "github.com/certbench/certbench/stores/optimized"
	"github.com/certbench/certbench/stores/variants"
)

var (
	runs      = flag.Int("runs", 0, "gate runs per variant for TestSensitivity (0 skips it)")
	count     = flag.Int("count", bench.DefaultCount, "samples per side per gate run")
	scenList  = flag.String("scenarios", "rotate-10-of-100,rotate-10-of-100-rsa,renew-1-of-1000,multistore-1000,lookup-1000", "scenarios, comma-separated, or \"default\"")
	kindList  = flag.String("variants", "none,allocs,bytes,slow", "variants to measure, comma-separated")
	storeName = flag.String("store", "optimized", "store to wrap")
	outDir    = flag.String("out", "", "keep each run's result files and verdicts in this directory")
)

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
	kind, err := variants.Parse(kindName)
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
	w := bench.NewWriter(os.Stdout)
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: info.Name, New: variants.Wrap(kind, info.New)}},
		Scenarios: sc,
		Count:     1,
	}
	if err := bench.Run(context.Background(), opts, w.Write); err != nil {
		return err
	}
	return w.WriteUnits()
}

// sample runs one helper process and returns its output.
func sample(t *testing.T, kind variants.Kind, scen string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+string(kind), "CERTBENCH_VARIANT_STORE="+*storeName, "CERTBENCH_VARIANT_SCENARIOS="+scen)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", kind, err, stderr.String())
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
	measure := func(k variants.Kind) bench.Sample {
		var s bench.Sample
		for i := 0; i < 3; i++ { // the first sample of a process pays for runtime warm-up
			s, err = bench.Measure(variants.Wrap(k, info.New), *storeName, w)
			if err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	base := measure(variants.None)
	certs := float64(len(w.Configs[1].Certificates))
	if got := measure(variants.Allocs); got.AllocsPerOp < base.AllocsPerOp+certs || got.AllocsPerOp > base.AllocsPerOp+certs+2 {
		t.Errorf("allocs variant: %g allocs/op, want %g + %g", got.AllocsPerOp, base.AllocsPerOp, certs)
	}
	if got := measure(variants.Bytes); got.BytesPerOp < 1.045*base.BytesPerOp || got.BytesPerOp > 1.07*base.BytesPerOp {
		t.Errorf("bytes variant: %g B/op, want about 5%% over %g", got.BytesPerOp, base.BytesPerOp)
	}
	if got := measure(variants.Slow); got.AllocsPerOp != base.AllocsPerOp {
		t.Errorf("slow variant: %g allocs/op, want %g (it must only cost time)", got.AllocsPerOp, base.AllocsPerOp)
	}
}

// TestSensitivity measures how often the gate fails when head is a variant
// of base, running the protocol of scripts/ci-compare.sh: -count rounds,
// each one process per side (this test binary re-executed as a helper),
// in ABBA order, then gate.Evaluate with the default policy. It is skipped
// unless -runs is given:
//
//	go test ./stores/variants -run TestSensitivity -timeout 2h -args -runs=10
//
// The allocs and bytes variants must fail every run, the slow variant at
// least 90% of runs; the none variant (A/A) is reported, not asserted.
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
	var kinds []variants.Kind
	for _, s := range strings.Split(*kindList, ",") {
		k, err := variants.Parse(strings.TrimSpace(s))
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, k)
	}
	type tally struct {
		failed   int
		byUnit   map[string]int
		wall     time.Duration
		examples []string
	}
	results := map[variants.Kind]*tally{}
	start := time.Now()
	for _, k := range kinds {
		tl := &tally{byUnit: map[string]int{}}
		results[k] = tl
		t0 := time.Now()
		for r := 1; r <= *runs; r++ {
			var base, head bytes.Buffer
			for i := 1; i <= *count; i++ {
				if i%2 == 1 {
					base.Write(sample(t, variants.None, scen))
					head.Write(sample(t, k, scen))
				} else {
					head.Write(sample(t, k, scen))
					base.Write(sample(t, variants.None, scen))
				}
			}
			if *outDir != "" {
				dir := fmt.Sprintf("%s/%s-%d", *outDir, k, r)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(dir+"/base.txt", base.Bytes(), 0o644)
				os.WriteFile(dir+"/head.txt", head.Bytes(), 0o644)
			}
			bres, err := compare.Read(&base, "base")
			if err != nil {
				t.Fatal(err)
			}
			hres, err := compare.Read(&head, string(k))
			if err != nil {
				t.Fatal(err)
			}
			v, err := gate.Evaluate(bres, hres, gate.DefaultPolicy())
			if err != nil {
				t.Fatal(err)
			}
			if *outDir != "" {
				f, err := os.Create(fmt.Sprintf("%s/%s-%d/gate.txt", *outDir, k, r))
				if err == nil {
					v.WriteText(f)
					f.Close()
				}
			}
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
					tl.examples = append(tl.examples, fmt.Sprintf("%s %s %s", f.Label(), f.Unit, resultfmt.FormatPercent(f.Percent())))
				}
			}
			fmt.Fprintf(os.Stderr, "sensitivity: %s run %d/%d: %s [%s] (%s elapsed)\n", k, r, *runs, v.Summary(), strings.Join(units, " "), time.Since(start).Round(time.Second))
		}
		tl.wall = time.Since(t0)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "gate failures per variant: %d runs each, count %d per side (ABBA, one process per sample), store %s\nscenarios: %s\n\n", *runs, *count, *storeName, scen)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "variant\tgate failed\tsec/op\tB/op\tallocs/op\tretained-B\tgoroutines\twall")
	for _, k := range kinds {
		tl := results[k]
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%d\t%d\t%d\t%s\n", k, tl.failed, *runs, tl.byUnit[resultfmt.UnitSec], tl.byUnit[resultfmt.UnitBytes], tl.byUnit[resultfmt.UnitAllocs], tl.byUnit[resultfmt.UnitRetained], tl.byUnit[resultfmt.UnitGoroutines], tl.wall.Round(time.Second))
	}
	tw.Flush()
	t.Log("\n" + b.String())
	fmt.Fprint(os.Stderr, "\n"+b.String())

	for _, k := range kinds {
		tl := results[k]
		switch k {
		case variants.Allocs:
			if tl.failed != *runs || tl.byUnit[resultfmt.UnitAllocs] != *runs {
				t.Errorf("allocs variant: gate failed %d/%d runs, on allocs/op %d: want every run", tl.failed, *runs, tl.byUnit[resultfmt.UnitAllocs])
			}
		case variants.Bytes:
			if tl.failed != *runs || tl.byUnit[resultfmt.UnitBytes] != *runs {
				t.Errorf("bytes variant: gate failed %d/%d runs, on B/op %d: want every run", tl.failed, *runs, tl.byUnit[resultfmt.UnitBytes])
			}
		case variants.Slow:
			if 10*tl.byUnit[resultfmt.UnitSec] < 9**runs {
				t.Errorf("slow variant: sec/op regression found in %d/%d runs, want at least 90%%", tl.byUnit[resultfmt.UnitSec], *runs)
			}
		}
	}
}
