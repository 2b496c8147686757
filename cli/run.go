package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// BenchFlags are the measuring flags run and compare share.
type benchFlags struct {
	Stores    []string // --stores; the first is compare's baseline
	Scenarios []string // --scenarios; none means the default set
	Count     int      // --count
	Ops       int      // --ops, when positive
	Quiet     bool     // -q
	// SampleTimeout is --sample-timeout of run (0: no bound).
	SampleTimeout     time.Duration
	certsFlags        // --certs
	scenarioFileFlags // the files in --scenarios
}

// bind binds the flags into f.
func (f *benchFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	storesFlag(cmd, &f.Stores, defaultStores(), "stores to measure, comma-separated `names`; the first is the baseline (see certbench list)")
	fs.StringSliceVar(&f.Scenarios, "scenarios", nil, "scenarios to run, comma-separated `names` or scenario files (.yaml: docs/scenarios.md) (default: the default set, see certbench list)")
	completeNames(cmd, "scenarios", func() []string { return scenarios.Names(false) })
	fs.IntVar(&f.Count, "count", bench.DefaultCount, "`n` samples per store and scenario (>= 6 for a 95% interval)")
	fs.IntVar(&f.Ops, "ops", 0, "`n` ops per sample, overriding each scenario's fixed count (0: the scenario's)")
	fs.BoolVarP(&f.Quiet, "quiet", "q", false, "no progress on stderr")
	f.SampleTimeout = bench.DefaultSampleTimeout
	f.certsFlags.bind(cmd)
}

// options turns the flags into bench options, checking every name.
func (f *benchFlags) options(stderr io.Writer) (bench.Options, error) {
	var opts bench.Options
	timeout, err := f.sampleTimeout()
	if err != nil {
		return opts, err
	}
	opts.SampleTimeout = timeout
	if f.Count < 1 {
		return opts, usagef("--count %d: need at least 1 sample", f.Count)
	}
	if f.Ops < 0 {
		return opts, usagef("--ops %d: must not be negative", f.Ops)
	}
	infos, err := lookupStores("--stores", f.Stores)
	if err != nil {
		return opts, err
	}
	opts.Stores = infos
	sc, err := f.selectScenarios(f.splitFiles(trimAll(f.Scenarios)), stderr)
	if err != nil {
		return opts, err
	}
	opts.Scenarios = sc
	opts.Count = f.Count
	opts.Ops = f.Ops
	if !f.Quiet {
		opts.Progress = stderr
		opts.ProgressLines = !isTerminal(stderr)
	}
	return opts, nil
}

// sampleTimeout returns bench.Options' SampleTimeout: run's
// --sample-timeout, else the default.
func (f *benchFlags) sampleTimeout() (time.Duration, error) {
	t := f.SampleTimeout
	if t < 0 {
		return 0, usagef("--sample-timeout %s: must not be negative (0: no limit)", t)
	}
	return noLimit(t), nil
}

// runTo measures and writes the results to out in Go benchmark format
// (see writeSamples).
func runTo(ctx context.Context, opts bench.Options, out, errOut io.Writer, stacks string, config ...string) error {
	return runPlan(ctx, opts, nil, out, errOut, stacks, config...)
}

// runPlan is runTo, with bench.Quick's plan when quick is not nil (its
// notes appended there).
func runPlan(ctx context.Context, opts bench.Options, quick *[]string, out, errOut io.Writer, stacks string, config ...string) error {
	kv, err := resultConfig(opts.Scenarios)
	if err != nil {
		return err
	}
	return writeSamples(ctx, out, errOut, stacks, append(config, kv...),
		func(fault func(*bench.StoreFault) error, emit func(bench.Sample) error) error {
			opts.Fault = fault
			if quick != nil {
				notes, err := bench.Quick(ctx, opts, emit)
				*quick = append(*quick, notes...)
				return err
			}
			return bench.Run(ctx, opts, emit)
		})
}

// writeSamples calls measure and writes the samples it emits to out, with
// the configuration lines config. Interrupted (ctx done), the file is
// still complete, and the error an *interruptedError. A store fault is
// reported on errOut and in the results, its stack in a file named from
// stacks (see storeFaults); the error then has ExitStoreFailed.
func writeSamples(ctx context.Context, out, errOut io.Writer, stacks string, config []string,
	measure func(fault func(*bench.StoreFault) error, emit func(bench.Sample) error) error) error {
	w := results.NewWriter(out, config...)
	faults := &storeFaults{errOut: errOut, base: stacks, w: w}
	err := measure(faults.report, func(s bench.Sample) error { return w.Write(s) })
	var f *bench.StoreFault
	if err != nil && ctx.Err() == nil && !errors.As(err, &f) {
		return err
	}
	if uerr := w.Close(); uerr != nil {
		return uerr
	}
	if err != nil && ctx.Err() != nil {
		return &interruptedError{kept: w.Samples(), err: err}
	}
	return faults.err(plural(w.Samples(), "complete sample"))
}

