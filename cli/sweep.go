package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/internal/sweep"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// SweepOptions are the options of certbench sweep.
type SweepOptions struct {
	IO IO
	// Families are the scenario families to sweep (--scenarios).
	Families []string
	// Sizes are the pool sizes.
	Sizes []int
	// Stores are the stores to measure.
	Stores []string
	// Count is the number of samples at sizes up to 10,000.
	Count int
	// MaxSize, per store, skips the sizes above it.
	MaxSize map[string]int
	// Budget bounds the time per store and size; 0 is no bound.
	Budget time.Duration
	// CacheDir is the pool cache folder: "" the default, "off" none.
	CacheDir string
	// Output is the file the results go to (-o); then the tables go to
	// IO.Out. "" or "-": results to IO.Out, tables to IO.ErrOut.
	Output string
	// Quiet turns off the progress on stderr (live on a terminal, else a
	// line per size).
	Quiet bool
	// SampleTimeout bounds one sample (--sample-timeout; 0: no bound).
	SampleTimeout time.Duration
	// Certs is --certs, which sweep refuses: a source of certificates has
	// one size, and growth needs several (see check).
	Certs string
}

func newSweepCmd(runF func(context.Context, *SweepOptions) error) *cobra.Command {
	opts := &SweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Measure how stores grow with the number of certificates, and fit the growth",
		Long: `sweep runs scenario families (--scenarios names families, not scenarios:
` + strings.Join(familyNames(), ", ") + `; see certbench list) at each pool size
(renew-1 at 1,000 is renew-1-of-1000, noop at 100,000 is noop-100000, ...) on
every store, writes the samples in the Go benchmark format, named
BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized,
and prints the median per size and the growth exponent k of each store and
metric (value ≈ c·N^k, the least-squares slope in log-log): k ≈ 1 is linear,
k ≈ 2 quadratic.

Large sizes get fewer ops and samples: 10 ops per sample up to 3,000
certificates, then 30,000/size (1 at 100,000; lookup samples are always
20,000 lookups); --count samples up to 10,000
certificates, then count*10,000/size but at least 3. --budget bounds the time
spent on one store at one size: sizes whose samples are estimated (from the
previous size) not to fit get fewer samples, or are skipped, with a note, and
a store stops sampling a size once its budget is spent. --max-size skips a
store above a size (--max-size naive=10000).

Pools of 5,000 certificates or more are cached on disk after their first
generation (--cache-dir, default $CERTBENCH_CACHE or the user cache
directory; "off" disables the cache).

Output: with -o FILE the results go to FILE and the tables to stdout;
without, the results go to stdout and the tables to stderr.

--certs is refused: your certificates are one pool size, and subsets of them
would mix the store's growth with how the subsets differ (key mix, SANs,
chains). Measure them with certbench run --certs or compare --certs.`,
		Example: `  certbench sweep --scenarios renew-1 --sizes 100,1000,10000 -o sweep.txt
  certbench sweep --scenarios renew-1,noop --stores optimized --max-size naive=10000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.IO = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSweep(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&opts.Families, "scenarios", []string{"renew-1"}, "scenario `families` to sweep, comma-separated: "+strings.Join(familyNames(), ", ")+" (families, not scenario names)")
	completeNames(cmd, "scenarios", familyNames)
	fs.IntSliceVar(&opts.Sizes, "sizes", sweep.DefaultSizes, "pool `sizes`, comma-separated")
	storesFlag(cmd, &opts.Stores, defaultStores(), "stores to measure, comma-separated `names`")
	fs.IntVar(&opts.Count, "count", bench.DefaultCount, "`n` samples per store at sizes up to 10,000 (fewer above, at least 3)")
	fs.Var((*storeSizes)(&opts.MaxSize), "max-size", "skip a store above a size, e.g. naive=10000 (comma-separated or repeated)")
	fs.DurationVar(&opts.Budget, "budget", 10*time.Minute, "time budget per store and size, a `time` such as 10m or 1h (0: none)")
	fs.StringVar(&opts.CacheDir, "cache-dir", "", `pool cache `+"`dir`"+` ("off" to disable; default $`+certgen.PoolCacheEnv+` or the user cache directory)`)
	fs.StringVarP(&opts.Output, "output", "o", "", "write the results to this `file` (the tables then go to stdout, not stderr)")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr")
	fs.DurationVar(&opts.SampleTimeout, "sample-timeout", bench.DefaultSampleTimeout, "give up on a store whose sample runs longer than this `time` (it hung; raised to 10 times a sample's estimate at large sizes; 0: no limit)")
	fs.StringVar(&opts.Certs, "certs", "", "not available: your certificates are one pool size, and sweep fits growth over generated sizes (use certbench run or compare --certs `source`)")
	return cmd
}

// familyAt finds the family and pool size a scenario name of the sweep's
// naming stands for ("renew-1-of-1000": renew-1 at 1000), so that a
// scenario name given to sweep --scenarios gets the flags to use instead.
func familyAt(name string) (family string, size int, ok bool) {
	for _, f := range scenarios.Families {
		for _, sep := range []string{"-of-", "-"} {
			rest, found := strings.CutPrefix(name, f.Name+sep)
			if !found {
				continue
			}
			n, err := strconv.Atoi(rest)
			if err == nil && n > 0 && f.At(n).Name == name {
				return f.Name, n, true
			}
		}
	}
	return "", 0, false
}

// sweepHint points from a scenario name that is not in the catalogue but
// is one sweep makes ("rotate-10-of-1000") to the sweep that measures it;
// "" when no name is such.
func sweepHint(names []string) string {
	for _, n := range names {
		n = strings.TrimSpace(n)
		if _, err := scenarios.ByName(n); err == nil {
			continue
		}
		if fam, size, ok := familyAt(n); ok {
			return fmt.Sprintf("; %s is not in the catalogue but sweep makes it: certbench sweep --scenarios %s --sizes %d (or write it as a scenario file, --scenario-file)", n, fam, size)
		}
	}
	return ""
}

// check validates the options and returns the families and stores.
func (o *SweepOptions) check() ([]scenarios.Family, []certstore.Info, error) {
	if o.Certs != "" {
		// Subsets of the user's certificates would be sizes, but not a
		// growth curve of the store alone: the first 1,000 of a source
		// need not look like its first 100 (key mix, SANs, chains), so
		// the fit would mix the store's growth with the source's.
		return nil, nil, usagef("--certs %s: sweep measures how a store grows over generated pools of several sizes; your certificates are one size: measure them with certbench run --certs or certbench compare --certs", o.Certs)
	}
	var fams []scenarios.Family
	for _, name := range o.Families {
		name = strings.TrimSpace(name)
		f, err := scenarios.FamilyByName(name)
		if err != nil {
			if fam, size, ok := familyAt(name); ok {
				return nil, nil, usagef("--scenarios: %s is a scenario, family %s at %d certificates; sweep takes families and pool sizes (--scenarios %s --sizes %d)", name, fam, size, fam, size)
			}
			return nil, nil, usagef("--scenarios: %v; sweep takes families, which it makes at each of --sizes (scenario names such as rotate-10-of-100-rsa are for run and compare)", err)
		}
		fams = append(fams, f)
	}
	if len(fams) == 0 {
		return nil, nil, usagef("--scenarios: no family named (families: %s)", strings.Join(familyNames(), ", "))
	}
	if len(o.Sizes) == 0 {
		return nil, nil, usagef("--sizes: no size given")
	}
	for _, s := range o.Sizes {
		if s < 1 {
			return nil, nil, usagef("--sizes: size %d, want at least 1", s)
		}
	}
	if o.Count < 1 {
		return nil, nil, usagef("--count %d: need at least 1 sample", o.Count)
	}
	if o.Budget < 0 {
		return nil, nil, usagef("--budget %s: must not be negative", o.Budget)
	}
	infos, err := lookupStores("--stores", o.Stores)
	if err != nil {
		return nil, nil, err
	}
	for name := range o.MaxSize {
		if _, err := certstore.LookupFactory(name); err != nil {
			return nil, nil, usagef("--max-size: %v", err)
		}
	}
	return fams, infos, nil
}

// runSweep runs the families and prints the growth tables.
func runSweep(ctx context.Context, opts *SweepOptions) error {
	fams, infos, err := opts.check()
	if err != nil {
		return err
	}
	switch opts.CacheDir {
	case "":
	case "off", "none":
		certgen.SetPoolCacheDir("")
	default:
		certgen.SetPoolCacheDir(opts.CacheDir)
	}

	out, tables := opts.IO.Out, opts.IO.ErrOut
	var file *os.File
	if opts.Output != "" && opts.Output != "-" {
		f, err := os.Create(opts.Output)
		if err != nil {
			return usagef("-o: %v", err)
		}
		defer f.Close()
		file = f
		out, tables = f, opts.IO.Out
	}
	var raw bytes.Buffer
	bw := results.NewWriter(io.MultiWriter(out, &raw))
	faults := &storeFaults{errOut: opts.IO.ErrOut, base: stackBase(opts.Output), w: bw}
	timeout := opts.SampleTimeout
	if timeout == 0 {
		timeout = -1 // no limit
	}
	write := func(s bench.Sample) error { return bw.Write(s) }
	var notes []string
	start := time.Now()
	for _, fam := range fams {
		sopts := sweep.Options{Family: fam, Sizes: opts.Sizes, Stores: infos, Count: opts.Count, MaxSize: opts.MaxSize, Budget: opts.Budget,
			SampleTimeout: timeout, Fault: faults.report}
		if !opts.Quiet {
			sopts.Progress = opts.IO.ErrOut
			sopts.ProgressLines = !isTerminal(opts.IO.ErrOut)
		}
		res, err := sweep.Run(ctx, sopts, write)
		if res != nil {
			notes = append(notes, res.Notes...)
		}
		var f *bench.StoreFault
		if err != nil && (ctx.Err() != nil || errors.As(err, &f)) {
			// Interrupted, or stopped by a store that hung: keep
			// the file valid, with the unit lines of the samples
			// written and its closing line.
			if uerr := bw.Close(); uerr != nil {
				return uerr
			}
			if ctx.Err() == nil {
				return faults.err(plural(bw.Samples(), "complete sample"))
			}
			return &interruptedError{kept: bw.Samples(), err: err}
		}
		if err != nil {
			return err
		}
	}
	if err := bw.Close(); err != nil {
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", opts.Output, err)
		}
	}
	elapsed := time.Since(start)

	rs, err := results.Read(&raw, "sweep")
	if err != nil {
		return err
	}
	curves, err := growth.Curves(rs)
	if err != nil {
		return err
	}
	if err := growth.WriteTable(tables, curves); err != nil {
		return err
	}
	fmt.Fprintln(tables)
	for _, line := range growth.Summary(curves, "sec/op") {
		fmt.Fprintln(tables, line)
	}
	for _, n := range notes {
		fmt.Fprintln(tables, "note:", n)
	}
	fmt.Fprintf(tables, "sweep took %s\n", elapsed.Round(time.Second))
	return faults.err(plural(bw.Samples(), "complete sample"))
}
