package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
)

// isCallgrindFile reports whether path names a callgrind file by
// certbench's or callgrind's naming: *.callgrind, callgrind.out*.
func isCallgrindFile(path string) bool {
	return strings.HasSuffix(path, ".callgrind") || strings.HasPrefix(filepath.Base(path), callgrind.OutFile)
}

// topCallgrind prints the costliest functions of each callgrind file.
func topCallgrind(w io.Writer, format cost.Format, files []string, n int) error {
	var tops []*callgrind.Top
	for _, path := range files {
		if !isCallgrindFile(path) {
			return usagef("%s: not a callgrind file (*.callgrind, callgrind.out*); give heap profiles and callgrind files to separate commands", path)
		}
		ts, err := callgrind.SummarizeFile(path, callgrind.Instructions, n)
		if err != nil {
			return usageError(err)
		}
		tops = append(tops, ts...)
	}
	return callgrind.WriteTops(w, string(format), tops)
}

// profileSimulated is certbench profile --instrument simulate: one sample
// of each job under callgrind (certbench re-executes itself), its window
// kept as DIR/<scenario>.<store>.callgrind, and the top functions printed.
func profileSimulated(ctx context.Context, opts *profileOptions, jobs []profileJob, format cost.Format) error {
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
		return err
	}
	if !underCallgrind() {
		return reexecUnderCallgrind(ctx, opts.ioStreams, scs, opts.CacheSim)
	}
	bopts := bench.Options{Stores: stores, Scenarios: scs, Count: 1, Ops: opts.Ops, Instrument: bench.Simulate, CallgrindDir: opts.Dir}
	if opts.All && !opts.Quiet && isTerminal(opts.ioStreams.ErrOut) {
		bopts.Progress = opts.ioStreams.ErrOut
	}
	if err := bench.Run(ctx, bopts, func(bench.Sample) error { return nil }); err != nil {
		return err
	}
	var tops []*callgrind.Top
	for _, j := range jobs {
		from := filepath.Join(opts.Dir, bench.CallgrindFileName(j.scenario.Name, j.store.Name, 1))
		to := filepath.Join(opts.Dir, j.scenario.Name+"."+j.store.Name+".callgrind")
		if err := os.Rename(from, to); err != nil {
			return err
		}
		ts, err := callgrind.SummarizeFile(to, callgrind.Instructions, opts.Top)
		if err != nil {
			return err
		}
		tops = append(tops, ts...)
	}
	return callgrind.WriteTops(opts.ioStreams.Out, string(format), tops)
}