// writeResultsTo calls write with the file named by output (-o), or with
// stdout when output is "" or "-", and closes the file. A store's failure
// (storeFailed) still closes and keeps the file.
func writeResultsTo(o ioStreams, output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(o.Out)
	}
	file, err := os.Create(output)
	if err != nil {
		return usagef("-o: %v", err)
	}
	defer file.Close()
	err = write(file)
	if err != nil && !storeFailed(err) {
		return err
	}
	if cerr := file.Close(); cerr != nil {
		return fmt.Errorf("writing %s: %w", output, cerr)
	}
	return err
}

// noLimit turns a --sample-timeout of 0 into bench.Options' no limit (< 0).
func noLimit(t time.Duration) time.Duration {
	if t == 0 {
		return -1
	}
	return t
}

// RunOptions are the options of certbench run.
type runOptions struct {
	ioStreams ioStreams
	benchFlags
	Output string // -o; "" or "-" is IO.Out
	// Round (--round) is written as "# round: ROUND" (results.RoundKey),
	// by which gate pairs the samples of interleaved base/head rounds.
	Round         string
	simulateFlags        // --simulate, --cache-sim
	Profiles      string // --profiles: every sample's window as a profile
}

func newRunCmd(runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Measure stores on scenarios and write Go benchmark results",
		Long: `run measures every named scenario on every named store, interleaving stores
and samples, and writes Go benchmark results (BenchmarkChurn/scenario=S/store=N,
read by benchstat, certbench compare and gate) to stdout or -o FILE.
--simulate counts instructions/op under valgrind's callgrind instead of the
clock. --certs runs on your certificates (the results record only their
shape). A store that panics or hangs fails (its stack in a file beside -o,
exit 1); on Ctrl-C the output keeps the complete samples. More: README.md, and
go doc github.com/certbench/certbench/bench.`,
		Example: `  certbench run -o results.txt
  certbench run --simulate --stores optimized -o sim.txt
  certbench run --certs /etc/traefik/certs -o mine.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	opts.benchFlags.bind(cmd)
	fs := cmd.Flags()
	fs.StringVarP(&opts.Output, "output", "o", "", "write the results to this `file` instead of stdout")
	fs.StringVar(&opts.Round, "round", "", "write \"# round: `N`\": the round of an interleaved base/head run, by which gate pairs samples")
	fs.MarkHidden("round") // ab's child protocol
	fs.DurationVar(&opts.SampleTimeout, "sample-timeout", bench.DefaultSampleTimeout, "give up on a store whose sample runs longer than this `time` (0: no limit)")
	opts.simulateFlags.bind(cmd)
	fs.BoolVar(&opts.CacheSim, "cache-sim", false, "with --simulate: simulate the caches too and record est-cycles/op (slower)")
	fs.StringVar(&opts.Profiles, "profiles", "", "with --simulate: keep every sample's window as a profile with stacks in this `dir` (go tool pprof reads it)")
	return cmd
}

// runRun measures and writes the results.
func runRun(ctx context.Context, opts *runOptions) error {
	simulate, err := opts.simulateFlags.simulate()
	if err != nil {
		return err
	}
	if !simulate && opts.Profiles != "" {
		return usagef("--profiles needs --simulate")
	}
	bopts, err := opts.options(opts.ioStreams.ErrOut)
	if err != nil {
		return err
	}
	var config []string
	if opts.Round != "" {
		if err := checkRound(opts.Round); err != nil {
			return err
		}
		config = []string{results.RoundKey, opts.Round}
	}
	if simulate {
		if err := checkSimulated(bopts.Scenarios); err != nil {
			return err
		}
		if opts.Profiles != "" {
			if err := os.MkdirAll(opts.Profiles, 0o755); err != nil {
				return usagef("--profiles: %v", err)
			}
		}
		if !underCallgrind() {
			return reexecUnderCallgrind(ctx, opts.ioStreams, bopts.Scenarios, callgrind.Options{CacheSim: opts.CacheSim, Stacks: opts.Profiles != ""})
		}
		bopts.Instrument = bench.Simulate
		bopts.Profiles = opts.Profiles
		config = append(config, bench.SimulateConfig()...)
	}
	return writeResultsTo(opts.ioStreams, opts.Output, func(out io.Writer) error {
		return runTo(ctx, bopts, out, opts.ioStreams.ErrOut, stackBase(opts.Output), config...)
	})
}

// checkRound rejects a --round a configuration line cannot hold (spaces,
// control characters).
func checkRound(r string) error {
	for _, c := range r {
		if c <= ' ' || c == 0x7f {
			return usagef("--round %q: want a round number such as 3 (no spaces)", r)
		}
	}
	return nil
}

// trimAll returns names with surrounding spaces removed.
func trimAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSpace(n)
	}
	return out
}
