package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Build is backfill's build and runs: Dir, Main, Build, Cache; Stores,
	// Scenarios, Count, Ops, Simulate, SimCount as for certbench run.
	Build ab.RunOptions
}

const historyLong = `history keeps every commit's results and finds where each benchmark and
unit stepped. --history is a directory, or git:REF (a ref of the repository
here, such as git:refs/notes/certbench, that CI pushes and fetches).

add stores the result files of one commit, merged, with the commit and its
time (from git, or --time). It is append-only and safe against concurrent
adds; a truncated or foreign file is refused and nothing is stored.

changes prints, per benchmark and unit, each change point over the commits
in order: its commit, its size with a 95% interval and the commits around
it; --since C adds the drift of every series from C to the last commit, so
small steps that each passed a gate show as one number. Exit 0; 2 on bad
input. The method and its false-alarm rate: docs/history.md.

backfill builds each commit of a range not yet stored (as ab builds a base,
cached), runs it (certbench run; --simulate also on the simulated CPU) and
adds its results: a history seeded from past commits.`

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
	bf.StringVar(&b.Dir, "dir", "", "the module, relative to the repository root (`dir`; default the working directory)")
	bf.StringVar(&b.Main, "main", "./cmd/certbench", "the main `package`, relative to --dir")
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

// runHistoryBackfill builds, runs and stores each commit of the range
// opts.Files[0] that the history lacks, oldest first. A commit that does
// not build or whose run fails is skipped with a warning; nothing stored
// is changed.
func runHistoryBackfill(ctx context.Context, opts *historyOptions) error {
	o, errOut := opts.Build, opts.ioStreams.ErrOut
	if o.Count < 1 || o.Ops < 0 || o.SimCount < 1 {
		return usagef("--count %d, --ops %d, --sim-count %d: want positive counts", o.Count, o.Ops, o.SimCount)
	}
	st, err := history.Open(opts.History, "")
	if err != nil {
		return usageError(err)
	}
	commits, err := history.Range(ctx, "", opts.Files[0])
	if err != nil {
		return usageError(err)
	}
	h, err := history.Load(ctx, st)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // else a new history
		return usageError(fmt.Errorf("--history %s: %w", opts.History, err))
	}
	tmp, err := os.MkdirTemp("", "certbench-backfill-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	log, err := os.CreateTemp("", "certbench-backfill-*.log") // kept if a warning names it
	if err != nil {
		return err
	}
	warned := false
	defer func() {
		log.Close()
		if !warned {
			os.Remove(log.Name())
		}
	}()
	args := []string{"run", "-q"}
	if len(o.Stores) > 0 {
		args = append(args, "--stores", strings.Join(o.Stores, ","))
	}
	if len(o.Scenarios) > 0 {
		args = append(args, "--scenarios", strings.Join(o.Scenarios, ","))
	}
	args = append(args, "--ops", fmt.Sprint(o.Ops))
	passes := [][]string{{"--count", fmt.Sprint(o.Count)}}
	if o.Simulate {
		passes = append(passes, []string{"--instrument", "simulate", "--count", fmt.Sprint(o.SimCount)})
	}
	stored := 0
	for i, c := range commits {
		at := fmt.Sprintf("%.12s (%d of %d)", c, i+1, len(commits))
		if h != nil && h.Index(c) >= 0 {
			fmt.Fprintf(errOut, "certbench: %s: stored already\n", at)
			continue
		}
		bin := filepath.Join(tmp, "certbench")
		if _, err := ab.BuildCommit(ctx, o, c, bin, log); err != nil {
			fmt.Fprintf(errOut, "certbench: warning: %s: skipped: %v\n", at, err)
			warned = true
			continue
		}
		var files []string
		for k, pass := range passes {
			file := filepath.Join(tmp, fmt.Sprintf("run%d.txt", k))
			code, stderr, err := ab.Command(ctx, bin, nil, slices.Concat(args, pass, []string{"-o", file})...)
			if err != nil || code != 0 {
				fmt.Fprintf(errOut, "certbench: warning: %s: skipped: certbench %s: exit %d %v %s\n", at, strings.Join(pass, " "), code, err, strings.TrimSpace(stderr))
				files, warned = nil, true
				break
			}
			files = append(files, file)
		}
		if files == nil {
			continue
		}
		t, err := history.CommitTime(ctx, "", c)
		if err != nil {
			return err
		}
		if _, err := history.Add(ctx, st, c, t, files...); err != nil {
			return usageError(err)
		}
		stored++
		fmt.Fprintf(errOut, "certbench: %s: stored in %s\n", at, st)
	}
	fmt.Fprintf(errOut, "certbench: %d of %d commits stored\n", stored, len(commits))
	return nil
}
