package cli

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/certbench/certbench/internal/ab"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/gobench"
	"github.com/spf13/cobra"
)

func newABCmd() *cobra.Command {
	var o ab.RunOptions
	var interleave string
	var noCache bool
	var max gate.Thresholds
	var bench gobench.Options
	cmd := &cobra.Command{
		Use:   "ab [BASE_REF]",
		Short: "Gate the working tree against a base commit: build both, run interleaved rounds, gate, profile",
		Long: `ab builds the module's certbench binary (--main) at the merge base of BASE_REF
(default origin/main, else main) and HEAD and from the working tree, runs both
in --count interleaved rounds (ABBA), gates them paired by round with the
base's certbench.yaml, and names the sites that grew after an allocation
regression; --simulate also gates instructions/op. --bench gates the module's
own go test benchmarks too (any Go module; only them without a certbench
binary or with --scenarios none), on the simulated CPU with --simulate. A base
commit's binary and results are cached (--cache): a re-run measures the head
alone, its clock unpaired. Exit codes: 0 pass, 1 regression, 2 bad input.`,
		Example: `  certbench ab main
  certbench ab --bench . --bench-packages ./pkg/... --simulate origin/main`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.BaseRef = args[0]
			}
			if interleave != "scenario" && interleave != "round" {
				return usagef("--interleave %s: want scenario or round", interleave)
			}
			o.ByRound = interleave == "round"
			if noCache {
				o.Cache = ""
			}
			if cmd.Flags().Changed("max") {
				o.Policy.Set.Max, o.Policy.Given = max, []string{"max"}
			}
			if bench.Bench != "" {
				bench.Rounds, bench.Simulate, bench.SimCount, bench.Log = o.Count, o.Simulate, o.SimCount, ioOf(cmd).ErrOut
				o.Bench = gobench.AB(bench, o.Out)
			}
			return runAB(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "the module, relative to the repository root (`dir`; default the working directory)")
	f.StringVar(&o.Main, "main", "./cmd/certbench", "the main `package`, relative to --dir")
	f.StringVar(&o.Build, "build", "", "build with this bash `command` (it writes $CERTBENCH_BIN; $CERTBENCH_LDFLAGS links the revision)")
	f.StringVar(&o.BaseTree, "base-tree", "", "the base as a `dir` (a tree of the same layout) instead of a commit")
	f.StringArrayVar(&o.BaseReplace, "base-replace", nil, "build the base with `MODULE=DIR` replaced (for a relative replace leading outside the repository)")
	f.StringSliceVar(&o.Stores, "stores", nil, "`stores`, comma-separated (default every store of the head binary)")
	f.StringSliceVar(&o.Scenarios, "scenarios", nil, "`scenarios`, comma-separated (default the head's default set)")
	f.IntVar(&o.Count, "count", 10, "rounds (`n` samples per side); the gate needs 6 with several benchmarks")
	f.IntVar(&o.Ops, "ops", 0, "`n` ops per sample (0: each scenario's)")
	f.StringVar(&interleave, "interleave", "scenario", "`how`: one process per scenario and side (scenario), or per side with every scenario (round)")
	f.StringVar(&o.Out, "out", "certbench-out", "output `dir`")
	f.StringVar(&o.Policy.Config, "config", "", "gate policy `file`")
	f.BoolVar(&o.Policy.NoConfig, "no-config", false, "the built-in gate policy")
	f.Var(&max, "max", "a gate threshold, `UNIT=THRESHOLD`; repeatable")
	f.BoolVar(&o.Simulate, "simulate", false, "also gate instructions/op on the simulated CPU (needs valgrind)")
	f.IntVar(&o.SimCount, "sim-count", 5, "samples per side on the simulated CPU (`n`)")
	f.StringVar(&o.WallMax, "wall-max", "+25%", "with --simulate, the sec/op and cpu-sec/op `threshold` (policy: the policy's)")
	f.StringVar(&bench.Bench, "bench", "", "gate the module's go test benchmarks matching `regexp` too")
	f.StringSliceVar(&bench.Packages, "bench-packages", []string{"./..."}, "with --bench, the `packages` (patterns relative to the module)")
	f.StringVar(&o.Cache, "cache", abCacheDir(), "keep base binaries and results in this `dir`")
	f.BoolVar(&noCache, "no-cache", false, "build and measure the base again")
	return cmd
}

// abCacheDir is ab's (and history backfill's) default cache.
func abCacheDir() string {
	cache, _ := os.UserCacheDir()
	if cache != "" {
		cache = filepath.Join(cache, "certbench", "ab")
	}
	return cache
}

func runAB(cmd *cobra.Command, o ab.RunOptions) error {
	io := ioOf(cmd)
	o.Log = io.ErrOut
	for _, p := range []*string{&o.Policy.Config, &o.BaseTree} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return usageError(err)
			}
			*p = abs
		}
	}
	rep, err := ab.Run(cmd.Context(), o)
	var ie *ab.InputError
	switch {
	case errors.As(err, &ie):
		return usageError(err)
	case err != nil:
		return err
	}
	if rep.Wall == nil && rep.Bench == nil && rep.BenchSim == nil { // nothing to compare
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
