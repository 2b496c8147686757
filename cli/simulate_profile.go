package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
)

// simWindows is how many windows profile --simulate takes of
// each job: their median is the profile, so that a cost in one window only
// (the heap grown from the system) does not show as the store's.
const simWindows = 3

// profileSimulated is certbench profile --simulate: simWindows
// samples of each job under callgrind with stacks (certbench re-executes
// itself), kept as DIR/<scenario>.<store>.<n>.sim.pb.gz, and the
// summaries of each job's windows merged returned.
func profileSimulated(ctx context.Context, opts *profileOptions, jobs []profileJob) ([]*cost.Summary, error) {
	var stores []certstore.Info
	var scs []scenarios.Scenario
	for _, j := range jobs {
		if !slices.ContainsFunc(stores, func(i certstore.Info) bool { return i.Name == j.store.Name }) {
			stores = append(stores, j.store)
		}
		if !slices.ContainsFunc(scs, func(s scenarios.Scenario) bool { return s.Name == j.scenario.Name }) {
			scs = append(scs, j.scenario)
		}
	}
	if err := checkSimulated(scs); err != nil {
		return nil, err
	}
	if !underCallgrind() {
		return nil, reexecUnderCallgrind(ctx, opts.ioStreams, scs, callgrind.Options{CacheSim: opts.CacheSim, Stacks: true})
	}
	for _, j := range jobs { // an earlier run's windows would join these
		old, _ := filepath.Glob(filepath.Join(opts.Out, j.scenario.Name+"."+j.store.Name+".*sim.pb.gz"))
		for _, f := range old {
			os.Remove(f)
		}
	}
	bopts := bench.Options{Stores: stores, Scenarios: scs, Count: simWindows, Ops: opts.Ops, Instrument: bench.Simulate, Profiles: opts.Out}
	if opts.All && !opts.Quiet && isTerminal(opts.ioStreams.ErrOut) {
		bopts.Progress = opts.ioStreams.ErrOut
	}
	if err := bench.Run(ctx, bopts, func(bench.Sample) error { return nil }); err != nil {
		return nil, err
	}
	var sums []*cost.Summary
	for _, j := range jobs {
		ws, err := cost.LoadBenchmark(opts.Out, j.scenario.Name, j.store.Name, true)
		if err != nil {
			return nil, err
		}
		p, err := cost.Merge(ws...)
		if err != nil {
			return nil, err
		}
		sum, err := cost.Summarize(p, opts.Top)
		if err != nil {
			return nil, err
		}
		sum.File = filepath.Join(opts.Out, j.scenario.Name+"."+j.store.Name+".{1-"+strconv.Itoa(simWindows)+"}.sim.pb.gz")
		sums = append(sums, sum)
	}
	return sums, nil
}
