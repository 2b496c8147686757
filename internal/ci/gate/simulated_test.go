package gate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

// simScenarios are the benchmarks of the simulated fixtures: as many as
// the default set, so that a correction for multiple comparisons would
// matter.
var simScenarios = []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"}

// simNoise multiplies a simulated sample: a few hundredths of a percent,
// as callgrind windows repeat.
var simNoise = []float64{1, 1.0002, 0.9998, 1.0003, 0.9999, 1.0001}

// simFile renders a result file of simulated samples: n samples of every
// scenario, instructions/op base*(1+change[scenario])*noise, and
// outlier[scenario][sample] multiplying that sample.
func simFile(t *testing.T, name string, n int, change map[string]float64, outlier map[string]map[int]float64, instrument string) *results.Set {
	t.Helper()
	return readText(t, name, simText(n, change, outlier, instrument))
}

func readText(t *testing.T, name, text string) *results.Set {
	t.Helper()
	rs, err := results.Read(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// simText is the text of simFile.
func simText(n int, change map[string]float64, outlier map[string]map[int]float64, instrument string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "goos: linux\ngoarch: amd64\ncpu: AMD EPYC\ngo: go1.26.8\ngomaxprocs: 1\n")
	if instrument != "" {
		fmt.Fprintf(&sb, "instrument: %s\nsimulator: valgrind-3.19.0 callgrind\n", instrument)
	}
	for i := range n {
		for k, sc := range simScenarios {
			v := float64(1_000_000*(k+1)) * (1 + change[sc]) * simNoise[(i+k)%len(simNoise)]
			if m, ok := outlier[sc][i]; ok {
				v *= m
			}
			fmt.Fprintf(&sb, "BenchmarkChurn/scenario=%s/store=optimized 10 100 B/op 2 allocs/op %.1f instructions/op\n", sc, v)
		}
	}
	return sb.String()
}

func simEvaluate(t *testing.T, base, head *results.Set) *gate.Verdict {
	t.Helper()
	v, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNearExactAAPasses(t *testing.T) {
	// One outlier window on each side (+0.8%, a collection or a stray
	// event in a window), on different scenarios: the medians do not move.
	base := simFile(t, "base", 5, nil, map[string]map[int]float64{"s2": {3: 1.008}}, results.InstrumentSimulate)
	head := simFile(t, "head", 5, nil, map[string]map[int]float64{"s5": {0: 1.008}}, results.InstrumentSimulate)
	v := simEvaluate(t, base, head)
	if !v.Passed() {
		var b strings.Builder
		writeText(v, &b)
		t.Fatalf("A/A with near-exact noise and outliers failed:\n%s", b.String())
	}
	for _, sc := range simScenarios {
		f := find(t, v, sc, results.UnitInstructions)
		if f.Method != gate.NearExact || f.Status != gate.Unchanged {
			t.Errorf("%s: method %s status %s (%s), want near-exact unchanged", sc, f.Method, f.Status, f.Note)
		}
	}
}

func TestNearExactCatchesHalfAPercent(t *testing.T) {
	base := simFile(t, "base", 5, nil, nil, results.InstrumentSimulate)
	head := simFile(t, "head", 5, map[string]float64{"s1": 0.005, "s2": 0.001, "s3": -0.005}, nil, results.InstrumentSimulate)
	v := simEvaluate(t, base, head)
	if v.Passed() {
		t.Fatal("a +0.5% instruction regression passed")
	}
	for sc, want := range map[string]gate.Status{"s1": gate.Regressed, "s2": gate.Unchanged, "s3": gate.Improved, "s4": gate.Unchanged} {
		f := find(t, v, sc, results.UnitInstructions)
		if f.Status != want || f.Method != gate.NearExact {
			t.Errorf("%s: %s by %s (%s), want %s", sc, f.Status, f.Method, f.Note, want)
		}
	}
	// +0.1% is real (the samples separate) but within +0.25%.
	if f := find(t, v, "s2", results.UnitInstructions); !f.Significant || !strings.Contains(f.Note, "within +0.25%") {
		t.Errorf("s2: significant %v, note %q; want significant and within the threshold", f.Significant, f.Note)
	}
	if f := find(t, v, "s1", results.UnitInstructions); !strings.Contains(f.Note, "not corrected") || !strings.Contains(f.Note, "spread base") {
		t.Errorf("s1 note %q: want the test and the spreads named", f.Note)
	}
}

func TestNearExactOutlierCannotFakeARegression(t *testing.T) {
	// Two of five head windows of s1 far above the rest: the median stays.
	base := simFile(t, "base", 5, nil, nil, results.InstrumentSimulate)
	head := simFile(t, "head", 5, nil, map[string]map[int]float64{"s1": {1: 1.02, 4: 1.03}}, results.InstrumentSimulate)
	if v := simEvaluate(t, base, head); !v.Passed() {
		t.Errorf("two outlier windows made a regression: %s", find(t, v, "s1", results.UnitInstructions).Note)
	}
}

func TestNearExactTiesAreExact(t *testing.T) {
	same := func(name string, change float64) *results.Set {
		var sb strings.Builder
		sb.WriteString("instrument: simulate\n")
		for range 3 {
			fmt.Fprintf(&sb, "BenchmarkChurn/scenario=s1/store=x 10 %.1f instructions/op\n", 5000*(1+change))
		}
		rs, err := results.Read(strings.NewReader(sb.String()), name)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	v := simEvaluate(t, same("base", 0), same("head", 0))
	if f := find(t, v, "s1", results.UnitInstructions); f.Method != gate.Exact || f.Status != gate.Unchanged {
		t.Errorf("identical windows: %s %s", f.Method, f.Status)
	}
	v = simEvaluate(t, same("base", 0), same("head", 0.01))
	if f := find(t, v, "s1", results.UnitInstructions); f.Method != gate.Exact || f.Status != gate.Regressed {
		t.Errorf("identical windows, +1%%: %s %s", f.Method, f.Status)
	}
}

func TestNearExactTooFewSamples(t *testing.T) {
	base := simFile(t, "base", 3, nil, nil, results.InstrumentSimulate)
	head := simFile(t, "head", 3, map[string]float64{"s1": 0.05}, nil, results.InstrumentSimulate)
	v := simEvaluate(t, base, head)
	if f := find(t, v, "s1", results.UnitInstructions); f.Status != gate.TooFewSamples || v.Passed() {
		t.Errorf("3 samples a side: %s (%s), want too few samples and a failure", f.Status, f.Note)
	}
}

func TestMixedInstrumentsRefused(t *testing.T) {
	wall := simFile(t, "wall", 5, nil, nil, "")
	sim := simFile(t, "sim", 5, nil, nil, results.InstrumentSimulate)
	// Configuration lines carry on to the results after them: the wall
	// samples first.
	mixed := readText(t, "mixed", simText(5, nil, nil, "")+simText(5, nil, nil, results.InstrumentSimulate))
	for _, tc := range []struct {
		name       string
		base, head *results.Set
	}{
		{"wall vs simulate", wall, sim},
		{"simulate vs wall", sim, wall},
		{"a mixed side", sim, mixed},
	} {
		_, err := gate.Evaluate(tc.base, tc.head, gate.DefaultPolicy())
		if !errors.Is(err, gate.ErrMixedInstruments) || !errors.Is(err, gate.ErrInput) {
			t.Errorf("%s: %v, want ErrMixedInstruments and ErrInput", tc.name, err)
		} else if !strings.Contains(err.Error(), "separately") {
			t.Errorf("%s: %v: want the way out", tc.name, err)
		}
	}
	if got := gate.InstrumentsOf(mixed); strings.Join(got, ",") != "simulate,wall" {
		t.Errorf("InstrumentsOf = %q", got)
	}
	// A side whose stores all failed has no results and no instrument:
	// the gate goes on and reports the failure, as under the clock.
	failed := readText(t, "failed", "goos: linux\n--- FAIL: BenchmarkChurn/scenario=s1/store=x\n    panic in Update\n")
	if got := gate.InstrumentsOf(failed); len(got) != 0 {
		t.Errorf("InstrumentsOf(only a failure) = %q", got)
	}
	for _, side := range []*results.Set{wall, sim} {
		if _, err := gate.Evaluate(side, failed, gate.DefaultPolicy()); errors.Is(err, gate.ErrMixedInstruments) {
			t.Errorf("%s vs a head of failures only: %v", gate.InstrumentsOf(side), err)
		}
	}
	// The same instrument on both sides compares.
	if _, err := gate.Evaluate(wall, simFile(t, "wall2", 5, nil, nil, results.InstrumentWall), gate.DefaultPolicy()); err != nil {
		t.Errorf("wall (no line) vs wall (explicit line): %v", err)
	}
}

func TestInstructionThresholds(t *testing.T) {
	for _, tc := range []struct{ unit, in, want string }{
		{results.UnitInstructions, "+1000instructions", "+1000instructions"},
		{results.UnitInstructions, "+50 instr", "+50instructions"},
		{results.UnitEstCycles, "+20cycles", "+20cycles"},
		{results.UnitInstructions, "+0.5%", "+0.5%"},
	} {
		unit, th, err := gate.ParseMax(tc.unit + "=" + tc.in)
		if err != nil || unit != tc.unit || th.String() != tc.want {
			t.Errorf("ParseMax(%s=%s) = %s %v %v, want %s", tc.unit, tc.in, unit, th, err, tc.want)
		}
	}
	for _, bad := range []string{"instructions/op=+1KiB", "est-cycles/op=+5instructions", "instructions/op=3"} {
		if _, _, err := gate.ParseMax(bad); err == nil {
			t.Errorf("ParseMax(%s) accepted", bad)
		}
	}
	// An absolute threshold decides as a relative one does.
	base := simFile(t, "base", 5, nil, nil, results.InstrumentSimulate)
	head := simFile(t, "head", 5, map[string]float64{"s1": 0.002}, nil, results.InstrumentSimulate) // +2000 instructions
	p := gate.DefaultPolicy()
	if err := p.SetMax(results.UnitInstructions, gate.MustThreshold("+1000cycles")); err == nil {
		t.Error("SetMax accepted cycles for instructions/op")
	}
	th, err := gate.ParseThreshold("+1000instr")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetMax(results.UnitInstructions, th); err != nil {
		t.Fatal(err)
	}
	v, err := gate.Evaluate(base, head, p)
	if err != nil {
		t.Fatal(err)
	}
	if f := find(t, v, "s1", results.UnitInstructions); f.Status != gate.Regressed {
		t.Errorf("+2000 instructions against +1000instructions: %s (%s)", f.Status, f.Note)
	}
}
