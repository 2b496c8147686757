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
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/rendezvous"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// BenchFlags are the measuring flags run and compare share.
type BenchFlags struct {
	// Stores are the stores to measure (--stores); the first is the
	// baseline of compare.
	Stores []string
	// Scenarios are the scenarios to run (--scenarios); none means the
	// default set.
	Scenarios []string
	// Count is the number of samples per store and scenario (--count).
	Count int
	// Ops overrides each scenario's op count when positive (--ops).
	Ops int
	// Quiet turns off the progress on stderr (-q).
	Quiet bool
	// SampleTimeout bounds one sample (--sample-timeout); 0 is no bound.
	// SampleTimeoutGiven reports the flag given: otherwise the policy
	// file's gate.sample_timeout applies, when Config names one.
	SampleTimeout      time.Duration
	SampleTimeoutGiven bool
	// Config is a policy file (--config) whose gate.sample_timeout
	// bounds one sample unless --sample-timeout is given.
	Config string
	// CertsFlags run the scenarios on the user's certificates (--certs).
	CertsFlags
	// ScenarioFileFlags add the scenarios of the user's scenario files
	// (--scenario-file).
	ScenarioFileFlags
}

// bind binds the flags into f.
func (f *BenchFlags) bind(cmd *cobra.Command) {
	fs := cmd.Flags()
	storesFlag(cmd, &f.Stores, defaultStores(), "stores to measure, comma-separated `names`; the first is the baseline (see certbench list)")
	fs.StringSliceVar(&f.Scenarios, "scenarios", nil, "scenarios to run, comma-separated `names` (default: the default set, see certbench list)")
	completeNames(cmd, "scenarios", func() []string { return scenarios.Names(false) })
	fs.IntVar(&f.Count, "count", bench.DefaultCount, "`n` samples per store and scenario (>= 4 for significance, >= 6 for a 95% interval)")
	fs.IntVar(&f.Ops, "ops", 0, "`n` ops per sample, overriding each scenario's fixed count (0: the scenario's)")
	fs.BoolVarP(&f.Quiet, "quiet", "q", false, "no progress on stderr")
	fs.DurationVar(&f.SampleTimeout, "sample-timeout", bench.DefaultSampleTimeout, "give up on a store whose sample runs longer than this `time` (it hung; 0: no limit)")
	fs.StringVar(&f.Config, "config", "", "policy `file` whose gate.sample_timeout applies unless --sample-timeout is given (scripts/certbench-ci.sh passes its policy)")
	f.CertsFlags.bind(cmd)
	f.ScenarioFileFlags.bind(cmd)
}

