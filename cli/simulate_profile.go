package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
)

// profileSimulated is certbench profile --instrument simulate: one sample
// of each job under callgrind with stacks (certbench re-executes itself),
// its window kept as DIR/<scenario>.<store>.sim.pb.gz, and their
// summaries returned.
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
	bopts := bench.Options{Stores: stores, Scenarios: scs, Count: 1, Ops: opts.Ops, Instrument: bench.Simulate, Profiles: opts.Dir}
	if opts.All && !opts.Quiet && isTerminal(opts.ioStreams.ErrOut) {
		bopts.Progress = opts.ioStreams.ErrOut
	}
	if err := bench.Run(ctx, bopts, func(bench.Sample) error { return nil }); err != nil {
		return nil, err
	}
	var sums []*cost.Summary
	for _, j := range jobs {
		to := filepath.Join(opts.Dir, cost.SimFileName(j.scenario.Name, j.store.Name, 0))
		if err := os.Rename(filepath.Join(opts.Dir, cost.SimFileName(j.scenario.Name, j.store.Name, 1)), to); err != nil {
			return nil, err
		}
		p, err := cost.Load(to)
		if err != nil {
			return nil, err
		}
		sum, err := cost.Summarize(p, opts.Top)
		if err != nil {
			return nil, err
		}
		sum.File = to
		sums = append(sums, sum)
	}
	return sums, nil
}
