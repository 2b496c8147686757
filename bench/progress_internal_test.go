package bench

import (
	"testing"
	"time"

	"github.com/certbench/certbench/scenarios"
)

func TestEstimateLeft(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		name   string
		scens  []scenarioLeft
		want   time.Duration
		wantOK bool
	}{
		{"nothing done", []scenarioLeft{{cost: 1, samples: 4}, {cost: 1, samples: 4}}, 0, false},
		{"equal costs: the mean so far",
			[]scenarioLeft{{cost: 1, samples: 4, done: 4, took: 8 * s}, {cost: 1, samples: 4}, {cost: 1, samples: 4}}, 16 * s, true},
		{"a costlier scenario to come",
			[]scenarioLeft{{cost: 1, samples: 4, done: 4, took: 8 * s}, {cost: 10, samples: 4}}, 80 * s, true},
		{"a cheaper scenario to come",
			[]scenarioLeft{{cost: 4, samples: 2, done: 2, took: 8 * s}, {cost: 1, samples: 2}}, 2 * s, true},
		{"a started scenario by its own samples",
			[]scenarioLeft{{cost: 1, samples: 4, done: 4, took: 4 * s}, {cost: 1, samples: 4, done: 1, took: 5 * s}}, 15 * s, true},
		{"scenarios to come at the pace of all done, per cost",
			[]scenarioLeft{{cost: 1, samples: 2, done: 2, took: 2 * s}, {cost: 2, samples: 2, done: 2, took: 10 * s}, {cost: 3, samples: 2}}, 12 * s, true},
		{"all done", []scenarioLeft{{cost: 1, samples: 2, done: 2, took: 3 * s}}, 0, true},
	} {
		got, ok := estimateLeft(tc.scens)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestEstimateLeftDefaultSet: after the first scenario of the default
// set, the cheapest, the estimate is the sum of the others' costs at its
// pace, not its mean times the samples left (the issue's "7 scenarios
// left, 1m2s" for a run of 6m07s).
func TestEstimateLeftDefaultSet(t *testing.T) {
	def := scenarios.Defaults()
	if len(def) < 2 {
		t.Fatalf("%d default scenarios", len(def))
	}
	costs := sampleCosts(Options{Scenarios: def}, false)
	p := newProgress(nil, true, 12, 1, costs)
	p.startScenario()
	for range 12 {
		p.sampleDone(true)
	}
	first := 9 * time.Second
	p.scens[0].took = first
	got, ok := estimateLeft(p.scens)
	var rest float64
	for _, c := range costs[1:] {
		rest += c
	}
	want := time.Duration(rest / costs[0] * float64(first))
	if d := got - want; !ok || d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("left %v, %v; want %v", got, ok, want)
	}
	if mean := first * time.Duration(len(def)-1); got < 3*mean {
		t.Errorf("left %v: less than 3 times the first scenario's pace (%v) for scenarios with 100 times its pool", got, mean)
	}
}

func TestSampleCost(t *testing.T) {
	byName := func(name string) scenarios.Scenario {
		scs, err := scenarios.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		return scs[0]
	}
	small, large := byName("rotate-10-of-100"), byName("renew-1-of-10000")
	if c, d := sampleCost(small, small.Ops), sampleCost(large, large.Ops); !(d > 5*c) {
		t.Errorf("cost of %s %v, of %s %v: want a pool 100 times larger to cost more than 5 times as much", small.Name, c, large.Name, d)
	}
	lookup := byName("lookup-1000")
	if c, d := sampleCost(lookup, 10), sampleCost(lookup, lookup.Ops); !(d > c) {
		t.Errorf("lookup-1000: cost %v with 10 lookups, %v with %d: want more lookups to cost more", c, d, lookup.Ops)
	}
	// The ops a sample runs: --ops, else the simulated count, else the scenario's.
	one := []scenarios.Scenario{lookup}
	for _, tc := range []struct {
		opts      Options
		simulated bool
		ops       int
	}{
		{Options{Scenarios: one}, false, lookup.Ops},
		{Options{Scenarios: one, Ops: 10}, false, 10},
		{Options{Scenarios: one, Ops: 10}, true, 10},
		{Options{Scenarios: one}, true, SimulateOps(lookup)},
	} {
		if got, want := sampleCosts(tc.opts, tc.simulated)[0], sampleCost(lookup, tc.ops); got != want {
			t.Errorf("Ops %d, simulated %v: cost %v, want %v (%d ops)", tc.opts.Ops, tc.simulated, got, want, tc.ops)
		}
	}
}
