package history

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchunit"
)

var units = []string{results.UnitInstructions, results.UnitAllocs, results.UnitBytes, results.UnitNsPerOp}

// found returns the change points as "benchmark unit commit".
func found(cps []ChangePoint) []string {
	var out []string
	for _, c := range cps {
		out = append(out, fmt.Sprintf("%s %s %s", c.Benchmark, c.Unit, c.Commit))
	}
	slices.Sort(out)
	return out
}

func TestHistoryPlantedSteps(t *testing.T) {
	// 40 commits; steps of +0.05% instructions at 13 (s00), -0.03% at 30
	// (s00), +1 alloc (of 9,000) at 27 (s01), +60% clock at 20 (s02).
	g := gen{commits: 40, scenarios: 3, samples: 5, units: units, seed: 7, step: func(c, s int, u string) float64 {
		switch {
		case s == 0 && u == results.UnitInstructions:
			f := 1.0
			if c >= 13 {
				f *= 1.0005
			}
			if c >= 30 {
				f *= 0.9997
			}
			return f
		case s == 1 && u == results.UnitAllocs && c >= 27:
			return 1 + 1.0/9000
		case s == 2 && u == results.UnitNsPerOp && c >= 20:
			return 1.6
		}
		return 1
	}}
	dir := t.TempDir()
	g.write(t, dir)
	h, err := Load(context.Background(), dirStore(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != 40 || len(h.Keys) != 12 {
		t.Fatalf("loaded %d commits, %d series; want 40, 12", len(h.Commits), len(h.Keys))
	}
	cps := Changes(h, Options{})
	s := func(i int) string { return results.ChurnName(fmt.Sprintf("s%02d", i), "naive") }
	want := []string{
		s(0) + " instructions/op c00013",
		s(0) + " instructions/op c00030",
		s(1) + " allocs/op c00027",
		s(2) + " sec/op c00020",
	}
	slices.Sort(want)
	if got := found(cps); !slices.Equal(got, want) {
		t.Fatalf("change points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range cps {
		d, lo, hi, _ := c.Relative()
		if lo > d || d > hi || (lo <= 0 && hi >= 0) {
			t.Errorf("%s %s at %s: change %g, interval [%g, %g]: want an interval around it, without 0", c.Benchmark, c.Unit, c.Commit, d, lo, hi)
		}
		if c.Unit == "instructions/op" && c.Commit == "c00013" && (math.Abs(d-0.0005) > 0.00005 || !c.Worse || c.Previous != "c00012") {
			t.Errorf("instructions at c00013: change %g worse %v previous %s; want +0.05%%, worse, c00012", d, c.Worse, c.Previous)
		}
	}
}

// aaRate returns the share of seeds whose A/A history has a change point.
func aaRate(g gen, seeds int, opt Options) (float64, []string) {
	var bad []string
	for seed := range seeds {
		g.seed = uint64(seed)
		if cps := Changes(g.history(), opt); len(cps) > 0 {
			bad = append(bad, fmt.Sprintf("seed %d: %s", seed, found(cps)[0]))
		}
	}
	return float64(len(bad)) / float64(seeds), bad
}

// aaCases are A/A histories: 100 commits of 10 scenarios, 5 samples a
// commit, nothing changing but noise.
var aaCases = []struct {
	name  string
	units []string
	load  float64 // see gen.load
}{
	{"near-exact", []string{results.UnitInstructions, results.UnitEstCycles, results.UnitAllocs, results.UnitBytes}, 0},
	{"noisy", []string{results.UnitNsPerOp, results.UnitP99, results.UnitRetained}, 0},
	{"loaded", []string{results.UnitNsPerOp, results.UnitP99, results.UnitRetained}, 0.01},
}

func TestHistoryAAFalseAlarms(t *testing.T) {
	for _, tc := range aaCases {
		if tc.load != 0 {
			continue // measured, not 0: see BenchmarkHistoryAAFalseAlarms and docs/history.md
		}
		t.Run(tc.name, func(t *testing.T) {
			g := gen{commits: 100, scenarios: 10, samples: 5, units: tc.units, load: tc.load}
			if rate, bad := aaRate(g, 20, Options{}); rate != 0 {
				t.Errorf("A/A histories with a change point at the default settings: %s", strings.Join(bad, "; "))
			}
		})
	}
}

// BenchmarkHistoryAAFalseAlarms measures the share of A/A histories with
// a change point over 1,000 seeds: at the defaults, and for the test
// alone (alpha 0.2, no minimum effects), which a calibrated test keeps
// at 0.2 or less. Run it once: go test -run X -bench AAFalse -benchtime 1x.
func BenchmarkHistoryAAFalseAlarms(b *testing.B) {
	for _, tc := range aaCases {
		b.Run(tc.name, func(b *testing.B) {
			g := gen{commits: 100, scenarios: 10, samples: 5, units: tc.units, load: tc.load}
			noFloor := map[string]float64{}
			for _, u := range tc.units {
				_, tidy := benchunit.Tidy(1, u)
				noFloor[tidy] = 0
			}
			for b.Loop() {
				rate, _ := aaRate(g, 1000, Options{})
				loose, _ := aaRate(g, 1000, Options{Alpha: 0.2, MinEffect: noFloor})
				b.ReportMetric(rate, "false-alarms/history")
				b.ReportMetric(loose, "false-alarms-at-0.2/history")
			}
		})
	}
}

func TestHistoryCreep(t *testing.T) {
	// 10 steps of +0.1% instructions, one every 3 commits from c00010.
	g := gen{commits: 45, scenarios: 2, samples: 1, units: []string{results.UnitInstructions, results.UnitAllocs}, step: func(c, s int, u string) float64 {
		if s == 0 && u == results.UnitInstructions && c >= 10 {
			return math.Pow(1.001, float64(min(10, (c-10)/3+1)))
		}
		return 1
	}}
	h := g.history()
	cps := Changes(h, Options{})
	drift, err := Creep(h, "c00010", cps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := math.Pow(1.001, 10) - 1
	var sig []Drift
	for _, d := range drift {
		if d.Significant {
			sig = append(sig, d)
		}
	}
	if len(sig) != 1 || sig[0].Unit != results.UnitInstructions || sig[0].Since != "c00010" {
		t.Fatalf("significant drifts %+v, want one: instructions/op of s00 since c00010", sig)
	}
	d, lo, hi, _ := sig[0].Relative()
	// Within 2% of the drift: the jitter of 0.001% per commit allows that.
	if tol := want / 50; math.Abs(d-want) > tol || lo > d || hi < d || lo > want+tol || hi < want-tol {
		t.Errorf("drift %g [%g, %g], want %g and an interval around it", d, lo, hi, want)
	}
	t.Logf("creep: drift %+.4f%% [%+.4f%%, %+.4f%%] since c00010, %d change points: %s", 100*d, 100*lo, 100*hi, sig[0].Changes, found(cps))
	if _, err := Creep(h, "nosuch", cps, Options{}); err == nil {
		t.Error("Creep of an unknown commit: no error")
	}
}

func TestHistoryAddRefuses(t *testing.T) {
	dir := t.TempDir()
	g := gen{commits: 1, scenarios: 1, samples: 2, units: units}
	run := g.run(randFor(1), 0)
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, run, 0o644)
	st := dirStore(filepath.Join(dir, "hist"))
	if _, err := Add(context.Background(), st, "aaa", t0, good); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(run), "\n")
	for _, tc := range []struct{ name, data, want string }{
		{"truncated", strings.Join(lines[:len(lines)-3], ""), "truncated"},
		{"miscounted", strings.Replace(string(run), "2 results", "3 results", 1), "closing line says"},
		{"foreign", "BenchmarkFoo 1 5 ns/op\n# certbench-end: 1 results\n", "not a certbench result"},
		{"stored", string(stored(0, run)), "stored file"},
		{"unversioned", "BenchmarkChurn/scenario=a/store=b 1 5 ns/op\n# certbench-end: 1 results\n", "certbench-version"},
		{"malformed", strings.Replace(string(run), "allocs/op", "allocs/op x", 1), "bad.txt:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.txt")
			os.WriteFile(bad, []byte(tc.data), 0o644)
			_, err := Add(context.Background(), st, "bbb", t0, good, bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.txt") {
				t.Fatalf("Add: %v, want an error naming bad.txt: %q", err, tc.want)
			}
			files := 0
			st.Walk(context.Background(), func(string, []byte) error { files++; return nil })
			if files != 1 {
				t.Errorf("after a refused add, %d files stored, want the 1 from before", files)
			}
		})
	}
	if _, err := Add(context.Background(), st, "a b", t0, good); err == nil {
		t.Error("Add with commit \"a b\": no error")
	}
}
