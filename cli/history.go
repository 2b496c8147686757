package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/certbench/certbench/internal/ab"
	"github.com/certbench/certbench/internal/history"
	"github.com/certbench/certbench/internal/table"
	"github.com/spf13/cobra"
)

// HistoryOptions are the options of certbench history add and changes:
// the store (a directory or git:REF), add's commit, its time (zero: from
// git) and files, and changes' --since commit ("": no drift), format and
// statistics.
type historyOptions struct {
	ioStreams              ioStreams
	History, Commit, Since string
	Time                   time.Time
	Files                  []string
	Format                 string
	Stats                  history.Options
	// Build is backfill's build and runs: Module, Main, Build, Cache; Stores,
	// Scenarios, Count, Ops, Simulate, SimCount as for certbench run.
	Build ab.RunOptions
}

const historyLong = `history keeps every commit's results and finds where each benchmark and
unit stepped. --history is a directory, or git:REF (a ref of the repository
here, such as git:refs/notes/certbench, that CI pushes and fetches).

add stores one commit's result files, merged, with the commit and its time
(from git, or --time): append-only, safe against concurrent adds; a cut or
foreign file is refused. changes prints each change point of each benchmark
and unit (its commit, its size with a 95% interval, the commits around it);
--since C adds each series' drift from C on. backfill builds, runs (as ab
--record) and stores each commit of a range not yet stored. Exit 0; 2 on bad
input. The method and its false-alarm rate: docs/history.md.`

func newHistoryCmd(runF func(context.Context, *historyOptions, string) error) *cobra.Command {
	opts := &historyOptions{}
	var at string
	run := func(sub string) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			if opts.History == "" {
				return usagef("--history: required")
			}
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return usagef("--time %q: want RFC 3339, 2026-01-02T15:04:05Z", at)
				}
				opts.Time = t
			}
			if runF != nil {
				return runF(cmd.Context(), opts, sub)
			}
			switch sub {
			case "add":
				return runHistoryAdd(cmd.Context(), opts)
			case "backfill":
				return runHistoryBackfill(cmd.Context(), opts)
			}
			return runHistoryChanges(cmd.Context(), opts)
		}
	}
	cmd := &cobra.Command{Use: "history add|changes|backfill", Short: "Keep every commit's results; find change points and creep", Long: historyLong}
	add := &cobra.Command{Use: "add --history LOC --commit C FILE...", Short: "Store one commit's result files", Long: historyLong,
		Example: "  certbench history add --history git:refs/notes/certbench --commit $(git rev-parse HEAD) results.txt",
		Args:    cobra.MinimumNArgs(1), RunE: run("add")}
	changes := &cobra.Command{Use: "changes --history LOC", Short: "Print the change points and drift of a history", Long: historyLong,
		Example: "  certbench history changes --history git:refs/notes/certbench --since v0.3.0 --format markdown",
		Args:    cobra.NoArgs, RunE: run("changes")}
	backfill := &cobra.Command{Use: "backfill --history LOC RANGE", Short: "Build, run and store each commit of a range", Long: historyLong,
		Example: "  certbench history backfill --history git:refs/notes/certbench --stores mystore v0.3.0..main",
		Args:    cobra.ExactArgs(1), RunE: run("backfill")}
	b, bf := &opts.Build, backfill.Flags()
	bf.StringVar(&b.Module, "module", "", "the module, relative to the repository root (`dir`; default the working directory)")
	bf.StringVar(&b.Main, "main", "./cmd/certbench", "the main `package`, relative to --module")
	bf.StringVar(&b.Build, "build", "", "build with this bash `command` (as certbench ab --build)")
	bf.StringSliceVar(&b.Stores, "stores", nil, "`stores`, comma-separated (default run's)")
	bf.StringSliceVar(&b.Scenarios, "scenarios", nil, "`scenarios`, comma-separated (default run's)")
	bf.IntVar(&b.Count, "count", 10, "`n` samples per commit")
	bf.IntVar(&b.Ops, "ops", 0, "`n` ops per sample (0: each scenario's)")
	bf.BoolVar(&b.Simulate, "simulate", false, "also run on the simulated CPU (needs valgrind)")
	bf.IntVar(&b.SimCount, "sim-count", 5, "`n` samples per commit on the simulated CPU")
	bf.StringVar(&b.Cache, "cache", abCacheDir(), "keep binaries by commit in this `dir` (shared with ab; '' for none)")
	for _, c := range []*cobra.Command{add, changes, backfill} {
		c.Flags().StringVar(&opts.History, "history", "", "the history: a `directory` or git:REF")
	}
	add.Flags().StringVar(&opts.Commit, "commit", "", "the `commit` the files are results of (required)")
	add.Flags().StringVar(&at, "time", "", "the commit's `time`, RFC 3339 (default: from git)")
	changes.Flags().StringVar(&opts.Since, "since", "", "also report each series' drift from this `commit` on")
	changes.Flags().StringVar(&opts.Format, "format", "text", formatUsage("output format", []string{"text", "markdown", "json"}))
	changes.Flags().Float64Var(&opts.Stats.Alpha, "alpha", history.DefaultAlpha, "false discovery `rate` across all series")
	cmd.AddCommand(add, changes, backfill)
	return cmd
}

