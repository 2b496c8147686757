package gobench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/ab"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/gate"
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
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
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
	c, err := cost.Compare(base, head, sampleType)
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
