package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/certbench/certbench/internal/ci/history"
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
}

const historyLong = `history keeps every commit's results and finds where each benchmark and
unit stepped. --history is a directory, or git:REF (a ref of the repository
here, such as git:refs/notes/certbench, that CI pushes and fetches).

add stores one commit's result files, merged, with the commit and its time
(from git, or --time): append-only, safe against concurrent adds; a cut or
foreign file is refused. changes prints each change point of each benchmark
and unit (its commit, its size with a 95% interval, the commits around it);
--since C adds each series' drift from C on. certbench ab --record fills a
history: HEAD's results, or each commit of a range not yet stored. Exit 0; 2
on bad input. The method and its false-alarm rate: docs/history.md.`

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
			if sub == "add" {
				return runHistoryAdd(cmd.Context(), opts)
			}
			return runHistoryChanges(cmd.Context(), opts)
		}
	}
	cmd := &cobra.Command{Use: "history add|changes", Short: "Keep every commit's results; find change points and creep", Long: historyLong}
	add := &cobra.Command{Use: "add --history LOC --commit C FILE...", Short: "Store one commit's result files", Long: historyLong,
		Example: "  certbench history add --history git:refs/notes/certbench --commit $(git rev-parse HEAD) results.txt",
		Args:    cobra.MinimumNArgs(1), RunE: run("add")}
	changes := &cobra.Command{Use: "changes --history LOC", Short: "Print the change points and drift of a history", Long: historyLong,
		Example: "  certbench history changes --history git:refs/notes/certbench --since v0.3.0 --format markdown",
		Args:    cobra.NoArgs, RunE: run("changes")}
	for _, c := range []*cobra.Command{add, changes} {
		c.Flags().StringVar(&opts.History, "history", "", "the history: a `directory` or git:REF")
	}
	add.Flags().StringVar(&opts.Commit, "commit", "", "the `commit` the files are results of (required)")
	add.Flags().StringVar(&at, "time", "", "the commit's `time`, RFC 3339 (default: from git)")
	changes.Flags().StringVar(&opts.Since, "since", "", "also report each series' drift from this `commit` on")
	changes.Flags().StringVar(&opts.Format, "format", "text", formatUsage("output format", []string{"text", "markdown", "json"}))
	cmd.AddCommand(add, changes)
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
	r, err := history.NewSummary(h, st.String(), opts.Since, opts.Stats)
	if err != nil {
		return usageError(err)
	}
	return table.Write(opts.ioStreams.Out, opts.Format, r.Page(), r)
}