// runHistoryAdd stores the files.
func runHistoryAdd(ctx context.Context, opts *historyOptions) error {
	if opts.Commit == "" {
		return usagef("--commit: required")
	}
	st, err := history.Open(opts.History, "")
	if err != nil {
		return usageError(err)
	}
	if full, err := history.Resolve(ctx, "", opts.Commit); err == nil {
		opts.Commit = full // HEAD, a tag or a short hash of the repository here
	}
	if opts.Time.IsZero() {
		if opts.Time, err = history.CommitTime(ctx, "", opts.Commit); err != nil {
			return usagef("--commit %s: no time from git (%v): give --time", opts.Commit, err)
		}
	}
	name, err := history.Add(ctx, st, opts.Commit, opts.Time, opts.Files...)
	if err != nil {
		return usageError(err)
	}
	fmt.Fprintf(opts.ioStreams.ErrOut, "certbench: stored %s in %s\n", name, st)
	return nil
}

// runHistoryChanges prints the report.
func runHistoryChanges(ctx context.Context, opts *historyOptions) error {
	if err := checkFormat(opts.Format, []string{"text", "markdown", "json"}); err != nil {
		return err
	}
	if opts.Stats.Alpha <= 0 || opts.Stats.Alpha >= 1 {
		return usagef("--alpha %g: want a rate between 0 and 1", opts.Stats.Alpha)
	}
	st, err := history.Open(opts.History, "")
	if err != nil {
		return usageError(err)
	}
	if full, err := history.Resolve(ctx, "", opts.Since); err == nil {
		opts.Since = full // a tag or branch of the repository here
	}
	h, err := history.Load(ctx, st)
	if err != nil {
		return usageError(err)
	}
	r, err := history.NewReport(h, st.String(), opts.Since, opts.Stats)
	if err != nil {
		return usageError(err)
	}
	return table.Write(opts.ioStreams.Out, opts.Format, r.Page(), r)
}

// runHistoryBackfill records each commit of the range opts.Files[0] that
// the history lacks (ab.Backfill).
func runHistoryBackfill(ctx context.Context, opts *historyOptions) error {
	o := opts.Build
	o.History, o.Log = opts.History, opts.ioStreams.ErrOut
	stored, of, err := ab.Backfill(ctx, o, opts.Files[0])
	if err != nil {
		return abError(err)
	}
	fmt.Fprintf(opts.ioStreams.ErrOut, "certbench: %d of %d commits stored\n", stored, of)
	return nil
}
