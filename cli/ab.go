package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gobench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newABCmd() *cobra.Command {
	var o ab.RunOptions
	var bench gobench.Options
	cmd := &cobra.Command{
		Use:   "ab [BASE_REF] | ab --history LOC --record [RANGE]",
		Short: "Gate the working tree against a base commit: build both, run interleaved rounds, gate, profile",
		Long: `ab builds the module's certbench binary (--main) at the merge base of BASE_REF
(default origin/main, else main) and HEAD and from the working tree, runs both
in --count interleaved rounds (ABBA), gates them paired by round with the
base's certbench.yaml and names the sites that grew after an allocation
regression; --simulate also gates instructions/op, --bench go test benchmarks.
A base is cached. --history: gate the head alone against main's results there
if they have the merge base, else as above; --record: add HEAD's to them
(--record A..B: each commit of the range they lack, oldest first).
Flags not given default from $CERTBENCH_FLAG, e.g. CERTBENCH_SIM_COUNT (the
action's inputs). Exit: 0 pass, 1 regression, 2 bad input. docs/ci.md`,
		Example: `  certbench ab --history git:refs/notes/certbench origin/main
  certbench ab --bench . --bench-packages ./pkg/... --simulate origin/main
  certbench ab --history git:refs/notes/certbench --record v0.3.0..main`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flagsFromEnv(cmd.Flags()); err != nil {
				return err
			}
			if o.Record && len(args) == 1 && strings.Contains(args[0], "..") {
				return runBackfill(cmd, o, args[0]) // a range: A..B
			}
			if len(args) == 1 {
				o.BaseRef = args[0]
			}
			o.Policy.NoConfig = cmd.Flags().Changed("config") && o.Policy.Config == ""
			if bench.Bench != "" {
				bench.Rounds, bench.Simulate, bench.SimCount, bench.Log = o.Count, o.Simulate, o.SimCount, ioOf(cmd).ErrOut
				o.Bench = gobench.AB(bench, o.Out)
			}
			return runAB(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Module, "module", "", "the module, relative to the repository root (`dir`; default the working directory)")
	f.StringVar(&o.Main, "main", "./cmd/certbench", "the main `package`, relative to --module")
	f.StringVar(&o.Build, "build", "", "build with this bash `command` (it writes $CERTBENCH_BIN; $CERTBENCH_LDFLAGS links the revision)")
	f.StringArrayVar(&o.BaseReplace, "base-replace", nil, "build the base with `MODULE=DIR` replaced (for a relative replace leading outside the repository)")
	f.StringSliceVar(&o.Stores, "stores", nil, "`stores`, comma-separated (default every store of the head binary)")
	f.StringSliceVar(&o.Scenarios, "scenarios", nil, "`scenarios`, comma-separated (default the head's default set)")
	f.IntVar(&o.Count, "count", 10, "rounds (`n` samples per side); the gate needs 6 with several benchmarks")
	f.IntVar(&o.Ops, "ops", 0, "`n` ops per sample (0: each scenario's)")
	f.StringVar(&o.Out, "out", "certbench-out", "output `dir`")
	f.StringVar(&o.Policy.Config, "config", "", "gate policy `file` (default the base's certbench.yaml; '' for the built-in policy)")
	f.Var(&o.Policy.Max, "max", "a gate threshold, `UNIT=THRESHOLD`; repeatable")
	f.BoolVar(&o.Simulate, "simulate", false, "also gate instructions/op on the simulated CPU (needs valgrind)")
	f.IntVar(&o.SimCount, "sim-count", 5, "samples per side on the simulated CPU (`n`)")
	f.StringVar(&o.WallMax, "wall-max", "+25%", "with --simulate, the sec/op and cpu-sec/op `threshold` (policy: the policy's)")
	f.StringVar(&bench.Bench, "bench", "", "gate the module's go test benchmarks matching `regexp` too")
	f.StringSliceVar(&bench.Packages, "bench-packages", []string{"./..."}, "with --bench, the `packages` (patterns relative to the module)")
	f.StringVar(&o.History, "history", "", "main's results, a `dir` or git:REF fetched from and pushed to origin (certbench history)")
	f.BoolVar(&o.Record, "record", false, "with --history, run HEAD (or each commit of an A..B argument not yet there) and add its results instead of gating")
	f.StringVar(&o.Cache, "cache", abCacheDir(), "keep base binaries and results in this `dir` ('' for none)")
	return cmd
}

// flagsFromEnv sets each flag of fs not given from $CERTBENCH_FLAG (FLAG
// its name in upper case, '-' as '_') when that is not empty: the
// action's inputs reach ab so (action.yml). Not --cache: CERTBENCH_CACHE
// is certgen's pool cache.
func flagsFromEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		env := "CERTBENCH_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := os.Getenv(env); v != "" && !f.Changed && f.Name != "cache" && err == nil {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = usagef("%s=%s: bad value for --%s (%s): %v", env, v, f.Name, f.Value.Type(), serr)
			}
		}
	})
	return err
}

// abCacheDir is ab's default cache.
func abCacheDir() string {
	cache, _ := os.UserCacheDir()
	if cache != "" {
		cache = filepath.Join(cache, "certbench", "ab")
	}
	return cache
}

// runBackfill is ab --record RANGE: each commit of the range that the
// history lacks, built, run and recorded (ab.Backfill).
func runBackfill(cmd *cobra.Command, o ab.RunOptions, spec string) error {
	o.Log = ioOf(cmd).ErrOut
	stored, of, err := ab.Backfill(cmd.Context(), o, spec)
	if err != nil {
		return abError(err)
	}
	fmt.Fprintf(o.Log, "certbench: %d of %d commits stored\n", stored, of)
	return nil
}

func runAB(cmd *cobra.Command, o ab.RunOptions) error {
	io := ioOf(cmd)
	o.Log = io.ErrOut
	if o.Policy.Config != "" {
		abs, err := filepath.Abs(o.Policy.Config)
		if err != nil {
			return usageError(err)
		}
		o.Policy.Config = abs
	}
	rep, err := ab.Run(cmd.Context(), o)
	if err != nil {
		return abError(err)
	}
	if rep.Wall == nil && rep.Bench == nil && rep.BenchSim == nil { // nothing to compare, or recorded
		io.ErrOut.Write(rep.Summary)
	}
	for _, f := range [][2]string{{"sim-gate.txt", "== simulated CPU (instructions/op) ==\n"}, {"gate.txt", "\n== wall clock ==\n"},
		{"sim-bench-gate.txt", "\n== go test benchmarks, simulated CPU (instructions/op) ==\n"}, {"bench-gate.txt", "\n== go test benchmarks, wall clock ==\n"}} {
		if b, err := os.ReadFile(filepath.Join(o.Out, f[0])); err == nil {
			if rep.Sim != nil || rep.Bench != nil || rep.BenchSim != nil {
				io.Out.Write([]byte(f[1]))
			}
			io.Out.Write(b)
		}
	}
	if !rep.Passed() {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// abError is err, an ab.InputError as a usage error (exit 2).
func abError(err error) error {
	var ie *ab.InputError
	if errors.As(err, &ie) {
		return usageError(err)
	}
	return err
}
