package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// SweepOptions are the options of certbench sweep.
type sweepOptions struct {
	ioStreams ioStreams
	Families  []string // --scenarios
	Sizes     []int
	Stores    []string
	Count     int           // samples at sizes up to 10,000
	Budget    time.Duration // per store and size; 0: no bound
	Output    string        // -o: then the tables go to IO.Out; "" or "-": to IO.ErrOut
	Quiet     bool
}

func newSweepCmd(runF func(context.Context, *sweepOptions) error) *cobra.Command {
	opts := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Measure how stores grow with the number of certificates, and fit the growth",
		Long: `sweep runs scenario families (--scenarios: ` + strings.Join(familyNames(), ", ") + `)
at each pool size on every store, writes the samples in the Go benchmark format
(BenchmarkSweep/family=renew-1/size=1000/...), and prints the median per size
and the growth exponent k of each store and metric (value ≈ c·N^k: k ≈ 1 is
linear, 2 quadratic). Large sizes get fewer ops and samples; --budget bounds
the time a store spends (the notes say what was cut). Pools
of 5,000 certificates or more are cached on disk ($` + certgen.PoolCacheEnv + `: a directory,
or off). With -o the tables go to stdout, else to stderr. Your own certificates
are one size: measure them with run or compare --certs. More: go doc
github.com/certbench/certbench/bench.Sweep.`,
		Example: `  certbench sweep --scenarios renew-1 --sizes 100,1000,10000 -o sweep.txt
  certbench sweep --scenarios renew-1,noop --stores optimized --budget 5m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSweep(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&opts.Families, "scenarios", []string{"renew-1"}, "scenario `families` to sweep, comma-separated (families, not scenario names)")
	completeNames(cmd, "scenarios", familyNames)
	fs.IntSliceVar(&opts.Sizes, "sizes", bench.DefaultSweepSizes, "pool `sizes`, comma-separated")
	storesFlag(cmd, &opts.Stores, defaultStores(), "stores to measure, comma-separated `names`")
	fs.IntVar(&opts.Count, "count", bench.DefaultCount, "`n` samples per store at sizes up to 10,000 (fewer above, at least 3)")
	fs.DurationVar(&opts.Budget, "budget", 10*time.Minute, "time budget per store and size, a `time` such as 10m (0: none)")
	fs.StringVarP(&opts.Output, "output", "o", "", "write the results to this `file` (the tables then go to stdout)")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// sweepHint points from a scenario name a sweep makes ("rotate-10-of-1000")
// but the catalogue lacks to that sweep; "" when no name is such.
func sweepHint(names []string) string {
	for _, n := range names {
		n = strings.TrimSpace(n)
		if _, err := scenarios.ByName(n); err == nil {
			continue
		}
		if fam, size, ok := scenarios.FamilyAt(n); ok {
			return fmt.Sprintf("; %s is not in the catalogue but sweep makes it: certbench sweep --scenarios %s --sizes %d (or write it as a scenario file: --scenarios FILE.yaml)", n, fam, size)
		}
	}
	return ""
}

// check validates the options and returns the families and stores.
func (o *sweepOptions) check() ([]scenarios.Family, []certstore.Info, error) {
	var fams []scenarios.Family
	for _, name := range o.Families {
		name = strings.TrimSpace(name)
		f, err := scenarios.FamilyByName(name)
		if err != nil {
			if fam, size, ok := scenarios.FamilyAt(name); ok {
				return nil, nil, usagef("--scenarios: %s is a scenario, family %s at %d certificates; sweep takes families and pool sizes (--scenarios %s --sizes %d)", name, fam, size, fam, size)
			}
			return nil, nil, usagef("--scenarios: %v; sweep takes families, which it makes at each of --sizes (scenario names such as rotate-10-of-100-rsa are for run and compare)", err)
		}
		fams = append(fams, f)
	}
	switch {
	case len(fams) == 0:
		return nil, nil, usagef("--scenarios: no family named (families: %s)", strings.Join(familyNames(), ", "))
	case len(o.Sizes) == 0:
		return nil, nil, usagef("--sizes: no size given")
	case slices.Min(o.Sizes) < 1:
		return nil, nil, usagef("--sizes: size %d, want at least 1", slices.Min(o.Sizes))
	case o.Count < 1:
		return nil, nil, usagef("--count %d: need at least 1 sample", o.Count)
	case o.Budget < 0:
		return nil, nil, usagef("--budget %s: must not be negative", o.Budget)
	}
	infos, err := lookupStores("--stores", o.Stores)
	if err != nil {
		return nil, nil, err
	}
	return fams, infos, nil
}

// runSweep runs the families and prints the growth tables.
func runSweep(ctx context.Context, opts *sweepOptions) error {
	fams, infos, err := opts.check()
	if err != nil {
		return err
	}
	sopts := bench.SweepOptions{Families: fams, Sizes: opts.Sizes, Stores: infos, Count: opts.Count,
		Budget: opts.Budget, SampleTimeout: bench.DefaultSampleTimeout}
	if !opts.Quiet {
		sopts.Progress = opts.ioStreams.ErrOut
		sopts.ProgressLines = !isTerminal(opts.ioStreams.ErrOut)
	}
	tables := opts.ioStreams.ErrOut
	if opts.Output != "" && opts.Output != "-" {
		tables = opts.ioStreams.Out
	}
	var raw bytes.Buffer
	var res *bench.SweepResult
	var sweepErr error
	err = writeResultsTo(opts.ioStreams, opts.Output, func(out io.Writer) error {
		return writeSamples(ctx, io.MultiWriter(out, &raw), opts.ioStreams.ErrOut, stackBase(opts.Output), nil,
			func(fault func(*bench.StoreFault) error, emit func(bench.Sample) error) error {
				sopts.Fault = fault
				res, sweepErr = bench.Sweep(ctx, sopts, emit)
				return sweepErr
			})
	})
	if sweepErr != nil || (err != nil && !storeFailed(err)) {
		return err
	}
	rs, rerr := results.Read(&raw, "sweep")
	if rerr != nil {
		return rerr
	}
	if werr := growth.WriteReport(tables, rs, res.Notes, res.Elapsed); werr != nil {
		return werr
	}
	return err
}
