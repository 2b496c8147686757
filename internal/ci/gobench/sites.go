package gobench

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/results"
)

// Sites is a gate.BenchmarkSiteFinder for a Run's benchmarks: it runs a
// regressed benchmark once a side with every allocation profiled and
// compares the functions' own allocations, per iteration (over testing's
// one calibration iteration and the fixed count, setup included).
type Sites struct {
	Ctx     context.Context // bounds the runs (nil: none)
	Options Options
	Result  *Result
}

var _ gate.BenchmarkSiteFinder = (*Sites)(nil)

// GrownSites has nothing for certbench's own scenarios.
func (s *Sites) GrownSites(scenario, store, unit string, n int) ([]cost.Site, error) {
	return nil, fmt.Errorf("%w: %s/%s is not a go test benchmark", cost.ErrNoProfiles, scenario, store)
}

// GrownBenchmarkSites profiles the benchmark on both sides and names the
// functions whose allocations grew most.
func (s *Sites) GrownBenchmarkSites(benchmark, unit string, n int) ([]cost.Site, error) {
	sampleType := cost.SampleTypeOf(unit)
	if sampleType == "" || results.IsSimulated(unit) {
		return nil, fmt.Errorf("%w: %s of a go test benchmark", cost.ErrNoProfiles, unit)
	}
	top := topLevel(benchmark)
	var pkg *Package
	for _, p := range s.Result.Packages {
		if slices.Contains(p.Benchmarks, top) {
			pkg = p
			break
		}
	}
	if pkg == nil {
		return nil, fmt.Errorf("%w: no package has %s", cost.ErrNoProfiles, top)
	}
	dir := filepath.Join(s.Options.Out, "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ctx := cmp.Or(s.Ctx, context.Background())
	var paths [2]string
	for i, side := range ab.Sides {
		bin := [2]string{pkg.Base, pkg.Head}[i]
		paths[i] = filepath.Join(dir, side+"."+top+".pb.gz")
		if _, err := os.Stat(paths[i]); err == nil {
			continue // profiled for the other unit already
		}
		abs, err := filepath.Abs(paths[i])
		if err != nil {
			return nil, err
		}
		args := []string{"-test.run=^$", "-test.bench=^" + regexp.QuoteMeta(top) + "$",
			"-test.benchtime=" + s.Result.Benchtime, "-test.count=1",
			"-test.memprofile=" + abs, "-test.memprofilerate=1"}
		if _, err := runBench(ctx, bin, filepath.Join(treeOf(s.Options, i), pkg.Dir), args); err != nil {
			return nil, fmt.Errorf("profiling %s (%s): %w", top, side, err)
		}
	}
	base, err := cost.Load(paths[0])
	if err != nil {
		return nil, err
	}
	head, err := cost.Load(paths[1])
	if err != nil {
		return nil, err
	}
	c, err := cost.Changes(base, head, sampleType)
	if err != nil {
		return nil, err
	}
	iters, _ := strconv.ParseFloat(strings.TrimSuffix(s.Result.Benchtime, "x"), 64)
	per := iters + 1
	out := c.Grew(n, cost.ByFlat)
	for i := range out {
		out[i].Base, out[i].Head = out[i].Base/per, out[i].Head/per
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the memory profiles of %s show no function that allocates more", top)
	}
	return out, nil
}

// topLevel returns a benchmark name's top-level function:
// "Manager_UpdateConfigs/size=10" and "Manager_UpdateConfigs-2" are
// BenchmarkManager_UpdateConfigs.
func topLevel(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	} else if i := strings.LastIndexByte(name, '-'); i > 0 && i < len(name)-1 && strings.Trim(name[i+1:], "0123456789") == "" {
		name = name[:i]
	}
	return "Benchmark" + strings.TrimPrefix(name, "Benchmark")
}

// Gate gates what Run measured with policy: the simulated CPU's files (as
// ab.SimPolicy makes it) and the clock's, each nil when absent, their
// allocation regressions with the sites that grew (Sites).
func Gate(ctx context.Context, opts Options, res *Result, policy gate.Policy) (sim, clock *gate.Verdict, err error) {
	for _, g := range []struct {
		v          **gate.Verdict
		base, head string
		policy     gate.Policy
	}{{&sim, res.SimBase, res.SimHead, ab.SimPolicy(policy)}, {&clock, res.Base, res.Head, policy}} {
		if g.base == "" {
			continue
		}
		if *g.v, err = ab.GateFiles(g.base, g.head, g.policy); err != nil {
			return nil, nil, err
		}
		(*g.v).AddSites(&Sites{Ctx: ctx, Options: opts, Result: res}, 5)
	}
	return sim, clock, nil
}

// AB returns the ab.RunOptions.Bench that runs and gates these benchmarks
// (opts' Base, Head and Out are the hook's trees and OUT/gobench).
func AB(opts Options, out string) func(ctx context.Context, base, head string, policy gate.Policy) (sim, clock *ab.Result, err error) {
	return func(ctx context.Context, base, head string, policy gate.Policy) (*ab.Result, *ab.Result, error) {
		opts.Base, opts.Head, opts.Out = base, head, filepath.Join(out, "gobench")
		if err := os.MkdirAll(opts.Out, 0o755); err != nil {
			return nil, nil, err
		}
		res, err := Run(ctx, opts)
		if err != nil {
			return nil, nil, err
		}
		vs, vc, err := Gate(ctx, opts, res, policy)
		if err != nil {
			return nil, nil, err
		}
		var sim, clock *ab.Result
		if vs != nil {
			sim = &ab.Result{Verdict: vs, Base: res.SimBase, Head: res.SimHead, Notes: res.Notes}
		}
		if vc != nil {
			clock = &ab.Result{Verdict: vc, Base: res.Base, Head: res.Head}
			if sim == nil {
				clock.Notes = res.Notes
			}
		}
		if sim == nil && clock == nil {
			return nil, nil, &ab.InputError{Err: fmt.Errorf("no benchmark matching %q at both sides in %s (%s)", opts.Bench, strings.Join(opts.Packages, " "), strings.Join(res.Notes, "; "))}
		}
		return sim, clock, nil
	}
}
