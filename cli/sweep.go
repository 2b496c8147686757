package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/growth"
	"github.com/certbench/certbench/scenarios"
	"github.com/certbench/certbench/sweep"
	"github.com/spf13/cobra"
)

func newSweepCmd() *cobra.Command {
	var (
		families []string
		sizes    []int
		stores   []string
		count    int
		maxSize  map[string]int
		budget   time.Duration
		cacheDir string
		output   string
		quiet    bool
	)
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Measure how stores grow with the number of certificates, and fit the growth",
		Long: `sweep runs a scenario family at each pool size (renew-1 at 1,000 is
renew-1-of-1000, noop at 100,000 is noop-100000, ...) on every store, writes
the samples in the Go benchmark format, named
BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized,
and prints the median per size and the growth exponent k of each store and
metric (value ≈ c·N^k, the least-squares slope in log-log): k ≈ 1 is linear,
k ≈ 2 quadratic.

Large sizes get fewer ops and samples: 10 ops per sample up to 3,000
certificates, then 30,000/size (1 at 100,000); --count samples up to 10,000
certificates, then count*10,000/size but at least 3. --budget bounds the time
spent on one store at one size: sizes whose samples are estimated (from the
previous size) not to fit get fewer samples, or are skipped, with a note, and
a store stops sampling a size once its budget is spent. --max-size skips a
store above a size (--max-size naive=10000).

Pools of 5,000 certificates or more are cached on disk after their first
generation (--cache-dir, default $CERTBENCH_CACHE or the user cache
directory; "off" disables the cache).

With -o the results go to the file and the tables to stdout; without, the
results go to stdout and the tables to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var fams []scenarios.Family
			for _, name := range families {
				f, err := scenarios.FamilyByName(strings.TrimSpace(name))
				if err != nil {
					return usagef("--scenario: %v", err)
				}
				fams = append(fams, f)
			}
			if len(fams) == 0 {
				return usagef("--scenario: no family named")
			}
			if len(sizes) == 0 {
				return usagef("--sizes: no size given")
			}
			for _, s := range sizes {
				if s < 1 {
					return usagef("--sizes: size %d, want at least 1", s)
				}
			}
			if count < 1 {
				return usagef("--count %d: need at least 1 sample", count)
			}
			if budget < 0 {
				return usagef("--budget %s: must not be negative", budget)
			}
			var infos []certstore.Info
			for _, name := range stores {
				info, err := certstore.LookupFactory(strings.TrimSpace(name))
				if err != nil {
					return usagef("--stores: %v", err)
				}
				if slices.ContainsFunc(infos, func(i certstore.Info) bool { return i.Name == info.Name }) {
					return usagef("--stores: %q named twice", info.Name)
				}
				infos = append(infos, info)
			}
			if len(infos) == 0 {
				return usagef("--stores: no store named (registered: %s)", strings.Join(storeNames(), ", "))
			}
			for name := range maxSize {
				if _, err := certstore.LookupFactory(name); err != nil {
					return usagef("--max-size: %v", err)
				}
			}
			switch cacheDir {
			case "":
			case "off", "none":
				scenarios.SetPoolCacheDir("")
			default:
				scenarios.SetPoolCacheDir(cacheDir)
			}

			results, tables := cmd.OutOrStdout(), cmd.ErrOrStderr()
			var file *os.File
			if output != "" && output != "-" {
				f, err := os.Create(output)
				if err != nil {
					return usagef("-o: %v", err)
				}
				defer f.Close()
				file = f
				results, tables = f, cmd.OutOrStdout()
			}
			var raw bytes.Buffer
			bw := bench.NewWriter(io.MultiWriter(results, &raw))
			var notes []string
			start := time.Now()
			for _, fam := range fams {
				opts := sweep.Options{Family: fam, Sizes: sizes, Stores: infos, Count: count, MaxSize: maxSize, Budget: budget}
				if !quiet && isTerminal(cmd.ErrOrStderr()) {
					opts.Progress = cmd.ErrOrStderr()
				}
				res, err := sweep.Run(cmd.Context(), opts, bw.Write)
				if res != nil {
					notes = append(notes, res.Notes...)
				}
				if err != nil && cmd.Context().Err() != nil {
					// Interrupted: keep the file valid, with the unit
					// lines of the samples written.
					if uerr := bw.WriteUnits(); uerr != nil {
						return uerr
					}
					return &interruptedError{kept: bw.Samples(), err: err}
				}
				if err != nil {
					return err
				}
			}
			if err := bw.WriteUnits(); err != nil {
				return err
			}
			if file != nil {
				if err := file.Close(); err != nil {
					return fmt.Errorf("writing %s: %w", output, err)
				}
			}
			elapsed := time.Since(start)

			rs, err := compare.Read(&raw, "sweep")
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
			return nil
		},
	}
	fs := cmd.Flags()
	var famNames []string
	for _, f := range scenarios.Families {
		famNames = append(famNames, f.Name)
	}
	fs.StringSliceVar(&families, "scenario", []string{"renew-1"}, "scenario families to sweep, comma-separated: "+strings.Join(famNames, ", "))
	fs.IntSliceVar(&sizes, "sizes", sweep.DefaultSizes, "pool sizes, comma-separated")
	fs.StringSliceVar(&stores, "stores", defaultStores(), "stores to measure, comma-separated")
	fs.IntVar(&count, "count", bench.DefaultCount, "samples per store at sizes up to 10,000 (fewer above, at least 3)")
	fs.StringToIntVar(&maxSize, "max-size", nil, "skip a store above a size, e.g. naive=10000")
	fs.DurationVar(&budget, "budget", 10*time.Minute, "time budget per store and size (0: none)")
	fs.StringVar(&cacheDir, "cache-dir", "", `pool cache directory ("off" to disable; default $`+scenarios.PoolCacheEnv+` or the user cache directory)`)
	fs.StringVarP(&output, "output", "o", "", "write results to this file (tables then go to stdout)")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}