// options turns the flags into bench options, checking every name.
// Progress goes to stderr unless Quiet: live on a terminal, else a line
// per finished scenario.
func (f *BenchFlags) options(stderr io.Writer) (bench.Options, error) {
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
	sc, err := f.selectScenarios(trimAll(f.Scenarios), stderr)
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

// sampleTimeout returns the bound of one sample for bench.Options: from
// --sample-timeout when given, else from the policy file of --config
// when it sets one, else the flag's default; a negative value is no
// bound.
func (f *BenchFlags) sampleTimeout() (time.Duration, error) {
	t := f.SampleTimeout
	if f.Config != "" && !f.SampleTimeoutGiven {
		p, err := gate.LoadConfig(f.Config)
		if err != nil {
			return 0, usagef("--config: %v", err)
		}
		if p.SampleTimeout > 0 {
			t = p.SampleTimeout
		}
	}
	switch {
	case t < 0:
		return 0, usagef("--sample-timeout %s: must not be negative (0: no limit)", t)
	case t == 0:
		return -1, nil
	}
	return t, nil
}

// runTo measures and writes the results to out in Go benchmark format.
// When ctx is done before the end (an interrupt), the file is still
// complete: the samples measured so far (the one in flight is dropped),
// the unit lines computed from them and the closing line; the error is
// then an *interruptedError. A sample the store under test ended (a panic, or a
// call that did not return within the sample timeout) is reported on
// errOut, its stack written to a file named from stacks (see stackBase),
// and recorded in the results as a failure; the other stores go on
// (after a hang, measuring stops), and the error then has
// ExitStoreFailed.
func runTo(ctx context.Context, opts bench.Options, out, errOut io.Writer, stacks string, config ...string) error {
	kv, err := resultConfig(opts.Scenarios)
	if err != nil {
		return err
	}
	w := results.NewWriter(out, append(config, kv...)...)
	faults := &storeFaults{errOut: errOut, base: stacks, w: w}
	opts.Fault = faults.report
	err = bench.Run(ctx, opts, func(s bench.Sample) error { return w.Write(s) })
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

// RunOptions are the options of certbench run.
type RunOptions struct {
	IO IO
	BenchFlags
	// Output is the file the results go to (-o); "" or "-" is IO.Out.
	Output string
	// Round, when not empty (--round), is written as the comment line
	// "# round: ROUND" (results.RoundKey): the round of an interleaved
	// base/head protocol, by which certbench gate pairs samples.
	Round string
	// Sync, when not empty (--sync), is a directory shared with
	// SyncParties-1 other certbench run processes: each sample's timed
	// ops start when every process has reached that sample (package
	// rendezvous). 0 SyncParties means 2.
	Sync        string
	SyncParties int
	// SimulateFlags choose the simulated CPU (--instrument simulate).
	SimulateFlags
	// CallgrindDir, with --instrument simulate, keeps every sample's
	// callgrind file in this directory (--callgrind-dir), for certbench
	// gate's blame and for callgrind_annotate.
	CallgrindDir string
}

func newRunCmd(runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Measure stores on scenarios and write Go benchmark results",
		Long: `run measures every named scenario on every named store, interleaving stores
and samples, and writes the results in the Go benchmark format (readable by
benchstat and by certbench compare and gate) to stdout, or to the file -o
names. Names look like
BenchmarkChurn/scenario=rotate-10-of-100/store=optimized, so
"go tool benchstat -col /store results.txt" compares stores.

B/op and allocs/op are the exact ratios (total / ops, not truncated):
"0 allocs/op" means nothing was allocated in the whole timed window. The
unit lines declare B/op, allocs/op and goroutines "assume=exact" only
when every benchmark has at least 2 samples, all equal; merge per-sample
files with certbench merge, which recomputes them.

--sync DIR measures side by side: every process given the same (empty)
directory waits, before each sample's timed ops, until all --sync-parties
of them (default 2) have reached that sample, so that a base and a head
binary, each pinned to its own CPU, measure every sample in the same
moments and whatever disturbs the machine disturbs both
(scripts/certbench-ci.sh --interleave parallel). The processes must run
the same stores, scenarios, count and ops; if they do not, or a partner
does not arrive within 10 minutes, run fails.

On SIGINT (Ctrl-C) or SIGTERM the sample in flight is dropped and the
output keeps the samples measured so far, with their unit lines; certbench
prints "interrupted: N samples kept" and exits 130 (SIGINT) or 143
(SIGTERM). A sample stuck in a store call is abandoned 3 s after the
signal, and the process exits 15 s after it whatever it waits for.

A store that panics (in its factory, Update, Certificate or Close) ends
that sample: certbench prints one line naming the store, scenario, sample
and call, writes the panicking goroutine's stack to a file beside -o
(FILE-panic-STORE-SCENARIO-N.txt for -o FILE.txt; a temporary file without
-o, its path printed), writes nothing of the sample, takes no more samples
of that store in that scenario, measures the other stores, and exits 1. A
sample that runs longer than --sample-timeout (its waits for --sync left
out) is taken as hung: the line names the call that did not return, the
file (-hang-) holds every goroutine's stack (the sample's carry the label
certbench-sample), and measuring stops, since a goroutine stuck in a store
cannot be stopped and would disturb the later samples. The results record
each failure as go test records a failed benchmark, a "--- FAIL:
BenchmarkChurn/..." line and the reason under it, which benchstat ignores
and certbench gate reads (a store that failed at head, not at base, fails
the gate). --config FILE takes the sample timeout from the policy's
gate.sample_timeout.

--instrument simulate measures on a simulated CPU instead of the clock:
certbench runs itself again under valgrind's callgrind (install valgrind;
Debian, Ubuntu: apt-get install valgrind) and counts the instructions of each
sample's timed ops: instructions/op, which other tenants of the machine
cannot disturb (a window repeats its count to within a few hundredths of a
percent), with B/op, allocs/op, retained-B and goroutines; no time is
written. The collector is held off inside each window (after a collection
that returns free memory to the OS), GOMAXPROCS is 1 and every benchmark
gets an uncounted warm-up sample. --cache-sim adds callgrind's cache
simulation and est-cycles/op (1 per instruction, 10 more per first-level
cache miss, 100 more per last-level miss). Handshake scenarios are refused;
startup scenarios run 1 op per sample (scenario files: simulate_ops).
--callgrind-dir DIR keeps every sample's callgrind file, which certbench gate
(--base-profiles/--head-profiles), certbench profile top, callgrind_annotate
and KCachegrind read. certbench gate refuses to compare simulated results
with wall-clock ones.

--certs SOURCE runs the scenarios on your own certificates: a directory of
PEM files, a Traefik dynamic configuration or a Kubernetes Secret list. The
default set becomes rotate-10-of-certs, renew-1-of-certs, noop-certs,
startup-certs, multistore-certs and lookup-certs (--scenarios takes these
names or the catalogue's); renewals re-sign each leaf over its own public
key. The results record only the source's shape (certs-count, certs-keys,
..., certs-fingerprint lines), never a name, key or path.`,
		Example: `  certbench run -o results.txt
  certbench run --instrument simulate --stores optimized -o sim.txt
  certbench run --stores optimized --scenarios rotate-10-of-100,lookup-1000 --count 6 -o r.txt
  certbench run --certs /etc/traefik/certs -o mine.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.IO = ioOf(cmd)
			opts.SampleTimeoutGiven = changed(cmd, "sample-timeout")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	opts.BenchFlags.bind(cmd)
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the results to this `file` instead of stdout (stacks of a store that fails go beside it)")
	cmd.Flags().StringVar(&opts.Round, "round", "", "write the comment line \"# round: `N`\": the round of an interleaved base/head run, by which certbench gate pairs the samples of base and head (benchstat ignores it)")
	cmd.Flags().StringVar(&opts.Sync, "sync", "", "start each sample's timed ops together with the other processes given this `dir` (see --sync-parties)")
	cmd.Flags().IntVar(&opts.SyncParties, "sync-parties", 2, "the `number` of processes sharing the --sync directory")
	opts.SimulateFlags.bind(cmd)
	cmd.Flags().StringVar(&opts.CallgrindDir, "callgrind-dir", "", "with --instrument simulate: keep every sample's callgrind file in this `dir` (<scenario>.<store>.<sample>.callgrind)")
	return cmd
}

// runRun measures and writes the results.
func runRun(ctx context.Context, opts *RunOptions) error {
	simulate, err := opts.SimulateFlags.simulate()
	if err != nil {
		return err
	}
	if !simulate && opts.CallgrindDir != "" {
		return usagef("--callgrind-dir needs --instrument simulate")
	}
	bopts, err := opts.options(opts.IO.ErrOut)
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
		if opts.Sync != "" {
			return usagef("--sync starts the clocks of two processes together; --instrument simulate counts instructions, which need no partner")
		}
		if opts.CallgrindDir != "" {
			if err := os.MkdirAll(opts.CallgrindDir, 0o755); err != nil {
				return usagef("--callgrind-dir: %v", err)
			}
		}
		if !underCallgrind() {
			return reexecUnderCallgrind(ctx, opts.IO, bopts.Scenarios, opts.CacheSim)
		}
		bopts.Instrument = bench.Simulate
		bopts.CallgrindDir = opts.CallgrindDir
		config = append(config, simulateConfig()...)
	}
	parties := opts.SyncParties
	if parties == 0 {
		parties = 2
	}
	if opts.Sync != "" {
		// A partner waits at the next sample for one whose store hangs
		// until that sample's timeout ends it.
		wait := rendezvous.DefaultTimeout
		if bopts.SampleTimeout > 0 {
			wait += bopts.SampleTimeout
		}
		d, err := rendezvous.Open(opts.Sync, parties, wait)
		if err != nil {
			return usagef("--sync: %v", err)
		}
		bopts.Sync = func(ctx context.Context, scenario, store string, sample int) error {
			return d.Wait(ctx, fmt.Sprintf("%s/%s/%d", scenario, store, sample))
		}
	} else if parties != 2 {
		return usagef("--sync-parties %d without --sync", parties)
	}
	if opts.Output == "" || opts.Output == "-" {
		return runTo(ctx, bopts, opts.IO.Out, opts.IO.ErrOut, "", config...)
	}
	file, err := os.Create(opts.Output)
	if err != nil {
		return usagef("-o: %v", err)
	}
	defer file.Close()
	err = runTo(ctx, bopts, file, opts.IO.ErrOut, stackBase(opts.Output), config...)
	if err != nil && !storeFailed(err) {
		return err
	}
	if cerr := file.Close(); cerr != nil {
		return fmt.Errorf("writing %s: %w", opts.Output, cerr)
	}
	return err
}

// checkRound rejects a --round that a configuration line cannot hold or
// that would not identify a round: empty, with spaces or control
// characters.
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
