package bench

import (
	"cmp"
	"strconv"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// Result returns the sample as a benchfmt result with the given file
// configuration.
func (s Sample) Result(config []benchfmt.Config, procs int) *benchfmt.Result {
	name := cmp.Or(s.Name, results.ChurnName(s.Scenario, s.Store))
	if procs > 1 {
		name += "-" + strconv.Itoa(procs)
	}
	res := &benchfmt.Result{
		Config: config,
		Name:   benchfmt.Name(name),
		Iters:  s.Ops,
		Values: []benchfmt.Value{
			{Value: s.NsPerOp, Unit: results.UnitNsPerOp},
			{Value: s.BytesPerOp, Unit: results.UnitBytes},
			{Value: s.AllocsPerOp, Unit: results.UnitAllocs},
			{Value: s.RetainedBytes, Unit: results.UnitRetained},
			{Value: s.RetainedPerCert, Unit: results.UnitRetainedPerCert},
			{Value: float64(s.Goroutines), Unit: results.UnitGoroutines},
		},
	}
	if s.Instrument == Simulate {
		res.Values = res.Values[1:] // no clock figure: see Simulate
	}
	res.Values = append(res.Values, s.Extra...)
	return res
}
