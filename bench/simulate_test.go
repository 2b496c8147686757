package bench_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

func TestSimulateOutsideCallgrind(t *testing.T) {
	if callgrind.Running() {
		t.Skip("runs under valgrind")
	}
	t.Setenv(callgrind.DirEnv, "")
	info, err := certstore.LookupFactory("optimized")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.ByName("lookup-1000")
	if err != nil {
		t.Fatal(err)
	}
	opts := bench.Options{Stores: []certstore.Info{info}, Scenarios: sc, Count: 1, Instrument: bench.Simulate}
	err = bench.Run(context.Background(), opts, func(bench.Sample) error { t.Error("a sample outside callgrind"); return nil })
	if !errors.Is(err, callgrind.ErrNotUnderCallgrind) || !strings.Contains(err.Error(), "run --simulate") {
		t.Errorf("Run outside callgrind: %v", err)
	}
	opts.Instrument = "clock"
	if err := bench.Run(context.Background(), opts, func(bench.Sample) error { return nil }); err == nil || !strings.Contains(err.Error(), `unknown instrument "clock"`) {
		t.Errorf("unknown instrument: %v", err)
	}
}

func TestCheckSimulate(t *testing.T) {
	for _, name := range scenarios.Names(false) {
		sc, err := scenarios.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		err = sc[0].CheckSimulate()
		rejected := sc[0].Kind == scenarios.Handshake || sc[0].Kind == scenarios.HandshakeUnderChurn || sc[0].Kind == scenarios.Held
		if rejected != (err != nil) {
			t.Errorf("%s (%s): CheckSimulate %v", name, sc[0].Kind, err)
		}
		ops := bench.SimulateOps(sc[0])
		if want := sc[0].Ops; sc[0].Kind == scenarios.Startup && ops != 1 || sc[0].Kind != scenarios.Startup && ops != want {
			t.Errorf("%s (%s): SimulateOps %d, ops %d", name, sc[0].Kind, ops, want)
		}
	}
}

func TestSimulatedSampleHasNoTime(t *testing.T) {
	s := bench.Sample{Scenario: "x", Store: "y", Ops: 10, NsPerOp: 123, Instrument: bench.Simulate,
		Extra: []benchfmt.Value{{Value: 1000, Unit: results.UnitInstructions}}}
	res := s.Result(nil, 1)
	for _, v := range res.Values {
		if v.Unit == results.UnitNsPerOp {
			t.Errorf("a simulated sample writes %s", v.Unit)
		}
	}
	if res.Values[len(res.Values)-1].Unit != results.UnitInstructions {
		t.Errorf("values %v: want instructions/op last", res.Values)
	}
	s.Instrument = ""
	if s.Result(nil, 1).Values[0].Unit != results.UnitNsPerOp {
		t.Error("a wall sample without ns/op first")
	}
}
