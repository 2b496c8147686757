package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// runFlags are the flags shared by run and compare.
type runFlags struct {
	stores    []string
	scenarios []string
	count     int
	ops       int
	quiet     bool
}

func (f *runFlags) register(cmd *cobra.Command, defaultStores []string) {
	fs := cmd.Flags()
	fs.StringSliceVar(&f.stores, "stores", defaultStores, "stores to measure, comma-separated; the first is the baseline (see certbench list)")
	fs.StringSliceVar(&f.scenarios, "scenarios", nil, "scenarios to run, comma-separated (default: the default set, see certbench list)")
	fs.IntVar(&f.count, "count", bench.DefaultCount, "samples per store and scenario (>= 4 for significance, >= 6 for a 95% interval)")
	fs.IntVar(&f.ops, "ops", 0, "ops per sample, overriding each scenario's fixed count (0: the scenario's)")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
}

// options turns the flags into bench options, checking every name.
func (f *runFlags) options(stderr io.Writer) (bench.Options, error) {
	var opts bench.Options
	if f.count < 1 {
		return opts, usagef("--count %d: need at least 1 sample", f.count)
	}
	if f.ops < 0 {
		return opts, usagef("--ops %d: must not be negative", f.ops)
	}
	if len(f.stores) == 0 {
		return opts, usagef("--stores: no store named (registered: %s)", strings.Join(storeNames(), ", "))
	}
	for _, name := range f.stores {
		info, err := certstore.LookupFactory(strings.TrimSpace(name))
		if err != nil {
			return opts, usagef("--stores: %v", err)
		}
		if slices.ContainsFunc(opts.Stores, func(i certstore.Info) bool { return i.Name == info.Name }) {
			return opts, usagef("--stores: %q named twice", info.Name)
		}
		opts.Stores = append(opts.Stores, info)
	}
	names := f.scenarios
	if len(names) == 0 {
		names = scenarios.Names(true)
	}
	sc, err := scenarios.ByName(names...)
	if err != nil {
		return opts, usagef("--scenarios: %v", err)
	}
	opts.Scenarios = sc
	opts.Count = f.count
	opts.Ops = f.ops
	if !f.quiet && isTerminal(stderr) {
		opts.Progress = stderr
	}
	return opts, nil
}

func storeNames() []string {
	var names []string
	for _, info := range certstore.Registered() {
		names = append(names, info.Name)
	}
	return names
}

// defaultStores is naive and optimized when both are registered, else every
// registered store.
func defaultStores() []string {
	all := storeNames()
	if slices.Contains(all, "naive") && slices.Contains(all, "optimized") {
		return []string{"naive", "optimized"}
	}
	return all
}

// runTo measures and writes the results to out in Go benchmark format.
// When ctx is done before the end (an interrupt), the file is still
// complete: the samples measured so far (the one in flight is dropped)
// and the unit lines computed from them; the error is then an
// *interruptedError.
func runTo(ctx context.Context, opts bench.Options, out io.Writer) error {
	w := bench.NewWriter(out)
	err := bench.Run(ctx, opts, w.Write)
	if err != nil && ctx.Err() == nil {
		return err
	}
	if uerr := w.WriteUnits(); uerr != nil {
		return uerr
	}
	if err != nil {
		return &interruptedError{kept: w.Samples(), err: err}
	}
	return nil
}

func newRunCmd() *cobra.Command {
	var f runFlags
	var output string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Measure stores on scenarios and write Go benchmark results",
		Long: `run measures every named scenario on every named store, interleaving stores
and samples, and writes the results in the Go benchmark format (readable by
benchstat and by certbench compare and gate). Names look like
BenchmarkChurn/scenario=rotate-10-of-100/store=optimized, so
"go tool benchstat -col /store results.txt" compares stores.

B/op and allocs/op are the exact ratios (total / ops, not truncated):
"0 allocs/op" means nothing was allocated in the whole timed window. The
unit lines declare B/op, allocs/op and goroutines "assume=exact" only
when every benchmark has at least 2 samples, all equal; merge per-sample
files with certbench merge, which recomputes them.

On SIGINT (Ctrl-C) or SIGTERM the sample in flight is dropped and the
output keeps the samples measured so far, with their unit lines; certbench
prints "interrupted: N samples kept" and exits 130 (SIGINT) or 143
(SIGTERM).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts, err := f.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if output != "" && output != "-" {
				file, err := os.Create(output)
				if err != nil {
					return usagef("-o: %v", err)
				}
				defer file.Close()
				out = file
			}
			if err := runTo(cmd.Context(), opts, out); err != nil {
				return err
			}
			if c, ok := out.(io.Closer); ok && out != cmd.OutOrStdout() {
				if err := c.Close(); err != nil {
					return fmt.Errorf("writing %s: %w", output, err)
				}
			}
			return nil
		},
	}
	f.register(cmd, defaultStores())
	cmd.Flags().StringVarP(&output, "output", "o", "", "write results to this file instead of stdout")
	return cmd
}
